//! Loading case files: YAML → checked [`Case`](crate::case::Case) values, and finding the corpus
//! on disk or in the binary.
//!
//! Parsing goes through `serde-saphyr`, which never panics on malformed YAML, into raw structs
//! with `deny_unknown_fields`; every raw field carries its source location so that a semantic
//! error ("two content sources", "unknown feature") still names the file, the line and the field.
//! Nothing a case file contains can make the loader panic.
//!
//! The work is split by what is being loaded, because each part of a case file has rules of its
//! own and the rules are easiest to check against the spec one part at a time:
//!
//! - `raw`: the serde shapes of the YAML, nothing else;
//! - `parse`: one file as a whole — the case-level fields, and the order the parts are checked
//!   in ([`parse_case`]);
//! - `forms`: the entries of `files:`, text in its encodings, bytes, links, directories, FIFOs
//!   and modes;
//! - `steps`: tool calls and the harness actions between them;
//! - `expect`: what replies and the final files must be;
//! - `error`: [`LoadError`], the located form every problem takes;
//! - `corpus`: every case of a directory or of the embedded copy ([`load_dir`],
//!   [`load_embedded`]).
//!
//! The public items are re-exported here, so callers name them `load::…` whatever file they
//! live in.

mod corpus;
mod error;
mod expect;
mod forms;
mod parse;
mod raw;
mod steps;
#[cfg(test)]
mod tests_support;

pub use corpus::{embedded_version, load_dir, load_embedded, BrokenCase, Corpus};
pub use error::LoadError;
pub use forms::{decode_hex, encode_text, parse_mode};
pub use parse::{id_from_path, parse_case, sha256_hex};
pub use steps::parse_shift;
