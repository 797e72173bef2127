//! Dialects: other agents' edit formats, read into the terms of editref's own tools.
//!
//! Models are trained against more than one way of describing a file change. A dialect parses
//! one such format and hands the result to the same core every tool uses, so the format is new
//! but the matching, the text model and the write path are not (SPEC §15). Parsers here are
//! pure — text in, values out — so they can be fuzzed on their own.

pub mod search_replace;
