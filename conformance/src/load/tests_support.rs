//! Test fixtures shared by the loading modules' tests: one good case that uses every part of
//! the schema, and helpers to parse it (or a broken copy of it) under a fixed file name.
//!
//! The tests of each loading module break this one case in the way that concerns them, so the
//! fixture lives beside them once instead of being copied into each.

use super::{parse_case, LoadError};
use crate::case::Case;

/// A valid case touching every file form, every step kind and both kinds of expectation.
pub(super) const GOOD: &str = r#"id: edit/sample
title: A sample
spec: [EDIT-1]
level: core
requires: [read, edit]
since: "0.1.0"
files:
  a.txt: {text: "one\r\ntwo\n", mode: "0644"}
  b.bin: {bytes_hex: "FF fe 00"}
  l: {symlink: "a.txt"}
  ../outside.txt: {text: "x", encoding: utf-16le, bom: false}
steps:
  - call: {tool: Read, input: {file_path: a.txt}}
  - call:
      tool: Edit
      input: {file_path: a.txt, old_string: "one", new_string: "1"}
    expect: {ok: true, output: {replacements: 1}}
  - modify: {path: a.txt, text: "z", keep_mtime: true}
  - touch: {path: a.txt, mtime: "-5s"}
  - chmod: {path: a.txt, mode: "0444"}
  - call: {tool: Edit, input: {file_path: a.txt, old_string: "z", new_string: "y"}}
    expect: {error: {code: permission_denied}}
  - remove: {path: b.bin}
  - link: {path: l, symlink: "../outside.txt"}
expect_files:
  a.txt: {unchanged: true, mode: "0444"}
  b.bin: {absent: true}
"#;

/// Parses `text` as `cases/edit/sample.yaml`.
pub(super) fn parse(text: &str) -> Result<Case, Vec<LoadError>> {
    parse_case(
        "cases/edit/sample.yaml",
        "edit/sample.yaml",
        text.as_bytes(),
    )
}

/// The first error of a case that must not load.
#[track_caller]
pub(super) fn first_error(text: &str) -> LoadError {
    match parse(text) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.into_iter().next().unwrap(),
    }
}
