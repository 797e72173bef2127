//! Dialects (§15): other agents' edit formats as thin front ends over the same tools.
//!
//! A dialect parses its own format and translates it into the typed inputs of the tools (or,
//! where its addressing differs, into replaced spans opened and written the way the tools do
//! it — `tools::open`, `Session::write_file`, `Session::write_files`). It never has a matcher,
//! renderer or write path of its own, so it inherits every TEXT, MATCH, SESSION, DISK and PATH
//! guarantee unchanged.
//!
//! - `text_editor.rs` — Anthropic's text editor tool (`str_replace_based_edit_tool`);
//! - `stage.rs` — the files of a multi-file call, staged and then written as one unit.

pub mod stage;
pub mod text_editor;
