//! A differential fuzzing run: generate cases from consecutive seeds, observe the reference and
//! the implementation on each, and for every new kind of disagreement shrink the case and write
//! it as a corpus case that replays the disagreement.
//!
//! Every disagreement of a case counts, not only the first: a kind the known-divergences file
//! accepts does not hide a new kind later in the same case. Only the disagreements that come
//! before the two sides' states part are findings ([`Disagreement::follows`]); what follows may
//! be their consequence.
//!
//! One case per kind is shrunk and written (the first seed that shows it), shrunk for that kind
//! alone; later cases of the same kind are only counted, so a run's time goes into finding new
//! kinds rather than into shrinking the same one again. Kinds a known-divergences file accepts
//! are counted apart and never written.
//!
//! What a run finds depends on the seed and the case budget, never on the machine's speed: an
//! observation in which a call timed out is made again with patient limits before it is
//! compared (so a busy machine does not turn into a `timed out` kind), and only a time budget
//! (`--time`), which the caller chooses, lets the clock decide how many cases run.

use super::compare::{compare, expected_output, Disagreement, StepCall};
use super::gen::{from_seed, GenCase};
use super::known::Known;
use super::observe::{observe, Answer, Observation};
use super::parts::Allowed;
use super::shrink::shrink;
use super::yaml::{call_of, requires, to_yaml, ExpectCall, ExpectEntry, Expectations, Meta};
use crate::adapter::{Adapter, ReadFormat};
use crate::case::Case;
use crate::class::Class;
use crate::run::{run_case, CaseRecord, Status, RERUN_PATIENCE};
use crate::sandbox::Actual;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a run goes.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The first case's seed; case `i` uses `seed + i`, so one case is re-run with
    /// `--seed <its seed> --cases 1`.
    pub seed: u64,
    /// Stop after this many cases. With a case budget alone a run is the same on every
    /// machine: the same seed generates and judges the same cases, and every finding is shrunk
    /// as far as `shrink_budget` allows.
    pub cases: Option<u64>,
    /// Stop after this long (checked between cases; shrinking stops at it too). How many cases
    /// that is, and how far a finding is shrunk, depends on the machine's speed: a run to
    /// compare with another, or to repeat, takes a case budget instead.
    pub time: Option<Duration>,
    /// Most candidate cases tried while shrinking one finding.
    pub shrink_budget: usize,
    /// Where findings are written (`DIR/fuzz/<name>.yaml`, a corpus directory).
    pub findings: Option<PathBuf>,
    /// Kinds accepted as known.
    pub known: Known,
    /// The implementation's declared Read format.
    pub read_format: ReadFormat,
    /// Where sandboxes are made (the system temp dir when `None`).
    pub tmp: Option<PathBuf>,
}

/// One kind of disagreement found.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The kind (one line).
    pub kind: String,
    /// The particulars, for the shrunk case.
    pub detail: String,
    /// The class of the promise it breaks (data, contract, presentation), as the corpus
    /// harness classes the same difference.
    pub class: Class,
    /// The seed of the first case that showed it.
    pub seed: u64,
    /// How many cases showed it.
    pub hits: u64,
    /// Steps of the original case and of the shrunk one.
    pub steps: (usize, usize),
    /// Lines of the main file in the original case and in the shrunk one.
    pub lines: (usize, usize),
    /// The shrunk case.
    pub case: GenCase,
    /// Where it was written.
    pub file: Option<PathBuf>,
    /// Whether the written case replays: the reference passes it and the implementation does
    /// not (`None` when not written).
    pub replays: Option<bool>,
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Cases run.
    pub cases: u64,
    /// New kinds, in the order found.
    pub findings: Vec<Finding>,
    /// Accepted kinds with their pattern and the number of cases that showed each.
    pub known: Vec<(String, String, u64)>,
    /// Cases that showed at least one accepted kind.
    pub known_cases: u64,
    /// Cases the harness could not run (its own failure, not the implementation's).
    pub harness_errors: u64,
    /// Observations (of either side, while shrinking too) in which a call was not answered
    /// within its limit and that were made again with patient limits: a tool is judged on
    /// its answers, not on how busy the machine was ([`crate::run::RERUN_PATIENCE`]).
    pub patient: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Where a run stands, for a progress display.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// Cases done.
    pub done: u64,
    /// New kinds so far.
    pub findings: usize,
    /// Cases of accepted kinds so far.
    pub known: u64,
    /// Whether a finding is being shrunk now.
    pub shrinking: bool,
}

/// The corpus case a generated case runs as (no expectations), or why it cannot be one.
pub fn as_case(case: &GenCase, id: &str) -> Result<Case, String> {
    let meta = Meta {
        id: id.to_string(),
        title: "generated".into(),
        spec: vec!["EDIT-1".into()],
        notes: None,
    };
    let yaml = to_yaml(case, &meta, None);
    crate::load::parse_case("generated", &format!("{id}.yaml"), yaml.as_bytes()).map_err(|e| {
        e.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Each step of the case: a call's tool and input, or `None` for a harness action.
fn steps_of(case: &GenCase) -> Vec<StepCall> {
    case.steps
        .iter()
        .map(|s| call_of(s).map(|(t, v)| (t.to_string(), v)))
        .collect()
}

/// The two sides of a run and what they share: the reference, the implementation under test,
/// what the implementation declared, and the run's settings.
struct Duel<'a> {
    reference: &'a mut dyn Adapter,
    other: &'a mut dyn Adapter,
    declared: &'a [String],
    settings: &'a Settings,
    /// Observations made again with patient limits so far.
    patient: u64,
}

/// Whether a call of the observation was not answered within its limit.
fn timed_out(o: &Observation) -> bool {
    o.answers.iter().any(|a| matches!(a, Answer::TimedOut(_)))
}

/// Observes `case` on `adapter`; when a call was not answered in time, once more with every
/// limit [`RERUN_PATIENCE`] times longer, and that second observation is the one compared. The
/// campaign runs one case at a time, so the second attempt runs alone. Returns whether it was
/// needed.
fn observe_patiently(
    adapter: &mut dyn Adapter,
    case: &Case,
    tmp: Option<&Path>,
) -> (Observation, bool) {
    let first = observe(adapter, case, tmp);
    if !timed_out(&first) {
        return (first, false);
    }
    adapter.set_patience(RERUN_PATIENCE);
    let second = observe(adapter, case, tmp);
    adapter.set_patience(1);
    (second, true)
}

impl Duel<'_> {
    /// Runs the case on both sides; every disagreement and the reference's observation.
    fn judge(
        &mut self,
        case: &GenCase,
        id: &str,
    ) -> Result<(Vec<Disagreement>, Observation), String> {
        let run = as_case(case, id)?;
        let tmp = self.settings.tmp.as_deref();
        let (want, again) = observe_patiently(self.reference, &run, tmp);
        self.patient += u64::from(again);
        let (got, again) = observe_patiently(self.other, &run, tmp);
        self.patient += u64::from(again);
        let d = compare(
            &want,
            &got,
            &steps_of(case),
            self.settings.read_format,
            self.declared,
        );
        Ok((d, want))
    }
}

/// The differential run. `on_tick` is called after every case and while shrinking.
pub fn campaign(
    reference: &mut dyn Adapter,
    other: &mut dyn Adapter,
    declared: &[String],
    settings: &Settings,
    on_tick: &mut dyn FnMut(Tick),
) -> Outcome {
    crate::sandbox::fix_umask();
    let started = Instant::now();
    let deadline = settings.time.map(|t| started + t);
    let allowed = Allowed::new(declared);
    let mut duel = Duel {
        reference,
        other,
        declared,
        settings,
        patient: 0,
    };
    let mut out = Outcome::default();
    let mut known_hits: u64 = 0;
    loop {
        if settings.cases.is_some_and(|n| out.cases >= n)
            || deadline.is_some_and(|d| Instant::now() >= d)
            || (settings.cases.is_none() && settings.time.is_none() && out.cases >= 1000)
        {
            break;
        }
        let seed = settings.seed.wrapping_add(out.cases);
        out.cases += 1;
        let case = from_seed(seed, &allowed);
        let (found, _) = match duel.judge(&case, &format!("fuzz/seed-{seed}")) {
            Ok(r) => r,
            Err(_) => {
                out.harness_errors += 1;
                continue;
            }
        };
        // Each kind once per case, those that follow a parting of the states left out.
        let mut kinds: Vec<&Disagreement> = Vec::new();
        for d in found.iter().filter(|d| !d.follows) {
            if !kinds.iter().any(|k| k.kind == d.kind) {
                kinds.push(d);
            }
        }
        let mut known_here = false;
        for d in kinds {
            if let Some(p) = settings.known.accepts(&d.kind) {
                known_here = true;
                match out.known.iter_mut().find(|(k, _, _)| *k == d.kind) {
                    Some(entry) => entry.2 += 1,
                    None => out.known.push((d.kind.clone(), p.to_string(), 1)),
                }
            } else if let Some(f) = out.findings.iter_mut().find(|f| f.kind == d.kind) {
                f.hits += 1;
            } else {
                on_tick(tick(&out, known_hits, true));
                let finding = duel.shrink_and_write(deadline, seed, case.clone(), d.clone());
                out.findings.push(finding);
            }
        }
        known_hits += u64::from(known_here);
        out.known_cases = known_hits;
        on_tick(tick(&out, known_hits, false));
    }
    out.patient = duel.patient;
    out.elapsed = started.elapsed();
    out
}

fn tick(out: &Outcome, known: u64, shrinking: bool) -> Tick {
    Tick {
        done: out.cases,
        findings: out.findings.len(),
        known,
        shrinking,
    }
}

/// Lines of the first file.
fn lines(case: &GenCase) -> usize {
    case.files
        .first()
        .map_or(0, |f| f.text.split_inclusive('\n').count())
}

impl Duel<'_> {
    /// Shrinks a disagreeing case (until the run's deadline at the latest), writes it when
    /// asked, and checks that the written case replays.
    fn shrink_and_write(
        &mut self,
        deadline: Option<Instant>,
        seed: u64,
        case: GenCase,
        first: Disagreement,
    ) -> Finding {
        let id = format!("fuzz/seed-{seed}");
        let original = (case.steps.len(), lines(&case));
        let kind = first.kind.clone();
        let declared = self.declared;
        let budget = self.settings.shrink_budget;
        // Where the kind shows in a candidate (`Some(None)`: not at a step), `None` when it
        // does not or the candidate needs what was not declared.
        let mut locate = |c: &GenCase| -> Option<Option<usize>> {
            if deadline.is_some_and(|d| Instant::now() >= d)
                || !requires(c).iter().all(|f| declared.contains(f))
            {
                return None;
            }
            let (found, _) = self.judge(c, &id).ok()?;
            found
                .into_iter()
                .find(|d| !d.follows && d.kind == kind)
                .map(|d| d.step)
        };
        // A written case checks the answers and the final tree, not the trees between steps:
        // the steps after the one that shows the kind go, before shrinking and after, so that
        // what the comparison saw is what the written case checks.
        let case = cut_after(case, first.step, &mut locate);
        let (small, _) = shrink(case, budget, &mut |c: &GenCase| locate(c).is_some());
        let at = locate(&small).flatten();
        let small = cut_after(small, at, &mut locate);
        let (detail, want, accepted, extra) = match self.judge(&small, &id) {
            Ok((found, want)) => {
                let detail = found
                    .iter()
                    .find(|d| !d.follows && d.kind == kind)
                    .map_or_else(|| first.detail.clone(), |d| d.detail.clone());
                let known = |d: &&Disagreement| self.settings.known.accepts(&d.kind).is_some();
                // Calls where the only difference is of an accepted kind are written without
                // their output, so the case fails the implementation for its own kind.
                let accepted: Vec<usize> = found
                    .iter()
                    .filter(|d| !d.follows && known(d))
                    .filter_map(|d| d.call)
                    .collect();
                // What the reference's output does not say but the case must check: the
                // fields of the implementation's result that misfit the protocol's shape.
                let extra: Vec<Extra> = found
                    .iter()
                    .filter(|d| !d.follows && !known(d))
                    .filter_map(|d| Some((d.call?, d.expect.clone()?)))
                    .map(|(call, (path, value))| (call, path, value))
                    .collect();
                (detail, want, accepted, extra)
            }
            Err(e) => (e, Observation::default(), Vec::new(), Vec::new()),
        };
        let mut finding = Finding {
            kind: first.kind,
            detail,
            class: first.class,
            seed,
            hits: 1,
            steps: (original.0, small.steps.len()),
            lines: (original.1, lines(&small)),
            case: small,
            file: None,
            replays: None,
        };
        if let Some(dir) = &self.settings.findings {
            match write_finding(dir, &finding, &want, &accepted, &extra) {
                Ok((path, loaded)) => {
                    let tmp = self.settings.tmp.as_deref();
                    let all = editref_protocol::FEATURES.map(String::from).to_vec();
                    let ref_rec = replay_patiently(self.reference, &all, &loaded, tmp);
                    let other_rec = replay_patiently(self.other, self.declared, &loaded, tmp);
                    finding.replays = Some(
                        ref_rec.status == Status::Pass && fails_as_found(&other_rec, &finding),
                    );
                    finding.file = Some(path);
                }
                Err(e) => finding.detail = format!("{} (not written: {e})", finding.detail),
            }
        }
        finding
    }
}

/// The written case run on `adapter`; a run in which a call timed out is made again with
/// limits [`RERUN_PATIENCE`] times longer, as an observation is, so that whether a finding
/// replays does not depend on how busy the machine was.
fn replay_patiently(
    adapter: &mut dyn Adapter,
    declared: &[String],
    case: &Case,
    tmp: Option<&Path>,
) -> CaseRecord {
    let rec = run_case(adapter, declared, case, tmp, false);
    if rec.status != Status::Timeout {
        return rec;
    }
    adapter.set_patience(RERUN_PATIENCE);
    let again = run_case(adapter, declared, case, tmp, false);
    adapter.set_patience(1);
    again
}

/// `case` without the steps after `step`, when it still has a call and still shows the kind
/// (`locate` finds it).
fn cut_after(
    case: GenCase,
    step: Option<usize>,
    locate: &mut dyn FnMut(&GenCase) -> Option<Option<usize>>,
) -> GenCase {
    let Some(last) = step.filter(|s| s + 1 < case.steps.len()) else {
        return case;
    };
    let mut cut = case.clone();
    cut.steps.truncate(last + 1);
    if cut.steps.iter().any(|s| call_of(s).is_some()) && locate(&cut).is_some() {
        cut
    } else {
        case
    }
}

/// Whether the written case fails the implementation as the finding says: with a failure of
/// the finding's class, or by breaking where the finding is that it broke.
fn fails_as_found(rec: &CaseRecord, finding: &Finding) -> bool {
    let broke = ["crashed", "timed out", "no answer"]
        .iter()
        .any(|k| finding.kind.ends_with(k));
    match rec.status {
        Status::Fail => rec.failed_classes.contains(&finding.class),
        Status::Crash | Status::Timeout => broke,
        _ => false,
    }
}

/// A file name for a kind: lower-case words joined by dashes, at most 60 characters.
pub fn slug(kind: &str) -> String {
    let mut s = String::new();
    for c in kind.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
        if s.len() >= 60 {
            break;
        }
    }
    s.trim_end_matches('-').to_string()
}

/// The spec rules a finding shows, read off its kind.
pub fn rules(kind: &str) -> Vec<String> {
    let table: &[(&str, &[&str])] = &[
        ("cuts lines longer", &["READ-1"]),
        ("Edit: result field", &["EDIT-5"]),
        ("Edit: the result lacks", &["EDIT-5"]),
        ("MultiEdit: result field", &["MULTI-5", "D22"]),
        ("MultiEdit: the result lacks", &["MULTI-5", "D22"]),
        ("Write: result field", &["WRITE-4"]),
        ("LineEdit:", &["LINES-6"]),
        ("text editor view", &["EDITOR-2"]),
        ("text editor str_replace", &["EDITOR-4"]),
        ("text editor insert", &["EDITOR-5"]),
        ("apply_patch:", &["APPLY-13"]),
        ("search_replace:", &["BLOCK-10"]),
        ("line breaks the reference deletes", &["EDIT-2"]),
        ("line breaks are deleted", &["EDIT-2"]),
        ("file_unchanged", &["READ-4"]),
        ("Read: shows other content", &["READ-1"]),
        ("line endings", &["TEXT-4", "TEXT-6"]),
        ("final line break", &["TEXT-6"]),
        ("BOM", &["TEXT-2"]),
        ("UTF-16", &["TEXT-1", "TEXT-2"]),
        ("legacy", &["TEXT-1"]),
        ("quotes differ", &["MATCH-4"]),
        ("whitespace", &["REPAIR-5"]),
        ("outside the edit", &["TEXT-6", "EDIT-3"]),
        ("edited text", &["EDIT-3", "MATCH-5"]),
        ("line_prefix", &["REPAIR-3"]),
        ("desanitize", &["REPAIR-1", "REPAIR-2"]),
        ("quotes", &["MATCH-2"]),
        ("(ambiguous)", &["MATCH-3"]),
        ("(not_found)", &["MATCH-1"]),
        ("(stale)", &["SESSION-2"]),
        ("(not_read)", &["SESSION-1"]),
        ("(partial_read)", &["SESSION-1"]),
        ("symlink", &["DISK-2"]),
        ("mode", &["DISK-1"]),
    ];
    let mut out: Vec<String> = Vec::new();
    for &(needle, ids) in table {
        if kind.contains(needle) {
            for id in ids {
                if !out.iter().any(|o| o == id) {
                    out.push(id.to_string());
                }
            }
        }
    }
    if out.is_empty() {
        out.push("EDIT-1".into());
    }
    out
}

/// What a written finding expects of one field of a call's output beyond the reference's
/// values: the call (counting from 1), the field's dotted path, the expectation.
pub type Extra = (usize, String, serde_json::Value);

/// The reference's outcome as expectations: each call's answer — for a success the parts of
/// its output the corpus compares ([`expected_output`]) with the `extra` fields, none for the
/// calls in `loose` (counting from 1) — and the final tree.
pub fn expectations(
    case: &GenCase,
    want: &Observation,
    loose: &[usize],
    extra: &[Extra],
) -> Expectations {
    let calls_in: Vec<(String, serde_json::Value)> = steps_of(case).into_iter().flatten().collect();
    let calls = want
        .answers
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Answer::Ok(out) => ExpectCall::Ok {
                output: calls_in
                    .get(i)
                    .filter(|_| !loose.contains(&(i + 1)))
                    .map(|(tool, input)| {
                        expected_output(tool, input, out).unwrap_or_else(|| serde_json::json!({}))
                    })
                    .map(|mut o| {
                        for (_, path, v) in extra.iter().filter(|e| e.0 == i + 1) {
                            put_at(&mut o, path, v.clone());
                        }
                        o
                    })
                    .filter(|o| o.as_object().is_some_and(|m| !m.is_empty())),
            },
            Answer::Crashed(_) | Answer::TimedOut(_) => ExpectCall::Ok { output: None },
            Answer::Err { code } => ExpectCall::Err(code.clone()),
        })
        .collect();
    let mut files = Vec::new();
    for (key, actual) in &want.after.entries {
        let Some(path) = key.strip_prefix("sandbox/") else {
            continue;
        };
        let twin = want
            .after
            .twins
            .get(key)
            .filter(|t| *t != key)
            .and_then(|t| t.strip_prefix("sandbox/"));
        let entry = match (actual, twin) {
            (Actual::File { mode, .. }, Some(first)) => ExpectEntry::Hardlink(first.into(), *mode),
            (Actual::File { bytes, mode }, None) => ExpectEntry::Bytes(bytes.clone(), *mode),
            (Actual::Symlink(t), _) => ExpectEntry::Symlink(t.to_string_lossy().into_owned()),
            (Actual::Dir(mode), _) => ExpectEntry::Dir(*mode),
            _ => continue,
        };
        files.push((path.to_string(), entry));
    }
    for key in want.before.entries.keys() {
        if let Some(path) = key.strip_prefix("sandbox/") {
            if !want.after.entries.contains_key(key) {
                files.push((path.to_string(), ExpectEntry::Absent));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Expectations { calls, files }
}

/// Puts `v` at the dotted `path` of the object `o`, making the objects on the way.
fn put_at(o: &mut serde_json::Value, path: &str, v: serde_json::Value) {
    let mut at = o;
    let mut keys = path.split('.').peekable();
    while let Some(k) = keys.next() {
        if !at.is_object() {
            *at = serde_json::Value::Object(serde_json::Map::new());
        }
        let Some(m) = at.as_object_mut() else { return };
        if keys.peek().is_none() {
            m.insert(k.to_string(), v);
            return;
        }
        at = m
            .entry(k.to_string())
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    }
}

/// Writes the finding as `DIR/fuzz/<slug>.yaml` and loads it back (it must load).
fn write_finding(
    dir: &Path,
    finding: &Finding,
    want: &Observation,
    loose: &[usize],
    extra: &[Extra],
) -> Result<(PathBuf, Case), String> {
    let name = format!("{}-{}", slug(&finding.kind), finding.seed);
    let id = format!("fuzz/{name}");
    let meta = Meta {
        id: id.clone(),
        title: finding.kind.clone(),
        spec: rules(&finding.kind),
        notes: Some(format!(
            "Found by editref conform --fuzz (seed {}), shrunk from {} steps to {}. Class: {}. {}",
            finding.seed, finding.steps.0, finding.steps.1, finding.class, finding.detail
        )),
    };
    let yaml = to_yaml(
        &finding.case,
        &meta,
        Some(&expectations(&finding.case, want, loose, extra)),
    );
    let area = dir.join("fuzz");
    std::fs::create_dir_all(&area).map_err(|e| format!("{}: {e}", area.display()))?;
    let path = area.join(format!("{name}.yaml"));
    std::fs::write(&path, &yaml).map_err(|e| format!("{}: {e}", path.display()))?;
    let case = crate::load::parse_case(
        &path.display().to_string(),
        &format!("{id}.yaml"),
        yaml.as_bytes(),
    )
    .map_err(|e| {
        e.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    Ok((path, case))
}
