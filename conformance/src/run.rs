//! Running cases: one case through an adapter ([`run_case`]), case selection, the expectations
//! file (xfail / xpass), and what a set of results certifies.

use crate::adapter::{Adapter, AdapterError};
use crate::case::{Case, Level, Step};
use crate::check::{self, Failure};
use crate::load::BrokenCase;
use crate::sandbox::Sandbox;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::time::Instant;

/// The outcome of one case (conformance spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every expectation held.
    Pass,
    /// A reply or the final tree differed from the expectation.
    Fail,
    /// A required feature was not declared.
    Skip,
    /// Failed, and listed in the expectations file.
    Xfail,
    /// Listed in the expectations file, but passed (an error, so the list stays honest).
    Xpass,
    /// The adapter exited, wrote garbage, or answered out of turn.
    Crash,
    /// No reply within the per-call timeout.
    Timeout,
    /// The harness could not run the case (malformed case, platform limits).
    HarnessError,
}

impl Status {
    /// Every status, in report order.
    pub const ALL: [Status; 8] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Xfail,
        Status::Xpass,
        Status::Crash,
        Status::Timeout,
        Status::HarnessError,
    ];

    /// The spelling used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Xfail => "xfail",
            Status::Xpass => "xpass",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::HarnessError => "harness_error",
        }
    }

    /// Whether the implementation did not do what the case requires (fail, crash, timeout).
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Crash | Status::Timeout)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The record of one case in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRecord {
    /// Case id.
    pub id: String,
    /// Area (the id's first part).
    pub area: String,
    /// Level; `None` for a case file that could not be loaded.
    #[serde(default)]
    pub level: Option<String>,
    /// Outcome.
    pub status: Status,
    /// One line: why it is not a pass (empty for a pass).
    #[serde(default)]
    pub reason: String,
    /// Wall time.
    #[serde(default)]
    pub duration_ms: u64,
    /// The 1-based step where it went wrong, when it was a step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// What the case required there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// What happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// A short diff of expected and actual bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Further problems found after the first one (final-tree checks report them all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<String>,
    /// The adapter's stderr during the case, when captured and not empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

impl CaseRecord {
    fn new(case: &Case, status: Status, reason: impl Into<String>) -> CaseRecord {
        CaseRecord {
            id: case.id.clone(),
            area: case.area.clone(),
            level: Some(case.level.as_str().to_string()),
            status,
            reason: reason.into(),
            duration_ms: 0,
            step: None,
            expected: None,
            actual: None,
            diff: None,
            more: Vec::new(),
            stderr: None,
        }
    }

    /// The record of a case file that could not be loaded.
    pub fn broken(b: &BrokenCase) -> CaseRecord {
        CaseRecord {
            id: b.id.clone(),
            area: b.id.split('/').next().unwrap_or_default().to_string(),
            level: None,
            status: Status::HarnessError,
            reason: match b.errors.len() {
                0 => "malformed case".into(),
                1 => format!("malformed case: {}", b.errors[0]),
                n => format!(
                    "malformed case: {} (and {} more problems)",
                    b.errors[0],
                    n - 1
                ),
            },
            duration_ms: 0,
            step: None,
            expected: None,
            actual: None,
            diff: None,
            more: b.errors.iter().skip(1).map(|e| e.to_string()).collect(),
            stderr: None,
        }
    }

    /// The level, parsed.
    pub fn level(&self) -> Option<Level> {
        self.level.as_deref().and_then(Level::parse)
    }

    fn failed(mut self, step: Option<usize>, f: Failure) -> CaseRecord {
        self.step = step;
        self.reason = f.reason;
        self.expected = f.expected;
        self.actual = f.actual;
        self.diff = f.diff;
        self
    }
}

/// The features a case needs and the implementation does not declare.
pub fn missing_features(case: &Case, declared: &[String]) -> Vec<String> {
    case.requires
        .iter()
        .filter(|f| !declared.contains(f))
        .cloned()
        .collect()
}

/// The input as sent: relative `file_path`, `notebook_path` and `path` values (top-level
/// strings that are not empty, absolute or `~`-paths) are joined to the sandbox by plain string
/// concatenation, so spellings like `./a.txt` or `d//a.txt` reach the implementation intact.
pub fn absolutize(input: &Value, sandbox: &Path) -> Value {
    let mut input = input.clone();
    if let Value::Object(map) = &mut input {
        for key in ["file_path", "notebook_path", "path"] {
            if let Some(Value::String(s)) = map.get_mut(key) {
                if !s.is_empty() && !s.starts_with('/') && !s.starts_with('~') {
                    *s = format!("{}/{}", sandbox.display(), s);
                }
            }
        }
    }
    input
}

fn adapter_failure(rec: CaseRecord, step: Option<usize>, e: AdapterError) -> CaseRecord {
    let (status, reason) = match e {
        AdapterError::Crash(m) => (Status::Crash, m),
        AdapterError::Timeout(m) => (Status::Timeout, m),
    };
    let mut rec = rec;
    rec.status = status;
    rec.step = step;
    rec.reason = match step {
        Some(s) => format!("step {s}: {reason}"),
        None => reason,
    };
    rec
}

/// Runs one case against an adapter whose `hello` declared `features`, and judges it.
///
/// The result is pass, fail, skip, crash, timeout or harness_error; expectations are applied
/// afterwards ([`apply_expectations`]). The sandbox is made under `tmp` (the system temp dir
/// when `None`) and removed afterwards unless `keep_failed` and the case did not pass.
pub fn run_case(
    adapter: &mut dyn Adapter,
    features: &[String],
    case: &Case,
    tmp: Option<&Path>,
    keep_failed: bool,
) -> CaseRecord {
    let started = Instant::now();
    let mut rec = {
        let missing = missing_features(case, features);
        if !missing.is_empty() {
            return CaseRecord::new(
                case,
                Status::Skip,
                format!("requires {} (not declared)", missing.join(", ")),
            );
        }
        let mut sb = match Sandbox::new(tmp) {
            Ok(sb) => sb,
            Err(e) => return CaseRecord::new(case, Status::HarnessError, e),
        };
        let mut rec = run_in(adapter, case, &mut sb);
        if keep_failed && rec.status != Status::Pass {
            sb.keep();
        }
        let stderr = adapter.take_stderr();
        if !stderr.trim().is_empty() {
            rec.stderr = Some(stderr);
        }
        redact(&mut rec, sb.dir(), sb.root());
        rec
    };
    rec.duration_ms = started.elapsed().as_millis() as u64;
    rec
}

/// Replaces the case's temporary paths by `<sandbox>` and `<case>` in everything recorded, so
/// that reports are the same from run to run and name no machine's directories.
fn redact(rec: &mut CaseRecord, sandbox: &Path, case_dir: &Path) {
    let pairs = [
        (sandbox.display().to_string(), "<sandbox>"),
        (case_dir.display().to_string(), "<case>"),
    ];
    let fix = |s: &str| {
        let mut out = s.to_string();
        for (from, to) in &pairs {
            out = out.replace(from.as_str(), to);
        }
        out
    };
    fn fix_value(v: &mut Value, fix: &dyn Fn(&str) -> String) {
        match v {
            Value::String(s) => *s = fix(s),
            Value::Array(a) => a.iter_mut().for_each(|x| fix_value(x, fix)),
            Value::Object(m) => m.values_mut().for_each(|x| fix_value(x, fix)),
            _ => {}
        }
    }
    rec.reason = fix(&rec.reason);
    for v in [&mut rec.expected, &mut rec.actual].into_iter().flatten() {
        fix_value(v, &fix);
    }
    if let Some(d) = rec.diff.as_mut() {
        *d = fix(d);
    }
    if let Some(e) = rec.stderr.as_mut() {
        *e = fix(e);
    }
}

fn run_in(adapter: &mut dyn Adapter, case: &Case, sb: &mut Sandbox) -> CaseRecord {
    let pass = CaseRecord::new(case, Status::Pass, "");
    if let Err(e) = sb.build(&case.files) {
        return CaseRecord::new(
            case,
            Status::HarnessError,
            format!("cannot build the files: {e}"),
        );
    }
    let dir = sb.dir().to_path_buf();
    if let Err(e) = adapter.case_start(&case.id, &dir) {
        return adapter_failure(pass, None, e);
    }
    let mut seq = 0;
    let mut failure: Option<CaseRecord> = None;
    for (i, step) in case.steps.iter().enumerate() {
        let n = i + 1;
        let label = format!("step {n} ({})", step.label());
        let outcome = match step {
            Step::Call {
                tool,
                input,
                expect,
            } => {
                seq += 1;
                match adapter.call(seq, tool, &absolutize(input, &dir)) {
                    Err(e) => return adapter_failure(pass, Some(n), e),
                    Ok(reply) => check::check_call(&label, expect.as_ref(), &reply)
                        .map_err(|f| Box::new(pass.clone().failed(Some(n), *f))),
                }
            }
            Step::Modify {
                path,
                form,
                keep_mtime,
            } => harness(case, n, &label, sb.modify(path, form, *keep_mtime)),
            Step::Touch { path, shift_ns } => harness(case, n, &label, sb.touch(path, *shift_ns)),
            Step::Chmod { path, mode } => harness(case, n, &label, sb.chmod(path, *mode)),
            Step::Remove { path } => harness(case, n, &label, sb.remove(path)),
        };
        if let Err(rec) = outcome {
            failure = Some(*rec);
            break;
        }
    }
    if let Err(e) = adapter.case_end() {
        return failure.unwrap_or_else(|| adapter_failure(pass.clone(), None, e));
    }
    if let Some(f) = failure {
        let mut f = f;
        if f.status == Status::Pass {
            f.status = Status::Fail;
        }
        return f;
    }
    let mut problems = check::check_tree(case, sb).into_iter();
    match problems.next() {
        None => pass,
        Some(first) => {
            let mut rec = pass.failed(None, first);
            rec.status = Status::Fail;
            rec.more = problems.map(|p| p.reason).collect();
            rec
        }
    }
}

fn harness(
    case: &Case,
    n: usize,
    label: &str,
    r: Result<(), String>,
) -> Result<(), Box<CaseRecord>> {
    r.map_err(|e| {
        let mut rec = CaseRecord::new(case, Status::HarnessError, format!("{label}: {e}"));
        rec.step = Some(n);
        Box::new(rec)
    })
}

// ---- selection ---------------------------------------------------------------------------------

/// Glob match on a case id: `*` matches any run of characters (slashes included), `?` one
/// character; a pattern without a slash or wildcard also matches a whole area (`eol` ≡ `eol/*`).
pub fn glob_match(pattern: &str, id: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        let (mut pi, mut si) = (0, 0);
        let (mut star, mut mark) = (None, 0);
        while si < s.len() {
            if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
                pi += 1;
                si += 1;
            } else if pi < p.len() && p[pi] == '*' {
                star = Some(pi);
                mark = si;
                pi += 1;
            } else if let Some(st) = star {
                pi = st + 1;
                mark += 1;
                si = mark;
            } else {
                return false;
            }
        }
        p[pi..].iter().all(|c| *c == '*')
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = id.chars().collect();
    if go(&p, &s) {
        return true;
    }
    !pattern.contains(['/', '*', '?']) && id.split('/').next() == Some(pattern)
}

/// Whether a case is selected by `--only` patterns (all when empty) and `--level` (that level
/// and below).
pub fn selected(id: &str, level: Option<Level>, only: &[String], max_level: Option<Level>) -> bool {
    let by_glob = only.is_empty() || only.iter().any(|p| glob_match(p, id));
    let by_level = match (max_level, level) {
        (Some(max), Some(l)) => l <= max,
        _ => true,
    };
    by_glob && by_level
}

// ---- expectations ------------------------------------------------------------------------------

/// The implementation's list of known failures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// Listed case ids.
    pub ids: BTreeSet<String>,
}

impl Expectations {
    /// Parses the file format: one case id per line, `#` starts a comment, blank lines ignored.
    /// Returns the problems (`line N: ...`) when a line is not a case id.
    pub fn parse(text: &str) -> Result<Expectations, Vec<String>> {
        let mut ids = BTreeSet::new();
        let mut errors = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let ok = line.split('/').count() == 2
                && !line.contains(char::is_whitespace)
                && line.split('/').all(|p| !p.is_empty());
            if ok {
                ids.insert(line.to_string());
            } else {
                errors.push(format!(
                    "line {}: '{line}' is not a case id (<area>/<name>)",
                    i + 1
                ));
            }
        }
        if errors.is_empty() {
            Ok(Expectations { ids })
        } else {
            Err(errors)
        }
    }

    /// Turns listed failures into `xfail` and listed passes into `xpass`; skips and harness
    /// errors stay what they are.
    pub fn apply(&self, records: &mut [CaseRecord]) {
        for r in records {
            if !self.ids.contains(&r.id) {
                continue;
            }
            if r.status.is_failure() {
                r.reason = format!("expected failure ({}): {}", r.status, r.reason);
                r.status = Status::Xfail;
            } else if r.status == Status::Pass {
                r.status = Status::Xpass;
                r.reason =
                    "listed in the expectations file but passed: remove it from the list".into();
            }
        }
    }

    /// Listed ids that are not in the corpus (probably typos or retired cases).
    pub fn unknown<'a>(&'a self, known: &BTreeSet<&str>) -> Vec<&'a str> {
        self.ids
            .iter()
            .map(String::as_str)
            .filter(|id| !known.contains(id))
            .collect()
    }
}

/// Applies an expectations list (convenience for callers holding an `Option`).
pub fn apply_expectations(records: &mut [CaseRecord], e: Option<&Expectations>) {
    if let Some(e) = e {
        e.apply(records);
    }
}

// ---- verdicts ----------------------------------------------------------------------------------

/// Counts per status.
pub fn totals(records: &[CaseRecord]) -> BTreeMap<Status, usize> {
    let mut t = BTreeMap::new();
    for s in Status::ALL {
        t.insert(s, 0);
    }
    for r in records {
        *t.entry(r.status).or_insert(0) += 1;
    }
    t
}

/// The exit code of a run: 1 when a core case fails, crashes or times out, or anything is an
/// xpass or a harness error; else 0.
pub fn exit_code(records: &[CaseRecord]) -> u8 {
    let bad = records.iter().any(|r| {
        (r.status.is_failure() && r.level() == Some(Level::Core))
            || matches!(r.status, Status::Xpass | Status::HarnessError)
    });
    u8::from(bad)
}

/// For each certifying level (core, extended): whether it is reached. A level is reached when
/// the run covered every case of that level and below (`complete`) and all of them passed — no
/// skip, no xfail, no failure, no broken case.
pub fn certification(
    records: &[CaseRecord],
    complete: impl Fn(Level) -> bool,
) -> Vec<(Level, bool)> {
    [Level::Core, Level::Extended]
        .into_iter()
        .map(|level| {
            let relevant = records
                .iter()
                .filter(|r| r.level().is_none_or(|l| l <= level));
            let all_pass = relevant.clone().all(|r| r.status == Status::Pass);
            (level, complete(level) && all_pass && relevant.count() > 0)
        })
        .collect()
}

/// The highest certified level, if any (levels build on each other).
pub fn highest(cert: &[(Level, bool)]) -> Option<Level> {
    let mut best = None;
    for (l, ok) in cert {
        if *ok {
            best = Some(*l);
        } else {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, level: &str, status: Status) -> CaseRecord {
        CaseRecord {
            id: id.into(),
            area: id.split('/').next().unwrap().into(),
            level: Some(level.into()),
            status,
            reason: "r".into(),
            duration_ms: 0,
            step: None,
            expected: None,
            actual: None,
            diff: None,
            more: vec![],
            stderr: None,
        }
    }

    #[test]
    fn expectations_make_xfail_and_xpass() {
        let e = Expectations::parse(
            "# known\n\nedit/a   # we normalise\nedit/b\nedit/c\nedit/d\nedit/e\n",
        )
        .unwrap();
        let mut rs = vec![
            rec("edit/a", "core", Status::Fail),
            rec("edit/b", "core", Status::Pass),
            rec("edit/c", "core", Status::Crash),
            rec("edit/d", "core", Status::Skip),
            rec("edit/e", "core", Status::Timeout),
            rec("edit/f", "core", Status::Pass),
        ];
        e.apply(&mut rs);
        let st: Vec<Status> = rs.iter().map(|r| r.status).collect();
        assert_eq!(
            st,
            [
                Status::Xfail,
                Status::Xpass,
                Status::Xfail,
                Status::Skip,
                Status::Xfail,
                Status::Pass
            ]
        );
        assert!(rs[0].reason.starts_with("expected failure (fail)"));
        // An xpass fails the run; xfails alone do not.
        assert_eq!(exit_code(&rs), 1);
        assert_eq!(exit_code(&[rs[0].clone(), rs[2].clone(), rs[5].clone()]), 0);
        // ...but an xfail blocks certification.
        let cert = certification(&[rs[0].clone(), rs[5].clone()], |_| true);
        assert_eq!(cert[0], (Level::Core, false));

        let errs = Expectations::parse("edit/a\nnot an id\nx/y/z\n").unwrap_err();
        assert_eq!(errs.len(), 2);
        assert!(errs[0].starts_with("line 2"));
        let known: BTreeSet<&str> = ["edit/a"].into_iter().collect();
        assert_eq!(
            e.unknown(&known),
            vec!["edit/b", "edit/c", "edit/d", "edit/e"]
        );
    }

    #[test]
    fn exit_codes_and_certification() {
        let ok = vec![
            rec("a/x", "core", Status::Pass),
            rec("a/y", "extended", Status::Pass),
        ];
        assert_eq!(exit_code(&ok), 0);
        assert_eq!(
            highest(&certification(&ok, |_| true)),
            Some(Level::Extended)
        );
        assert_eq!(
            highest(&certification(&ok, |l| l == Level::Core)),
            Some(Level::Core)
        );

        let ext_fail = vec![
            rec("a/x", "core", Status::Pass),
            rec("a/y", "extended", Status::Fail),
        ];
        assert_eq!(exit_code(&ext_fail), 0, "only core failures fail the run");
        assert_eq!(
            highest(&certification(&ext_fail, |_| true)),
            Some(Level::Core)
        );

        let idef = vec![
            rec("a/x", "core", Status::Pass),
            rec("a/z", "implementation-defined", Status::Fail),
        ];
        assert_eq!(exit_code(&idef), 0);
        assert_eq!(
            highest(&certification(&idef, |_| true)),
            Some(Level::Extended)
        );

        let skip = vec![rec("a/x", "core", Status::Skip)];
        assert_eq!(exit_code(&skip), 0);
        assert_eq!(highest(&certification(&skip, |_| true)), None);

        assert_eq!(exit_code(&[rec("a/x", "core", Status::Crash)]), 1);
        assert_eq!(
            exit_code(&[rec("a/x", "extended", Status::HarnessError)]),
            1
        );
    }

    #[test]
    fn globs_and_levels() {
        assert!(glob_match("eol/*", "eol/crlf"));
        assert!(glob_match("eol", "eol/crlf"));
        assert!(!glob_match("eol", "eolx/crlf"));
        assert!(glob_match("*crlf*", "eol/a-crlf-b"));
        assert!(glob_match("e?l/c*f", "eol/crlf"));
        assert!(!glob_match("eol/c", "eol/crlf"));
        assert!(selected("a/b", Some(Level::Core), &[], Some(Level::Core)));
        assert!(!selected(
            "a/b",
            Some(Level::Extended),
            &[],
            Some(Level::Core)
        ));
        assert!(!selected("a/b", Some(Level::Core), &["c/*".into()], None));
    }

    #[test]
    fn relative_paths_are_joined_verbatim() {
        let v = serde_json::json!({"file_path": "./a//b.txt", "path": "/dev/zero", "notebook_path": "", "old_string": "x"});
        let out = absolutize(&v, Path::new("/s"));
        assert_eq!(out["file_path"], "/s/./a//b.txt");
        assert_eq!(out["path"], "/dev/zero");
        assert_eq!(out["notebook_path"], "");
        assert_eq!(out["old_string"], "x");
        assert_eq!(
            absolutize(&serde_json::json!([1]), Path::new("/s")),
            serde_json::json!([1])
        );
    }

    /// An adapter that answers from a script: one entry per call.
    struct Scripted {
        replies: Vec<Result<crate::adapter::Reply, AdapterError>>,
        started: usize,
    }

    impl Adapter for Scripted {
        fn hello(&mut self) -> Result<crate::adapter::Hello, AdapterError> {
            unreachable!()
        }
        fn case_start(&mut self, _id: &str, _sandbox: &Path) -> Result<(), AdapterError> {
            self.started += 1;
            Ok(())
        }
        fn call(
            &mut self,
            _seq: u64,
            _tool: &str,
            _input: &Value,
        ) -> Result<crate::adapter::Reply, AdapterError> {
            if self.replies.is_empty() {
                return Err(AdapterError::Crash("script exhausted".into()));
            }
            self.replies.remove(0)
        }
        fn case_end(&mut self) -> Result<(), AdapterError> {
            Ok(())
        }
    }

    fn two_call_case() -> Case {
        let text = "id: edit/t\ntitle: t\nspec: [X-1]\nlevel: core\nrequires: [edit]\nsince: \"0.1.0\"\n\
                    files:\n  a.txt: {text: \"a\"}\nsteps:\n  - call: {tool: Read, input: {file_path: a.txt}}\n  \
                    - call: {tool: Edit, input: {file_path: a.txt, old_string: a, new_string: b}}\n    \
                    expect: {error: ambiguous}\n";
        crate::load::parse_case("t", "edit/t.yaml", text.as_bytes()).unwrap()
    }

    #[test]
    fn run_case_statuses() {
        use crate::adapter::Reply;
        let case = two_call_case();
        let features = vec!["edit".to_string()];
        let run = |replies| {
            let mut a = Scripted {
                replies,
                started: 0,
            };
            run_case(&mut a, &features, &case, None, false)
        };
        let ok = || Ok(Reply::Ok(serde_json::json!({})));
        let amb = || Ok(Reply::Err(serde_json::json!({"code": "ambiguous"})));

        assert_eq!(run(vec![ok(), amb()]).status, Status::Pass);

        let r = run(vec![ok(), ok()]);
        assert_eq!((r.status, r.step), (Status::Fail, Some(2)));
        assert!(
            r.reason.contains("expected error ambiguous, got success"),
            "{}",
            r.reason
        );

        let r = run(vec![Err(AdapterError::Crash("exited".into()))]);
        assert_eq!((r.status, r.step), (Status::Crash, Some(1)));
        let r = run(vec![ok(), Err(AdapterError::Timeout("slow".into()))]);
        assert_eq!((r.status, r.step), (Status::Timeout, Some(2)));

        let r = run_case(
            &mut Scripted {
                replies: vec![],
                started: 0,
            },
            &[],
            &case,
            None,
            false,
        );
        assert_eq!(r.status, Status::Skip);
        assert!(r.reason.contains("edit"));
    }
}
