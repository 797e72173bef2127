//! A differential fuzzing run: generate cases from consecutive seeds, observe the reference and
//! the implementation on each, and for every new kind of disagreement shrink the case and write
//! it as a corpus case that replays the disagreement.
//!
//! One case per kind is shrunk and written (the first seed that shows it); later cases of the
//! same kind are only counted, so a run's time goes into finding new kinds rather than into
//! shrinking the same one again. Kinds a known-divergences file accepts are counted apart and
//! never written.

use super::compare::{compare, Disagreement};
use super::gen::{from_seed, GenCase};
use super::known::Known;
use super::observe::{observe, Answer, Observation};
use super::parts::Allowed;
use super::shrink::shrink;
use super::yaml::{call_of, requires, to_yaml, ExpectCall, ExpectEntry, Expectations, Meta};
use crate::adapter::{Adapter, ReadFormat};
use crate::case::Case;
use crate::run::{run_case, Status};
use crate::sandbox::Actual;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a run goes.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The first case's seed; case `i` uses `seed + i`, so one case is re-run with
    /// `--seed <its seed> --cases 1`.
    pub seed: u64,
    /// Stop after this many cases.
    pub cases: Option<u64>,
    /// Stop after this long (checked between cases; shrinking stops at it too).
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
    /// Accepted kinds with their pattern and count.
    pub known: Vec<(String, String, u64)>,
    /// Cases the harness could not run (its own failure, not the implementation's).
    pub harness_errors: u64,
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

/// The tool and input of each call step, in order.
fn calls_of(case: &GenCase) -> Vec<(String, serde_json::Value)> {
    case.steps
        .iter()
        .filter_map(|s| call_of(s).map(|(t, v)| (t.to_string(), v)))
        .collect()
}

/// Runs the case on both sides; the disagreement and the reference's observation.
fn judge(
    reference: &mut dyn Adapter,
    other: &mut dyn Adapter,
    case: &GenCase,
    id: &str,
    settings: &Settings,
) -> Result<(Option<Disagreement>, Observation), String> {
    let run = as_case(case, id)?;
    let tmp = settings.tmp.as_deref();
    let want = observe(reference, &run, tmp);
    let got = observe(other, &run, tmp);
    let d = compare(&want, &got, &calls_of(case), settings.read_format);
    Ok((d, want))
}

/// The differential run. `on_tick` is called after every case and while shrinking.
pub fn campaign(
    reference: &mut dyn Adapter,
    other: &mut dyn Adapter,
    declared: &[String],
    settings: &Settings,
    on_tick: &mut dyn FnMut(Tick),
) -> Outcome {
    let started = Instant::now();
    let allowed = Allowed::new(declared);
    let mut out = Outcome::default();
    let mut known_hits: u64 = 0;
    loop {
        if settings.cases.is_some_and(|n| out.cases >= n)
            || settings.time.is_some_and(|t| started.elapsed() >= t)
            || (settings.cases.is_none() && settings.time.is_none() && out.cases >= 1000)
        {
            break;
        }
        let seed = settings.seed.wrapping_add(out.cases);
        out.cases += 1;
        let case = from_seed(seed, &allowed);
        let id = format!("fuzz/seed-{seed}");
        let (d, _) = match judge(reference, other, &case, &id, settings) {
            Ok(r) => r,
            Err(_) => {
                out.harness_errors += 1;
                continue;
            }
        };
        let Some(d) = d else {
            on_tick(tick(&out, known_hits, false));
            continue;
        };
        if let Some(p) = settings.known.accepts(&d.kind) {
            known_hits += 1;
            match out.known.iter_mut().find(|(k, _, _)| *k == d.kind) {
                Some(entry) => entry.2 += 1,
                None => out.known.push((d.kind.clone(), p.to_string(), 1)),
            }
        } else if let Some(f) = out.findings.iter_mut().find(|f| f.kind == d.kind) {
            f.hits += 1;
        } else {
            on_tick(tick(&out, known_hits, true));
            let deadline = settings.time.map(|t| started + t);
            let finding = shrink_and_write(
                reference, other, declared, settings, deadline, seed, case, d,
            );
            out.findings.push(finding);
        }
        on_tick(tick(&out, known_hits, false));
    }
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

/// Shrinks a disagreeing case, writes it when asked, and checks that the written case replays.
#[allow(clippy::too_many_arguments)]
fn shrink_and_write(
    reference: &mut dyn Adapter,
    other: &mut dyn Adapter,
    declared: &[String],
    settings: &Settings,
    deadline: Option<Instant>,
    seed: u64,
    case: GenCase,
    first: Disagreement,
) -> Finding {
    let id = format!("fuzz/seed-{seed}");
    let original = (case.steps.len(), lines(&case));
    let kind = first.kind.clone();
    // Shrinking stops at the run's deadline: a finding is written as far as it got.
    let mut still = |c: &GenCase| -> bool {
        if deadline.is_some_and(|d| Instant::now() >= d)
            || !requires(c).iter().all(|f| declared.contains(f))
        {
            return false;
        }
        matches!(judge(reference, other, c, &id, settings), Ok((Some(d), _)) if d.kind == kind)
    };
    let (small, _) = shrink(case, settings.shrink_budget, &mut still);
    let (detail, want) = match judge(reference, other, &small, &id, settings) {
        Ok((Some(d), want)) => (d.detail, want),
        Ok((None, want)) => (first.detail.clone(), want),
        Err(e) => (e, Observation::default()),
    };
    let mut finding = Finding {
        kind: first.kind.clone(),
        detail,
        seed,
        hits: 1,
        steps: (original.0, small.steps.len()),
        lines: (original.1, lines(&small)),
        case: small,
        file: None,
        replays: None,
    };
    if let Some(dir) = &settings.findings {
        match write_finding(dir, &finding, &want) {
            Ok((path, loaded)) => {
                let declared: Vec<String> = declared.to_vec();
                let tmp = settings.tmp.as_deref();
                let features = editref_protocol::FEATURES.map(String::from).to_vec();
                let ref_rec = run_case(reference, &features, &loaded, tmp, false);
                let other_rec = run_case(other, &declared, &loaded, tmp, false);
                finding.replays =
                    Some(ref_rec.status == Status::Pass && other_rec.status != Status::Pass);
                finding.file = Some(path);
            }
            Err(e) => finding.detail = format!("{} (not written: {e})", finding.detail),
        }
    }
    finding
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
    let table: [(&str, &[&str]); 23] = [
        ("line break the reference deletes", &["EDIT-2"]),
        ("line break is deleted", &["EDIT-2"]),
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
    for (needle, ids) in table {
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

/// The reference's outcome as expectations.
pub fn expectations(case: &GenCase, want: &Observation) -> Expectations {
    let tools: Vec<String> = calls_of(case).into_iter().map(|(t, _)| t).collect();
    let calls = want
        .answers
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Answer::Ok(out) if tools.get(i).map(String::as_str) == Some("Read") => {
                let content = out.pointer("/file/content").and_then(|v| v.as_str());
                ExpectCall::Ok {
                    read_content: content.map(String::from),
                    read_type: content
                        .is_none()
                        .then(|| out.get("type").and_then(|v| v.as_str()))
                        .flatten()
                        .map(String::from),
                }
            }
            Answer::Ok(_) | Answer::Crashed(_) | Answer::TimedOut(_) => ExpectCall::Ok {
                read_content: None,
                read_type: None,
            },
            Answer::Err { code } => ExpectCall::Err(code.clone()),
        })
        .collect();
    let mut files = Vec::new();
    for (key, actual) in &want.after {
        let Some(path) = key.strip_prefix("sandbox/") else {
            continue;
        };
        match actual {
            Actual::File { bytes, .. } => {
                files.push((path.to_string(), ExpectEntry::Bytes(bytes.clone())))
            }
            Actual::Symlink(_) => files.push((path.to_string(), ExpectEntry::Symlink(None))),
            _ => {}
        }
    }
    for key in want.before.keys() {
        if let Some(path) = key.strip_prefix("sandbox/") {
            if !want.after.contains_key(key) {
                files.push((path.to_string(), ExpectEntry::Absent));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Expectations { calls, files }
}

/// Writes the finding as `DIR/fuzz/<slug>.yaml` and loads it back (it must load).
fn write_finding(
    dir: &Path,
    finding: &Finding,
    want: &Observation,
) -> Result<(PathBuf, Case), String> {
    let name = format!("{}-{}", slug(&finding.kind), finding.seed);
    let id = format!("fuzz/{name}");
    let meta = Meta {
        id: id.clone(),
        title: finding.kind.clone(),
        spec: rules(&finding.kind),
        notes: Some(format!(
            "Found by editref conform --fuzz (seed {}), shrunk from {} steps to {}. {}",
            finding.seed, finding.steps.0, finding.steps.1, finding.detail
        )),
    };
    let yaml = to_yaml(
        &finding.case,
        &meta,
        Some(&expectations(&finding.case, want)),
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
