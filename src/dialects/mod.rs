//! Dialects: other agents' edit formats, parsed here and applied through the same core as the
//! tools (SPEC §15). Each dialect is pure — text in, values out — and never reads or writes files.
pub mod apply_patch;
