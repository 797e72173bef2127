//! Running a case to see what an implementation does, without judging it: every call's answer
//! and the final tree, byte for byte. The differential fuzzer observes the reference and the
//! implementation under test on the same case and compares the two observations.
//!
//! The tree is taken after every step, so that a comparison can tell the step after which the
//! two sides' files first differ, and judge the later steps knowing that. A tree is its entries
//! (bytes, modes, link targets) and which names are one file (hard links, DISK-3): a tool that
//! splits a hard link leaves the same bytes under both names, and only the second part tells.
//!
//! It takes the same way through the sandbox and the adapter as the corpus runner (the tree is
//! built by [`Sandbox::build`], paths are joined by [`absolutize`], harness actions are the
//! sandbox's), so a disagreement found here is one the written finding reproduces.

use crate::adapter::{Adapter, AdapterError, Reply};
use crate::case::{Case, Step};
use crate::run::absolutize;
use crate::sandbox::{Actual, Sandbox};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// One call's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Success, with the output.
    Ok(Value),
    /// Refusal: the error code and the whole error object.
    Err {
        /// `code` of the error object (empty when there was none).
        code: String,
    },
    /// The implementation crashed (exited, answered out of turn).
    Crashed(String),
    /// No answer within the timeout.
    TimedOut(String),
}

/// The tree below the case root (the sandbox directory itself excluded) at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tree {
    /// Every entry, keyed by its root-relative path (`sandbox/a.txt`).
    pub entries: BTreeMap<String, Actual>,
    /// For each name of a regular file that has more than one name in the tree, the first of
    /// its names (in key order); a file with one name is not listed.
    pub twins: BTreeMap<String, String>,
}

/// What one implementation did with one case.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observation {
    /// One answer per call step, in order; shorter when the implementation broke.
    pub answers: Vec<Answer>,
    /// The tree before the first step.
    pub before: Tree,
    /// The tree after each step done, in order (a step the harness could not perform, or
    /// whose call broke the adapter, has none).
    pub trees: Vec<Tree>,
    /// The tree after the last step.
    pub after: Tree,
    /// The harness itself could not do its part (build the tree, perform an action).
    pub harness_error: Option<String>,
}

/// The sandbox's tree now: its entries keyed as strings, and the names that are one file.
fn keyed(sb: &Sandbox) -> Tree {
    use std::os::unix::fs::MetadataExt;
    let mut entries = BTreeMap::new();
    let mut first_of: BTreeMap<(u64, u64), String> = BTreeMap::new();
    let mut names: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    let mut inode_of: Vec<(String, (u64, u64))> = Vec::new();
    for (k, v) in sb.snapshot() {
        let key = k.to_string_lossy().into_owned();
        if matches!(v, Actual::File { .. }) {
            if let Ok(m) = std::fs::symlink_metadata(sb.root().join(&k)) {
                let id = (m.dev(), m.ino());
                first_of.entry(id).or_insert_with(|| key.clone());
                *names.entry(id).or_default() += 1;
                inode_of.push((key.clone(), id));
            }
        }
        entries.insert(key, v);
    }
    let twins = inode_of
        .into_iter()
        .filter(|(_, id)| names[id] > 1)
        .map(|(key, id)| (key, first_of[&id].clone()))
        .collect();
    Tree { entries, twins }
}

/// Runs `case` on `adapter` in a fresh sandbox under `tmp` and records what happened.
pub fn observe(adapter: &mut dyn Adapter, case: &Case, tmp: Option<&Path>) -> Observation {
    let mut obs = Observation::default();
    let mut sb = match Sandbox::new(tmp) {
        Ok(sb) => sb,
        Err(e) => {
            obs.harness_error = Some(e);
            return obs;
        }
    };
    if let Err(e) = sb.build(&case.files) {
        obs.harness_error = Some(format!("cannot build the files: {e}"));
        return obs;
    }
    obs.before = keyed(&sb);
    let dir = sb.dir().to_path_buf();
    if let Err(e) = adapter.case_start(&case.id, &dir) {
        obs.answers.push(broken(e));
        obs.after = keyed(&sb);
        return obs;
    }
    let mut seq = 0;
    for step in &case.steps {
        let done = match step {
            Step::Call { tool, input, .. } => {
                seq += 1;
                match adapter.call(seq, tool, &absolutize(input, &dir)) {
                    Ok(Reply::Ok(out)) => {
                        obs.answers.push(Answer::Ok(out));
                        Ok(())
                    }
                    Ok(Reply::Err(e)) => {
                        let code = e.get("code").and_then(Value::as_str).unwrap_or("");
                        obs.answers.push(Answer::Err {
                            code: code.to_string(),
                        });
                        Ok(())
                    }
                    Err(e) => {
                        obs.answers.push(broken(e));
                        obs.after = keyed(&sb);
                        return obs;
                    }
                }
            }
            action => sb.act(action),
        };
        if let Err(e) = done {
            obs.harness_error = Some(format!("{}: {e}", step.label()));
            break;
        }
        obs.trees.push(keyed(&sb));
    }
    if let Err(e) = adapter.case_end() {
        obs.answers.push(broken(e));
    }
    obs.after = keyed(&sb);
    obs
}

/// The answer of an adapter that broke.
fn broken(e: AdapterError) -> Answer {
    match e {
        AdapterError::Crash(m) => Answer::Crashed(m),
        AdapterError::Timeout(m) => Answer::TimedOut(m),
    }
}
