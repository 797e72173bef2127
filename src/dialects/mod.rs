//! Dialects (§15): other agents' edit formats as thin front ends over the same tools.
//!
//! Models are trained against more than one way of describing a file change. A dialect parses
//! one such format and translates it into the typed inputs of the tools (or, where its
//! addressing differs, into replaced spans opened and written the way the tools do it —
//! `tools::open`, `Session::write_file`, `Session::write_files`). It never has a write path of
//! its own, so it inherits every TEXT, MATCH, SESSION, DISK and PATH guarantee unchanged. The
//! parsers are pure — text in, values out — so they can be fuzzed on their own.
//!
//! - `text_editor.rs` — Anthropic's text editor tool (`str_replace_based_edit_tool`);
//! - `apply_patch/` — Codex's V4A patches: parser, context seeking, applying;
//! - `search_replace/` — Aider's SEARCH/REPLACE blocks: parser, flexible fallback, applying;
//! - `stage.rs` — the files of a multi-file call, staged and then written as one unit.

pub mod apply_patch;
pub mod search_replace;
pub mod stage;
pub mod text_editor;
