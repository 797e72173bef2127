//! Judging: a call's reply against its `expect`, and the final tree against `expect_files`, the
//! harness-known state and the residue rule.
//!
//! Every check returns a [`Failure`] that says what was expected next to what happened, in a
//! form a person can read in a report: JSON values for replies, escaped text plus hex for bytes,
//! and a short line diff when both sides are text.
//!
//! The checks are split by what they judge, since each has rules of its own: `reply` holds the
//! subset rule for replies, `tree` the walk over the final tree and the residue rule, `entry`
//! the checks of one file, and `evidence` how bytes and entries are shown, which all of them
//! share, and `read_form` how Read's line prefixes are compared when a tool declared a form
//! other than the spec's. The public items are re-exported here.

mod entry;
mod evidence;
pub mod forms;
mod read_form;
mod reply;
mod tree;

pub use evidence::{bytes_json, escape_bytes, short_diff, shows_whole, window, window_is_whole};
pub use read_form::{actual_for, comparable, expected_for, ReadFormat};
pub use reply::{check_call, expect_json, json_eq, pruned, subset, CallCheck, Mismatch};
pub use tree::check_tree;

use crate::class::Class;
use serde_json::Value;

/// Why a case did not pass, with the evidence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Failure {
    /// One line for summaries.
    pub reason: String,
    /// What the case required (a JSON value; bytes as `{len, text, hex}`).
    pub expected: Option<Value>,
    /// What happened, in the same shape.
    pub actual: Option<Value>,
    /// A short unified diff of the two texts, when both are text.
    pub diff: Option<String>,
    /// The classes of what did not hold (data, capability, contract, presentation), sorted;
    /// the final tree's checks are data unless the case says otherwise.
    pub classes: Vec<Class>,
    /// A final-tree failure whose entry is exactly as it was before the case's calls: the tool
    /// did not do what the case expects, and damaged nothing. The runner classes it capability
    /// (the tool refused a call) or contract (it claimed a success that did nothing).
    pub untouched: bool,
}
