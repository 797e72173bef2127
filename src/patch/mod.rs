//! structuredPatch and unified diff (EDIT-6), computed from the replaced spans.
//!
//! An edit already knows where it changed the file, so the patch never diffs the whole file:
//! each replaced span is widened to whole lines, nearby spans are merged into a region, and a
//! line diff runs over that region only. Context lines come straight from the original text.
//! Cost scales with the size of the edit, not the file.
//!
//! The parts, in the order a patch is made:
//!
//! - `region.rs` — replaced spans → regions of whole lines → changes (the line diff);
//! - `udiff.rs` — [`Patch::new`]: changes → hunks with context, written as unified diff text;
//! - `hunk.rs` — the result: [`Patch`], [`Hunk`] and the `structuredPatch` JSON;
//! - `borrowed.rs` — [`HunkRef`], a hunk serialized from the diff text without a copy.
//!
//! `udiff.rs` uses `region.rs` and `hunk.rs`; neither of them uses it back.

mod borrowed;
mod hunk;
mod region;
#[cfg(test)]
mod tests;
mod udiff;

pub use borrowed::HunkRef;
pub use hunk::{Hunk, Patch};
pub use udiff::{structured_patch, unified_diff, CONTEXT, NO_NEWLINE};
