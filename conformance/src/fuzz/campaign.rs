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

use super::compare::{compare, Disagreement};
pub use super::finding::{expectations, rules, slug, Extra, Finding};
use super::finding::{steps_of, write_finding};
use super::gen::{from_seed, GenCase};
use super::known::Known;
use super::observe::{observe, Answer, Observation};
use super::parts::Allowed;
use super::shrink::shrink;
use super::yaml::{call_of, requires, to_yaml, Meta};
use crate::adapter::{Adapter, ReadFormat};
use crate::case::Case;
use crate::run::{run_case, CaseRecord, Status, RERUN_PATIENCE};
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
