//! Adapter protocol v1 of the editref conformance suite (conformance spec §2): the contract
//! between the harness, which drives a case, and an adapter, which runs the edit tool under test.
//!
//! Both sides depend on this crate and on nothing of each other: `editref serve` answers the
//! protocol with the reference implementation, the harness (`editref-conform`) speaks the other
//! side to any program. What lives here is exactly what the two must agree on — the version,
//! the closed feature vocabulary an adapter declares and cases require, the tool names a call
//! may carry, and how a request line is framed and bounded — so that neither can drift from
//! the other.
//!
//! The wire format is JSON lines: one request per line on the adapter's stdin, exactly one
//! reply line per request on its stdout.

#![forbid(unsafe_code)]

use std::io::BufRead;

/// The protocol version both sides speak; a hello with any other version is refused.
pub const PROTOCOL: u64 = 1;

/// The closed feature vocabulary of conformance spec §3 (plus `unicode_escape`, pinned by the
/// conventions). A case may only require these; an adapter declares the subset it implements,
/// and cases needing a feature it lacks are skipped rather than failed.
pub const FEATURES: [&str; 34] = [
    "read",
    "edit",
    "multi_edit",
    "write",
    "notebook_edit",
    "replace_all",
    "dry_run",
    "read_before_write",
    "partial_read",
    "stale_detection",
    "crlf",
    "mixed_eol",
    "utf8_bom",
    "utf16le",
    "utf16be",
    "legacy_encoding",
    "curly_quotes",
    "desanitize",
    "line_prefix_repair",
    "not_found_hint",
    "structured_patch",
    // The result fields of a success (`replacements`, `repairs`, `oldString`, Write's `type`,
    // …) and the structured fields of an error (`count`, `lines`, `edit_index`, …) as SPEC.md
    // §13 defines them: a tool that declares it is held to them; one that does not is judged
    // on whether a call succeeded or was refused, and by the code's family.
    "result_fields",
    "symlink",
    "posix_mode",
    "hard_link",
    "atomic_write",
    "root_confinement",
    "unicode_escape",
    "undo",
    "line_edit",
    "text_editor",
    "param_aliases",
    "apply_patch",
    "search_replace",
];

/// The features of the tools beyond the five (§15 of the behaviour spec): undo and the
/// dialects. An implementation of the five alone declares none of them; each comes with the
/// tool (or, for `param_aliases`, the input spellings) it names.
pub const EXTRA_FEATURES: [&str; 6] = [
    "undo",
    "line_edit",
    "text_editor",
    "param_aliases",
    "apply_patch",
    "search_replace",
];

/// The tools a `call` request may name: the five in the order of the behaviour spec, then
/// undo and the dialects (`str_replace_editor` is the text editor's other name).
pub const TOOLS: [&str; 11] = [
    "Read",
    "Edit",
    "MultiEdit",
    "Write",
    "NotebookEdit",
    "Undo",
    "LineEdit",
    "str_replace_based_edit_tool",
    "str_replace_editor",
    "apply_patch",
    "search_replace",
];

/// Longest request line an adapter must accept. A longer line is answered with an error and
/// skipped, so a hostile or broken peer cannot make either side buffer without bound.
pub const MAX_LINE: usize = 256 * 1024 * 1024;

/// Reads one line into `buf`, keeping at most `MAX_LINE + 1` bytes of it (the rest of an
/// over-long line is consumed and discarded, so the caller can tell it was too long and the
/// stream stays in step). Returns the bytes consumed from `input`; 0 means end of input.
pub fn read_line_bounded(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let room = (MAX_LINE + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        total += used;
        input.consume(used);
        if done {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_counted() {
        let mut input: &[u8] = b"one\ntwo";
        let mut buf = Vec::new();
        assert_eq!(read_line_bounded(&mut input, &mut buf).unwrap(), 4);
        assert_eq!(buf, b"one\n");
        buf.clear();
        assert_eq!(read_line_bounded(&mut input, &mut buf).unwrap(), 3);
        assert_eq!(buf, b"two");
        buf.clear();
        assert_eq!(read_line_bounded(&mut input, &mut buf).unwrap(), 0);
    }

    #[test]
    fn vocabulary_has_no_duplicates() {
        let mut f = FEATURES.to_vec();
        f.sort();
        f.dedup();
        assert_eq!(f.len(), FEATURES.len());
    }
}
