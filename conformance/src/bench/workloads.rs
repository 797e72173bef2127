//! The fixed, versioned workload set of `editref conform --bench`: what each workload's file
//! is, which calls prepare it (untimed), which call is timed, and what the result must be.
//!
//! Every file is generated here, deterministically, and every expected result is computed here
//! from how the file was built — never taken from a run — so a tool that answers fast but
//! wrong is reported as wrong rather than timed. Changing a workload changes what the figures
//! mean: that is a new [`SET`] version, so baselines of another version are refused.

use crate::case::{Content, FileForm};
use serde_json::{json, Value};

/// The version of the workload set; reports and baselines carry it.
pub const SET: &str = "bench-1";

/// What the timed call must have done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// The file `a.txt` holds exactly these bytes afterwards.
    Bytes(Vec<u8>),
    /// The Read showed these lines (spec form, `N<TAB>text`), as many as a Read shows.
    ReadContent(String),
}

/// One workload, ready to run in a fresh sandbox.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Stable name (`edit-1m-crlf`).
    pub name: &'static str,
    /// Features the implementation must declare for it to run.
    pub requires: &'static [&'static str],
    /// The sandbox's files.
    pub files: Vec<(String, FileForm)>,
    /// Calls made before the timed one, untimed (the Read an edit needs).
    pub setup: Vec<(String, Value)>,
    /// The timed call.
    pub timed: (String, Value),
    /// What it must produce.
    pub expected: Expected,
}

/// The lines a Read shows at most without `limit` (READ-1).
const READ_LINES: usize = 2000;

/// A text of `lines` lines of ~60 bytes (`\n` or `\r\n`), with `marker(i)` standing in for
/// line `i` where it returns one.
fn text(lines: usize, eol: &str, marker: impl Fn(usize) -> Option<String>) -> String {
    let mut s = String::with_capacity(lines * 64);
    for i in 0..lines {
        match marker(i) {
            Some(m) => s.push_str(&m),
            None => {
                s.push_str("line ");
                s.push_str(&format!("{i:07}"));
                s.push_str(" of the benchmark file, words to fill it up");
            }
        }
        s.push_str(eol);
    }
    s
}

/// Lines in a file of about `bytes` bytes.
fn lines_for(bytes: usize) -> usize {
    (bytes / 56).max(2)
}

fn file(bytes: Vec<u8>) -> Vec<(String, FileForm)> {
    vec![(
        "a.txt".into(),
        FileForm {
            content: Content::Bytes(bytes),
            mode: None,
        },
    )]
}

fn read_call() -> (String, Value) {
    ("Read".into(), json!({"file_path": "a.txt"}))
}

/// Files above this many bytes are read in pages before an edit: a Read without `limit` of a
/// file over 256 KB is refused (READ-2), and pages that together cover the file count as a
/// full read (READ-3).
const PAGED_ABOVE: usize = 200 * 1024;

/// Lines per page: ~60 KB, under every shipping tool's limit for one Read (Claude Code's is
/// 25,000 tokens).
const PAGE_LINES: usize = 1000;

/// The untimed Reads an edit of a file of `bytes` bytes and `lines` lines needs.
fn reads_before_edit(bytes: usize, lines: usize) -> Vec<(String, Value)> {
    if bytes <= PAGED_ABOVE {
        return vec![read_call()];
    }
    (0..lines.div_ceil(PAGE_LINES))
        .map(|k| {
            (
                "Read".to_string(),
                json!({"file_path": "a.txt", "offset": k * PAGE_LINES + 1, "limit": PAGE_LINES}),
            )
        })
        .collect()
}

/// The spec form of `count` lines of `text` from line `first` (1-based), as a Read shows them.
fn read_content(text: &str, first: usize, count: usize) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .skip(first - 1)
        .take(count)
        .map(|(i, l)| {
            format!(
                "{}\t{}",
                i + 1,
                l.trim_end_matches('\n').trim_end_matches('\r')
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// UTF-16LE with BOM.
fn utf16le(s: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out
}

/// A Read of a whole small file.
fn read(name: &'static str, bytes: usize) -> Workload {
    let t = text(lines_for(bytes), "\n", |_| None);
    Workload {
        name,
        requires: &["read"],
        expected: Expected::ReadContent(read_content(&t, 1, READ_LINES)),
        files: file(t.into_bytes()),
        setup: Vec::new(),
        timed: read_call(),
    }
}

/// A Read of 10 lines near the end of a file of about `bytes` bytes (`offset`, `limit`).
fn read_tail(name: &'static str, bytes: usize) -> Workload {
    let n = lines_for(bytes);
    let t = text(n, "\n", |_| None);
    let first = n - 15;
    Workload {
        name,
        requires: &["read"],
        expected: Expected::ReadContent(read_content(&t, first, 10)),
        files: file(t.into_bytes()),
        setup: Vec::new(),
        timed: (
            "Read".into(),
            json!({"file_path": "a.txt", "offset": first, "limit": 10}),
        ),
    }
}

/// One unique Edit in the middle of a file of about `bytes` bytes, stored as `encoding`.
fn edit(
    name: &'static str,
    requires: &'static [&'static str],
    bytes: usize,
    eol: &str,
    utf16: bool,
) -> Workload {
    let n = lines_for(bytes);
    let mid = n / 2;
    let target = |with: &'static str| move |i: usize| (i == mid).then(|| with.to_string());
    let before = text(n, eol, target("the unique target line"));
    let after = text(n, eol, target("the edited target line"));
    let encode = |s: String| if utf16 { utf16le(&s) } else { s.into_bytes() };
    let before = encode(before);
    Workload {
        name,
        requires,
        setup: reads_before_edit(before.len(), n),
        files: file(before),
        timed: (
            "Edit".into(),
            json!({"file_path": "a.txt", "old_string": "the unique target line",
                   "new_string": "the edited target line"}),
        ),
        expected: Expected::Bytes(encode(after)),
    }
}

/// replace_all of `hits` hits, one per line.
fn replace_all(name: &'static str, hits: usize) -> Workload {
    let line = |word: &'static str| move |i: usize| Some(format!("let v{i} = {word}(x);"));
    let before = text(hits, "\n", line("old_name"));
    let after = before.replace("old_name", "new_name");
    Workload {
        name,
        requires: &["read", "edit", "replace_all"],
        setup: reads_before_edit(before.len(), hits),
        files: file(before.into_bytes()),
        timed: (
            "Edit".into(),
            json!({"file_path": "a.txt", "old_string": "old_name", "new_string": "new_name",
                   "replace_all": true}),
        ),
        expected: Expected::Bytes(after.into_bytes()),
    }
}

/// A MultiEdit of `edits` unique edits spread over a file of about `bytes` bytes.
fn multi_edit(name: &'static str, edits: usize, bytes: usize) -> Workload {
    let n = lines_for(bytes).max(edits * 2);
    let every = n / edits;
    let mark = |done: bool| {
        move |i: usize| {
            (i.is_multiple_of(every) && i / every < edits).then(|| {
                if done {
                    format!("MARKER {:05} done", i / every)
                } else {
                    format!("marker {:05} here", i / every)
                }
            })
        }
    };
    let before = text(n, "\n", mark(false));
    let after = text(n, "\n", mark(true));
    let list: Vec<Value> = (0..edits)
        .map(|k| {
            json!({"old_string": format!("marker {k:05} here"),
                   "new_string": format!("MARKER {k:05} done")})
        })
        .collect();
    Workload {
        name,
        requires: &["read", "multi_edit"],
        setup: reads_before_edit(before.len(), n),
        files: file(before.into_bytes()),
        timed: (
            "MultiEdit".into(),
            json!({"file_path": "a.txt", "edits": list}),
        ),
        expected: Expected::Bytes(after.into_bytes()),
    }
}

/// Every workload of the set, in the order they are reported. `large` adds the 100 MB ones.
pub fn all(large: bool) -> Vec<Workload> {
    const KB: usize = 1024;
    const MB: usize = 1024 * 1024;
    let mut out = vec![
        read("read-1k", KB),
        edit("edit-1k", &["read", "edit"], KB, "\n", false),
        read_tail("read-1m-tail", MB),
        edit("edit-1m", &["read", "edit"], MB, "\n", false),
        edit("edit-1m-crlf", &["read", "edit", "crlf"], MB, "\r\n", false),
        edit(
            "edit-1m-utf16le",
            &["read", "edit", "utf16le"],
            MB,
            "\n",
            true,
        ),
        replace_all("replace-all-10k", 10_000),
        multi_edit("multi-edit-100", 100, MB),
    ];
    if large {
        out.push(read_tail("read-100m-tail", 100 * MB));
        out.push(edit("edit-100m", &["read", "edit"], 100 * MB, "\n", false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_edit_workload_changes_exactly_its_targets() {
        for w in all(false) {
            let Content::Bytes(before) = &w.files[0].1.content else {
                panic!()
            };
            match &w.expected {
                Expected::Bytes(after) => {
                    assert_ne!(before, after, "{}", w.name);
                    assert_eq!(
                        before.len(),
                        after.len(),
                        "{}: replacements of the same length",
                        w.name
                    );
                    let differing = before.iter().zip(after).filter(|(a, b)| a != b).count();
                    assert!(differing > 0 && differing < before.len() / 2, "{}", w.name);
                }
                Expected::ReadContent(c) => {
                    let lines = String::from_utf8_lossy(before).lines().count();
                    if w.name.ends_with("-tail") {
                        let first = lines - 15;
                        assert_eq!(c.lines().count(), 10, "{}", w.name);
                        let want = format!("{first}\tline {:07} of", first - 1);
                        assert!(c.starts_with(&want), "{}: {c:.40}", w.name);
                    } else {
                        assert!(c.starts_with("1\tline 0000000 of"), "{}", w.name);
                        assert_eq!(c.lines().count(), lines.min(READ_LINES), "{}", w.name);
                    }
                }
            }
        }
        let names: Vec<&str> = all(true).iter().map(|w| w.name).collect();
        assert_eq!(names.len(), 10);
        let crlf = all(false)
            .into_iter()
            .find(|w| w.name == "edit-1m-crlf")
            .unwrap();
        // 1 MB is read in pages of 1,000 lines that cover every line (READ-3).
        assert_eq!(
            crlf.setup.len(),
            lines_for(1024 * 1024).div_ceil(PAGE_LINES)
        );
        assert_eq!(crlf.setup[1].1["offset"], 1001);
        let Content::Bytes(b) = &crlf.files[0].1.content else {
            panic!()
        };
        assert!(b.ends_with(b"up\r\n"));
        let utf16 = all(false)
            .into_iter()
            .find(|w| w.name == "edit-1m-utf16le")
            .unwrap();
        let Content::Bytes(b) = &utf16.files[0].1.content else {
            panic!()
        };
        assert!(b.starts_with(&[0xFF, 0xFE, b'l', 0]));
    }
}
