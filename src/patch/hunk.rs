//! The patch as a value: [`Patch`] (the unified diff text, and where each hunk's lines are in
//! it), the owned [`Hunk`], and the `structuredPatch` JSON built from them.
//!
//! The diff text is the only copy of the lines and the hunks are byte ranges into it, so an edit
//! with many hits does not turn every line into its own string; owned hunks and JSON are made
//! on demand. How a patch is computed is elsewhere ([`Patch::new`] is in `udiff`): spans to
//! changes in `region`, changes to hunks and diff text in `udiff`. This file imports neither.

use serde::{Deserialize, Serialize};

/// One hunk, in the shape agents already know (field names as Claude Code's results).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// 1-based first old line.
    pub old_start: usize,
    /// Old lines in the hunk (context and removed).
    pub old_lines: usize,
    /// 1-based first new line.
    pub new_start: usize,
    /// New lines in the hunk (context and added).
    pub new_lines: usize,
    /// Lines prefixed with ' ', '-' or '+', without their line break; a marker line follows a
    /// line that lacks a final newline.
    pub lines: Vec<String>,
}

/// The patch of an edit (EDIT-6): the unified diff text, and where each hunk's lines are in
/// it.
///
/// The diff is the only copy of the lines: `structuredPatch` is a view of it. An edit with
/// many hits (a replace_all of a common token) has a patch as large as the file, and building
/// each line as its own string first costs more than the edit itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patch {
    pub(super) diff: String,
    pub(super) hunks: Vec<HunkAt>,
}

/// A hunk's numbers and the byte range of its lines in [`Patch::diff`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct HunkAt {
    pub(super) old_start: usize,
    pub(super) old_lines: usize,
    pub(super) new_start: usize,
    pub(super) new_lines: usize,
    /// Lines of the hunk in the diff, each ended by `\n` (header excluded).
    pub(super) lines: std::ops::Range<usize>,
}

impl Patch {
    /// The unified diff (`--- a/path`, `+++ b/path`, hunks); empty when nothing changed.
    pub fn diff(&self) -> &str {
        &self.diff
    }

    /// The unified diff, without a copy.
    pub fn into_diff(self) -> String {
        self.diff
    }

    /// Whether the patch has no hunk (the text did not change).
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// The hunks as owned values (tests, fuzzing, library callers).
    pub fn hunks(&self) -> Vec<Hunk> {
        self.hunks
            .iter()
            .map(|h| Hunk {
                old_start: h.old_start,
                old_lines: h.old_lines,
                new_start: h.new_start,
                new_lines: h.new_lines,
                lines: self.lines_of(h).map(str::to_string).collect(),
            })
            .collect()
    }

    /// The hunks as the `structuredPatch` JSON value: the same as
    /// `serde_json::to_value(self.hunks())` without the intermediate strings.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Map, Value};
        Value::Array(
            self.hunks
                .iter()
                .map(|h| {
                    let mut m = Map::new();
                    m.insert("oldStart".into(), h.old_start.into());
                    m.insert("oldLines".into(), h.old_lines.into());
                    m.insert("newStart".into(), h.new_start.into());
                    m.insert("newLines".into(), h.new_lines.into());
                    m.insert(
                        "lines".into(),
                        Value::Array(
                            self.lines_of(h)
                                .map(|l| Value::String(l.to_string()))
                                .collect(),
                        ),
                    );
                    Value::Object(m)
                })
                .collect(),
        )
    }

    fn lines_of<'a>(&'a self, h: &HunkAt) -> impl Iterator<Item = &'a str> + 'a {
        // Every line of a hunk's body ends with `\n`.
        let body = &self.diff[h.lines.clone()];
        let mut start = 0;
        memchr::memchr_iter(b'\n', body.as_bytes()).map(move |nl| {
            let line = &body[start..nl];
            start = nl + 1;
            line
        })
    }
}
