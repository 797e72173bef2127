//! Running one case: build its tree, send its calls to the adapter, perform its harness
//! actions, judge every reply and the final tree, and return the [`CaseRecord`].
//!
//! This is the one place that talks to the implementation under test, so it also owns what the
//! implementation sees (inputs with paths joined to the sandbox) and what a report may show of
//! the run (temporary paths redacted). Statuses from the expectations file are applied
//! afterwards, by the caller, so that a case runs the same whether or not it is listed.

use super::{About, CaseRecord, Status};
use crate::adapter::{Adapter, AdapterError, Reply};
use crate::case::{Case, Class, Expect, Level, Step};
use crate::check::{self, CallCheck, Failure, ReadFormat};
use crate::sandbox::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The features a case needs and the implementation does not declare.
pub fn missing_features(case: &Case, declared: &[String]) -> Vec<String> {
    case.requires
        .iter()
        .filter(|f| !declared.contains(f))
        .cloned()
        .collect()
}

/// The input fields that hold the path of the file a call works on: the tools' own, and
/// OpenCode's `filePath` (ALIAS-1; the other agents' spelling is `path`).
pub const PATH_FIELDS: [&str; 4] = ["file_path", "notebook_path", "path", "filePath"];

/// The input as sent: relative values of the `PATH_FIELDS` (top-level strings that are not
/// empty, absolute or `~`-paths) are joined to the sandbox by plain string concatenation, so
/// spellings like `./a.txt` or `d//a.txt` reach the implementation intact.
pub fn absolutize(input: &Value, sandbox: &Path) -> Value {
    let mut input = input.clone();
    if let Value::Object(map) = &mut input {
        for key in PATH_FIELDS {
            if let Some(Value::String(s)) = map.get_mut(key) {
                if !s.is_empty() && !s.starts_with('/') && !s.starts_with('~') {
                    *s = format!("{}/{}", sandbox.display(), s);
                }
            }
        }
    }
    input
}

/// The words of a reply that says the tool does not exist, as adapters and servers put it.
const NO_SUCH_TOOL: [&str; 4] = [
    "unknown tool",
    "unsupported tool",
    "no such tool",
    "tool not found",
];

/// A harness error when the implementation answers a call of a tool it declared with "there is
/// no such tool" (the protocol's code `unknown_tool`, or those words in the message): its
/// declaration is wrong, and the run has no verdict.
fn not_offered(case: &Case, step: usize, tool: &str, reply: &Reply) -> Option<CaseRecord> {
    let Reply::Err(e) = reply else {
        return None;
    };
    let code = e.get("code").and_then(Value::as_str).unwrap_or("");
    let message = e
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    if code != "unknown_tool" && !NO_SUCH_TOOL.iter().any(|w| message.contains(w)) {
        return None;
    }
    let feature = crate::surface::feature_of_tool(tool).unwrap_or(tool);
    let mut rec = CaseRecord::new(
        case,
        Status::HarnessError,
        format!(
            "step {step} ({tool}): the implementation declares {feature} but answered that it has no tool {tool} ({}); declare only the tools it offers",
            reply.to_json()["error"]
        ),
    );
    rec.step = Some(step);
    rec.tool_not_offered = Some(tool.to_string());
    Some(rec)
}

/// The record of a case the adapter crashed or timed out in, at `step` when it was a step.
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

/// Where a case's sandbox is made, and whether it is kept after a case that did not pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Keep {
    /// Removed after every case.
    #[default]
    Nothing,
    /// Kept where it was made (under the temp directory) when the case did not pass.
    InPlace,
    /// Made at `DIR/<case id>` (replacing what an earlier run kept there) and kept when the
    /// case did not pass, so a kept tree is found by the case's name.
    Named(PathBuf),
}

/// How to run one case, beyond the adapter and the case itself.
#[derive(Debug, Clone, Default)]
pub struct CaseOptions {
    /// The directory sandboxes are made in (the system temp dir when `None`); not used for
    /// [`Keep::Named`].
    pub tmp: Option<PathBuf>,
    /// Which sandboxes are kept, and where.
    pub keep: Keep,
    /// The form the implementation declared for Read's line numbers (`read_format`).
    pub read_format: ReadFormat,
}

/// Runs one case against an adapter whose `hello` declared `features`, and judges it.
///
/// The result is pass, fail, differs, skip, crash, timeout or harness_error; expectations are
/// applied afterwards ([`apply_expectations`](super::apply_expectations)). The sandbox is made
/// under `tmp` (the system temp dir when `None`) and removed afterwards unless `keep_failed`
/// and the case did not pass. [`run_case_with`] takes the full set of options.
pub fn run_case(
    adapter: &mut dyn Adapter,
    features: &[String],
    case: &Case,
    tmp: Option<&Path>,
    keep_failed: bool,
) -> CaseRecord {
    let opts = CaseOptions {
        tmp: tmp.map(Path::to_path_buf),
        keep: if keep_failed {
            Keep::InPlace
        } else {
            Keep::Nothing
        },
        read_format: ReadFormat::Tab,
    };
    run_case_with(adapter, features, case, &opts)
}

/// [`run_case`] with its options: where the sandbox goes and which are kept.
///
/// The case's own `timeout`, when the corpus sets one, caps the adapter's per-call timeout for
/// this case only. An implementation-defined case whose expectation did not hold ends as
/// `differs`, never `fail`; a record that is not a pass or a skip carries the case's title,
/// rules and files ([`About`](super::About)).
pub fn run_case_with(
    adapter: &mut dyn Adapter,
    features: &[String],
    case: &Case,
    opts: &CaseOptions,
) -> CaseRecord {
    let started = Instant::now();
    let missing = missing_features(case, features);
    if !missing.is_empty() {
        let mut rec = CaseRecord::new(
            case,
            Status::Skip,
            format!("requires {} (not declared)", missing.join(", ")),
        );
        rec.not_declared = missing;
        return rec;
    }
    let made = match &opts.keep {
        Keep::Named(dir) => Sandbox::named(&dir.join(&case.id)),
        _ => Sandbox::new(opts.tmp.as_deref()),
    };
    let mut sb = match made {
        Ok(sb) => sb,
        Err(e) => return with_about(CaseRecord::new(case, Status::HarnessError, e), case),
    };
    adapter.set_case_timeout(case.timeout);
    let mut rec = run_in(adapter, case, &mut sb, opts.read_format, features);
    adapter.set_case_timeout(None);
    if case.level == Level::ImplementationDefined && rec.status == Status::Fail {
        rec.status = Status::Differs;
    }
    if opts.keep != Keep::Nothing && rec.status != Status::Pass {
        sb.keep();
    }
    let stderr = adapter.take_stderr();
    if !stderr.trim().is_empty() {
        rec.stderr = Some(stderr);
    }
    redact(&mut rec, sb.dir(), sb.root());
    rec.duration_ms = started.elapsed().as_millis() as u64;
    with_about(rec, case)
}

/// How many times longer every limit of the adapter is when a case that timed out runs again.
///
/// Five: the first attempt ran beside `--jobs` others on a machine that may be busy besides;
/// the second runs alone, so a tool that answers at all, even several times slower than usual,
/// answers within it, while a tool that hangs costs five limits more, not an unbounded wait.
pub const RERUN_PATIENCE: u32 = 5;

/// Runs `case` a second time after its first attempt, `first`, timed out: with every limit of
/// the adapter [`RERUN_PATIENCE`] times longer, the first attempt's reason kept in
/// [`CaseRecord::rerun`]. The caller runs it alone (no other case at the same time), so that
/// `timeout` means the tool did not answer even then, not that the machine was busy.
pub fn rerun_after_timeout(
    adapter: &mut dyn Adapter,
    features: &[String],
    case: &Case,
    opts: &CaseOptions,
    first: &CaseRecord,
) -> CaseRecord {
    adapter.set_patience(RERUN_PATIENCE);
    let mut rec = run_case_with(adapter, features, case, opts);
    adapter.set_patience(1);
    if rec.status == Status::Timeout {
        rec.reason = format!(
            "{} (run again alone with {RERUN_PATIENCE}× the limits after the first attempt's {})",
            rec.reason, first.reason
        );
    }
    rec.rerun = Some(first.reason.clone());
    rec
}

/// The record with the case's details when it is one a reader will look at.
fn with_about(mut rec: CaseRecord, case: &Case) -> CaseRecord {
    if rec.status.needs_attention() {
        rec.about = Some(About::of(case));
    }
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

/// Runs the steps of `case` in a built sandbox and judges the final tree.
///
/// A reply that does not hold does not end the case: the remaining steps run and the final
/// tree is judged, so the record names the class of every check that failed (a Read shown in
/// another form does not hide whether the edit after it kept the data). The first problem is
/// the record's reason and evidence, the others follow in `more`. Only a crash, a timeout or a
/// harness action that cannot be done stops the steps; after an earlier failure it is noted,
/// and the case stays a `fail`.
fn run_in(
    adapter: &mut dyn Adapter,
    case: &Case,
    sb: &mut Sandbox,
    read_format: ReadFormat,
    features: &[String],
) -> CaseRecord {
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
    let mut problems: Vec<(Option<usize>, Failure)> = Vec::new();
    // Whether the tool refused a call the case expects to succeed.
    let mut refused = false;
    let mut cut_short: Option<String> = None;
    for (i, step) in case.steps.iter().enumerate() {
        let n = i + 1;
        let label = format!("step {n} ({})", step.label());
        let done = match step {
            Step::Call {
                tool,
                input,
                expect,
                class,
            } => {
                seq += 1;
                match adapter.call(seq, tool, &absolutize(input, &dir)) {
                    Err(e) if problems.is_empty() => return adapter_failure(pass, Some(n), e),
                    Err(e) => Err(format!("{label}: {e}")),
                    Ok(reply) => {
                        if let Some(rec) = not_offered(case, n, tool, &reply) {
                            let _ = adapter.case_end();
                            return rec;
                        }
                        let call = CallCheck {
                            class: *class,
                            read_format,
                            features: Some(features),
                            ..CallCheck::new(tool, input, expect.as_ref())
                        };
                        let wants_success = !matches!(expect, Some(Expect::Error { .. }));
                        refused |= wants_success && matches!(reply, Reply::Err(_));
                        if let Err(f) = check::check_call(&label, &call, &reply) {
                            problems.push((Some(n), *f));
                        }
                        Ok(())
                    }
                }
            }
            action => sb.act(action),
        };
        if let Err(e) = done {
            if problems.is_empty() {
                let mut rec = CaseRecord::new(case, Status::HarnessError, format!("{label}: {e}"));
                rec.step = Some(n);
                return rec;
            }
            let e = if e.starts_with(&label) {
                e
            } else {
                format!("{label}: {e}")
            };
            cut_short = Some(format!(
                "{e} (after the first failure; later steps not run)"
            ));
            break;
        }
    }
    if let Err(e) = adapter.case_end() {
        if problems.is_empty() {
            return adapter_failure(pass, None, e);
        }
    }
    problems.extend(check::check_tree(case, sb).into_iter().map(|mut f| {
        // A file left as it was is no damage: the tool either said it could not (capability)
        // or said it did (contract).
        if f.untouched {
            f.classes = vec![if refused {
                Class::Capability
            } else {
                Class::Contract
            }];
        }
        (None, f)
    }));
    let mut problems = problems.into_iter();
    let Some((step, first)) = problems.next() else {
        return pass;
    };
    let mut classes = first.classes.clone();
    let mut rec = pass.failed(step, first);
    rec.status = Status::Fail;
    for (_, p) in problems {
        classes.extend(p.classes);
        rec.more.push(p.reason);
    }
    rec.more.extend(cut_short);
    classes.sort();
    classes.dedup();
    rec.failed_classes = classes;
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_joined_verbatim() {
        let v = serde_json::json!({"file_path": "./a//b.txt", "path": "/dev/zero", "notebook_path": "", "old_string": "x", "filePath": "c.txt"});
        let out = absolutize(&v, Path::new("/s"));
        assert_eq!(out["file_path"], "/s/./a//b.txt");
        assert_eq!(out["filePath"], "/s/c.txt");
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

        assert_eq!(r.failed_classes, vec![crate::case::Class::Contract]);

        // A reply that does not hold does not end the case: the later steps are judged too.
        let r = run(vec![amb(), ok()]);
        assert_eq!((r.status, r.step), (Status::Fail, Some(1)));
        assert!(
            r.more[0].starts_with("step 2 (Edit): expected error ambiguous"),
            "{:?}",
            r.more
        );
        // A crash after a failure is noted, and the case stays a fail.
        let r = run(vec![amb(), Err(AdapterError::Crash("exited".into()))]);
        assert_eq!((r.status, r.step), (Status::Fail, Some(1)));
        assert!(
            r.more[0].contains("step 2 (Edit): crash: exited"),
            "{:?}",
            r.more
        );

        let r = run(vec![Err(AdapterError::Crash("exited".into()))]);
        assert_eq!((r.status, r.step), (Status::Crash, Some(1)));
        assert!(
            r.failed_classes.is_empty(),
            "a crash is no verdict on any class"
        );
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

    /// A case whose Edit must change `a.txt` from "a" to "b".
    fn edit_case() -> Case {
        let text =
            "id: edit/t\ntitle: t\nspec: [X-1]\nlevel: core\nrequires: [edit]\nsince: \"0.1.0\"\n\
                    files:\n  a.txt: {text: \"a\"}\nsteps:\n  \
                    - call: {tool: Edit, input: {file_path: a.txt, old_string: a, new_string: b}}\n\
                    expect_files:\n  a.txt: {text: \"b\"}\n";
        crate::load::parse_case("t", "edit/t.yaml", text.as_bytes()).unwrap()
    }

    #[test]
    fn a_file_left_as_it_was_is_no_damage() {
        use crate::adapter::Reply;
        use crate::case::Class;
        let case = edit_case();
        let features = vec!["edit".to_string()];
        let run = |reply: Reply| {
            let mut a = Scripted {
                replies: vec![Ok(reply)],
                started: 0,
            };
            run_case(&mut a, &features, &case, None, false)
        };
        // Refused, and the file is as it was: capability, never data.
        let r = run(Reply::Err(
            serde_json::json!({"code": "encoding", "message": "m"}),
        ));
        assert_eq!(r.status, Status::Fail);
        assert_eq!(r.failed_classes, vec![Class::Capability], "{r:?}");
        // "Done", and the file is as it was: the success did nothing — contract.
        let r = run(Reply::Ok(serde_json::json!({})));
        assert_eq!(r.failed_classes, vec![Class::Contract], "{r:?}");
    }

    #[test]
    fn a_declared_tool_answered_as_unknown_is_a_harness_error() {
        use crate::adapter::Reply;
        let case = edit_case();
        let features = vec!["edit".to_string()];
        for error in [
            serde_json::json!({"code": "unknown_tool", "message": "no"}),
            serde_json::json!({"code": "invalid_input", "message": "Unknown tool: Edit"}),
        ] {
            let mut a = Scripted {
                replies: vec![Ok(Reply::Err(error))],
                started: 0,
            };
            let r = run_case(&mut a, &features, &case, None, false);
            assert_eq!(r.status, Status::HarnessError);
            assert_eq!(r.tool_not_offered.as_deref(), Some("Edit"));
            assert!(
                r.reason
                    .contains("declares edit but answered that it has no tool Edit"),
                "{}",
                r.reason
            );
        }
    }
}
