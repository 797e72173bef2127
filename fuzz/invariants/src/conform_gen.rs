//! `conform_gen`: the case generator of differential fuzzing (`editref conform --fuzz`,
//! `editref_conform::fuzz`) driven by the fuzzer's bytes instead of a seed, and held to what
//! the rest of the differential run takes for granted:
//!
//! - the case uses only the features the implementation declared (`requires` ⊆ declared);
//! - it is written in the corpus YAML and loads back as the same case — the same file bytes,
//!   modes, links, hard links, calls (tool and input) and harness actions, in order;
//! - the reference, run on it in process, never meets a harness error, never crashes or times
//!   out, and answers every call;
//! - written with the reference's outcome as expectations (the form a finding takes), it loads,
//!   and the reference passes it — a finding's replay depends on this;
//! - every shrink proposal is smaller by the shrinker's measure (so shrinking ends) and is a
//!   case that loads.
//!
//! Framing: the first five bytes are a mask over the feature vocabulary (bit `k` of the
//! little-endian number declares `FEATURES[k]`; `read` and `edit` are always declared, as the
//! generator's cases always read and edit); the rest drives [`generate`].

use crate::sandbox::Sandbox;
use crate::{ensure, Check};
use arbitrary::Unstructured;
use editref::protocol::FEATURES;
use editref_conform::adapter::Builtin;
use editref_conform::case::{Case, Content, Step};
use editref_conform::fuzz::campaign::expectations;
use editref_conform::fuzz::gen::{seed_bytes, GenCase, GenStep};
use editref_conform::fuzz::generate;
use editref_conform::fuzz::observe::{observe, Answer};
use editref_conform::fuzz::parts::Allowed;
use editref_conform::fuzz::shrink::{proposals, size};
use editref_conform::fuzz::yaml::{call_of, requires, to_yaml, Meta};
use editref_conform::run::{run_case, Status};
use std::time::Duration;

/// Bytes of the feature mask at the start of an input.
const MASK: usize = 5;

/// The features an input declares: those its mask names, and `read` and `edit`.
pub fn declared(data: &[u8]) -> Vec<String> {
    let mut bits = [0u8; 8];
    let n = data.len().min(MASK);
    bits[..n].copy_from_slice(&data[..n]);
    let mask = u64::from_le_bytes(bits);
    FEATURES
        .iter()
        .enumerate()
        .filter(|(k, f)| mask >> k & 1 == 1 || matches!(**f, "read" | "edit"))
        .map(|(_, f)| f.to_string())
        .collect()
}

/// The input whose case is the one `editref conform --fuzz --seed SEED --cases 1` generates for
/// an implementation declaring every feature, when the generator needs at most `len` bytes for
/// it (a few hundred at most; 80 for most cases) — the committed seeds.
pub fn seed_input(seed: u64, len: usize) -> Vec<u8> {
    let mut out = vec![0xFF; MASK];
    out.extend(seed_bytes(seed, len));
    out
}

/// Checks the generator on one input; see the module documentation.
pub fn conform_gen(data: &[u8]) -> Check {
    let declared = declared(data);
    let rest = data.get(MASK..).unwrap_or_default();
    let case = generate(&mut Unstructured::new(rest), &Allowed::new(&declared))
        .map_err(|e| format!("the generator failed: {e}"))?;
    let needed = requires(&case);
    let undeclared: Vec<&String> = needed.iter().filter(|f| !declared.contains(f)).collect();
    ensure!(
        undeclared.is_empty(),
        "the case needs {undeclared:?}, which were not declared: {case:?}"
    );

    let meta = Meta {
        id: "fuzz/conform-gen".into(),
        title: "generated".into(),
        spec: vec!["EDIT-1".into()],
        notes: None,
    };
    let yaml = to_yaml(&case, &meta, None);
    let loaded = load(&yaml)?;
    same_case(&case, &loaded).map_err(|e| format!("{e}\n{yaml}"))?;

    let dir = Sandbox::new()?;
    let mut reference = Builtin::new(Duration::from_secs(30)).without_fsync();
    let obs = observe(&mut reference, &loaded, Some(dir.path()));
    ensure!(
        obs.harness_error.is_none(),
        "the harness could not run the case on the reference: {:?}\n{yaml}",
        obs.harness_error
    );
    let calls = case.steps.iter().filter(|s| call_of(s).is_some()).count();
    ensure!(
        obs.answers.len() == calls,
        "{} answers to {calls} calls\n{yaml}",
        obs.answers.len()
    );
    if let Some(broken) = obs
        .answers
        .iter()
        .find(|a| matches!(a, Answer::Crashed(_) | Answer::TimedOut(_)))
    {
        return Err(format!("the reference broke: {broken:?}\n{yaml}"));
    }

    let written = to_yaml(&case, &meta, Some(&expectations(&case, &obs, &[], &[])));
    let finding = load(&written)?;
    let all: Vec<String> = FEATURES.iter().map(|s| s.to_string()).collect();
    let rec = run_case(&mut reference, &all, &finding, Some(dir.path()), false);
    ensure!(
        rec.status == Status::Pass,
        "the reference fails the case written with its own outcome: {}\n{written}",
        rec.reason
    );

    let whole = size(&case);
    for p in proposals(&case) {
        ensure!(
            size(&p) < whole,
            "a shrink proposal is not smaller ({} ≥ {whole}): {p:?}",
            size(&p)
        );
        load(&to_yaml(&p, &meta, None)).map_err(|e| format!("a shrink proposal: {e}"))?;
    }
    Ok(())
}

/// Loads a generated case's YAML as the corpus loader does.
fn load(yaml: &str) -> Result<Case, String> {
    editref_conform::load::parse_case("generated", "fuzz/conform-gen.yaml", yaml.as_bytes())
        .map_err(|e| {
            let errors: Vec<String> = e.iter().map(|e| e.to_string()).collect();
            format!("the case does not load: {}\n{yaml}", errors.join("; "))
        })
}

/// Whether the loaded case is the generated one: file bytes and modes, links, hard links, and
/// each step.
fn same_case(case: &GenCase, loaded: &Case) -> Check {
    ensure!(
        loaded.files.len() == case.files.len() + case.links.len() + case.hardlinks.len(),
        "{} entries loaded for {} files, {} links and {} hard links",
        loaded.files.len(),
        case.files.len(),
        case.links.len(),
        case.hardlinks.len()
    );
    let entry = |path: &str| loaded.files.iter().find(|(p, _)| p == path).map(|(_, f)| f);
    for f in &case.files {
        let want = f.encoding.encode(&f.text);
        let got = entry(&f.path).map(|form| &form.content);
        ensure!(
            want.as_ref().map(|b| Content::Bytes(b.clone())).as_ref() == got,
            "{}: loaded as {got:?}, generated {:?} in {:?}",
            f.path,
            f.text,
            f.encoding
        );
        let mode = entry(&f.path).and_then(|form| form.mode);
        ensure!(mode == Some(f.mode), "{}: mode {mode:?}", f.path);
    }
    for (name, file) in &case.hardlinks {
        let got = entry(name).map(|form| &form.content);
        ensure!(
            got == Some(&Content::Hardlink(file.clone())),
            "{name}: loaded as {got:?}, generated a hard link to {file}"
        );
    }
    for (link, target) in &case.links {
        let got = entry(link).map(|form| &form.content);
        ensure!(
            got == Some(&Content::Symlink(target.clone())),
            "{link}: loaded as {got:?}, generated a link to {target}"
        );
    }
    ensure!(
        loaded.steps.len() == case.steps.len(),
        "{} steps loaded of {}",
        loaded.steps.len(),
        case.steps.len()
    );
    for (i, (gen, step)) in case.steps.iter().zip(&loaded.steps).enumerate() {
        let same = match (gen, step) {
            (
                GenStep::Modify {
                    path,
                    text,
                    encoding,
                },
                Step::Modify {
                    path: p,
                    form,
                    keep_mtime: false,
                },
            ) => {
                path == p
                    && encoding.encode(text).map(Content::Bytes).as_ref() == Some(&form.content)
            }
            (GenStep::Touch { path }, Step::Touch { path: p, shift_ns }) => {
                path == p && *shift_ns == 2_000_000_000
            }
            (GenStep::Link { path, target }, Step::Link { path: p, target: t }) => {
                path == p && target == t
            }
            (gen, Step::Call { tool, input, .. }) => {
                call_of(gen).is_some_and(|(t, i)| t == tool && i == *input)
            }
            _ => false,
        };
        ensure!(same, "step {}: generated {gen:?}, loaded {step:?}", i + 1);
    }
    Ok(())
}
