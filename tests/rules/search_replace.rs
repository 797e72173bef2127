//! BLOCK-9..17 (SPEC §15.2, search_replace): applying a reply's SEARCH/REPLACE blocks through
//! `Session::search_replace` — order, whole-line search, new files, empty SEARCH, opening
//! files, no change, all or nothing, replies that are not blocks, result and dry run.
//!
//! Every change is checked byte for byte; every refusal checks that no file of the sandbox
//! changed, that no file appeared and that no temp file was left.

use crate::{sb, sb_with, Sb};
use editref::api::{FileAction, FilesOutput, SearchReplaceInput, UndoInput};
use editref::{Code, ToolError};
use std::collections::BTreeMap;
use std::path::Path;

/// One block of a reply.
fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
}

fn apply(t: &Sb, reply: &str) -> Result<FilesOutput, ToolError> {
    t.s.search_replace(SearchReplaceInput::new(reply))
}

/// Every entry below `dir`: files with their bytes, directories as `None`.
fn tree(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(base).unwrap().display().to_string();
            if p.is_dir() {
                out.insert(name, None);
                walk(base, &p, out);
            } else {
                out.insert(name, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// A refusal with `code`: no file changed, none appeared, no temp file (BLOCK-15).
fn refused(t: &Sb, reply: &str, code: Code) -> ToolError {
    let before = tree(&t.root);
    let e = apply(t, reply).expect_err("must be refused");
    assert_eq!(e.code, code, "{}", e.message);
    assert_eq!(tree(&t.root), before, "the sandbox changed on a refusal");
    t.assert_no_residue();
    e
}

#[test]
fn block_9_files_in_first_named_order_blocks_in_reply_order() {
    let t = sb();
    t.put("a.txt", b"one\n");
    t.put("b.txt", b"two\n");
    let reply = block("b.txt", "two\n", "TWO\n")
        + &block("a.txt", "one\n", "ONE\n")
        + &block("b.txt", "TWO\n", "TWO\nmore\n");
    let out = apply(&t, &reply).unwrap();
    let named: Vec<&str> = out.files.iter().map(|f| f.file_path.as_str()).collect();
    assert_eq!(named, ["b.txt", "a.txt"]);
    assert_eq!(t.get("a.txt"), b"ONE\n");
    // The third block found the line the first one wrote.
    assert_eq!(t.get("b.txt"), b"TWO\nmore\n");
    t.assert_no_residue();
}

#[test]
fn block_10_only_hits_at_line_starts_count() {
    let t = sb();
    t.put("a.py", b"total = count + 1\ncount + 1\n");
    apply(&t, &block("a.py", "count + 1\n", "count + 2\n")).unwrap();
    assert_eq!(t.get("a.py"), b"total = count + 1\ncount + 2\n");
}

#[test]
fn block_10_two_line_start_hits_are_ambiguous() {
    let t = sb();
    t.put("a.py", b"log()\ncheck()\nlog()\n");
    let e = refused(&t, &block("a.py", "log()\n", "trace()\n"), Code::Ambiguous);
    assert_eq!(e.fields["count"], 2);
    assert_eq!(e.fields["lines"], serde_json::json!([1, 3]));
    assert_eq!(e.fields["block_line"], 2);
}

#[test]
fn block_11_a_new_file_and_its_directories_come_from_an_empty_search() {
    let t = sb();
    let reply = block("pkg/sub/new.py", "", "def f():\n    return 1\n")
        + &block("pkg/sub/new.py", "return 1\n", "return 2\n");
    let out = apply(&t, &reply).unwrap();
    assert_eq!(out.files[0].action, FileAction::Created);
    assert_eq!(t.get("pkg/sub/new.py"), b"def f():\n    return 2\n");
    t.assert_no_residue();
}

#[test]
fn block_11_a_missing_file_with_a_search_text_is_file_not_found() {
    let t = sb();
    t.put("a.txt", b"a\n");
    let reply = block("a.txt", "a\n", "A\n") + &block("ghost.txt", "boo\n", "BOO\n");
    let e = refused(&t, &reply, Code::FileNotFound);
    assert_eq!(e.fields["block_line"], 8);
}

#[test]
fn block_12_empty_search_on_text_is_file_exists_and_fills_a_blank_file() {
    let t = sb();
    t.put("full.txt", b"precious\n");
    refused(&t, &block("full.txt", "", "other\n"), Code::FileExists);
    t.put("blank.txt", b" \n\n");
    apply(&t, &block("blank.txt", "", "hello\n")).unwrap();
    assert_eq!(t.get("blank.txt"), b"hello\n");
}

#[test]
fn block_13_encoding_and_line_endings_are_kept() {
    let t = sb();
    t.put("crlf.txt", b"one\r\ntwo\r\n");
    let mut utf16 = vec![0xFF, 0xFE];
    for u in "h\u{e9}\nx\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    t.put("u16.txt", &utf16);
    let reply = block("crlf.txt", "two\n", "2\n3\n") + &block("u16.txt", "x\n", "\u{fc}\n");
    apply(&t, &reply).unwrap();
    assert_eq!(t.get("crlf.txt"), b"one\r\n2\r\n3\r\n");
    let mut want = vec![0xFF, 0xFE];
    for u in "h\u{e9}\n\u{fc}\n".encode_utf16() {
        want.extend_from_slice(&u.to_le_bytes());
    }
    assert_eq!(t.get("u16.txt"), want);
}

#[test]
fn block_13_no_read_needed_but_a_read_file_must_be_fresh() {
    let t = sb();
    t.put("a.txt", b"alpha\n");
    t.put("b.txt", b"beta\n");
    // Never read: applied (DIALECT-1).
    apply(&t, &block("b.txt", "beta\n", "BETA\n")).unwrap();
    assert_eq!(t.get("b.txt"), b"BETA\n");
    // Read, then changed by someone else (a different size, so the change is seen whatever
    // the clock's resolution): stale.
    t.read("a.txt");
    t.put("a.txt", b"alpha!\n");
    let e = refused(&t, &block("a.txt", "alpha!\n", "A\n"), Code::Stale);
    assert_eq!(e.fields["block_line"], 2);
}

#[test]
fn block_13_a_binary_file_is_refused() {
    let t = sb();
    t.put("d.bin", b"head\n\0\x01\n");
    refused(&t, &block("d.bin", "head\n", "HEAD\n"), Code::Binary);
}

#[test]
fn block_14_a_reply_that_changes_nothing_is_no_change() {
    let t = sb();
    t.put("a.txt", b"a\nb\n");
    refused(&t, &block("a.txt", "b\n", "b\n"), Code::NoChange);
}

#[test]
fn block_15_a_failure_in_the_third_file_writes_none() {
    let t = sb();
    t.put("a.txt", b"a\n");
    t.put("b.txt", b"b\n");
    t.put("c.txt", b"c\n");
    let reply = block("a.txt", "a\n", "A\n")
        + &block("new/d.txt", "", "d\n")
        + &block("c.txt", "zzz\n", "Z\n");
    let e = refused(&t, &reply, Code::NotFound);
    assert_eq!(e.fields["block_line"], 13);
    assert!(!t.p("new").exists());
}

#[test]
fn block_15_a_path_outside_the_root_refuses_the_reply() {
    let t = sb();
    t.put("a.txt", b"a\n");
    let reply = block("a.txt", "a\n", "A\n") + &block("../x.txt", "", "x\n");
    let e = refused(&t, &reply, Code::OutsideRoot);
    assert_eq!(e.fields["block_line"], 8);
    assert!(!t.root.parent().unwrap().join("x.txt").exists());
}

#[test]
fn block_15_a_file_read_before_counts_as_read_after() {
    let t = sb();
    t.put("a.txt", b"one\ntwo\n");
    t.read("a.txt");
    apply(&t, &block("a.txt", "one\n", "1\n")).unwrap();
    t.edit("a.txt", "two", "2").unwrap();
    assert_eq!(t.get("a.txt"), b"1\n2\n");
}

#[test]
fn block_15_dialect_1_an_unread_file_stays_unread() {
    let t = sb();
    t.put("a.txt", b"one\ntwo\n");
    apply(&t, &block("a.txt", "one\n", "1\n")).unwrap();
    let e = t.edit("a.txt", "two", "2").unwrap_err();
    assert_eq!(e.code.as_str(), "not_read");
    assert_eq!(t.get("a.txt"), b"1\ntwo\n");
    t.assert_no_residue();
}

#[test]
fn block_15_the_reply_is_one_undo_unit() {
    let journal = tempfile::tempdir().unwrap();
    let dir = journal.path().to_path_buf();
    let t = sb_with(|c| c.with_undo(dir));
    t.put("a.txt", b"a\n");
    t.put("b.txt", b"b\n");
    let reply = block("a.txt", "a\n", "A\n") + &block("b.txt", "b\n", "B\n");
    apply(&t, &reply).unwrap();
    assert_eq!(
        (t.get("a.txt"), t.get("b.txt")),
        (b"A\n".to_vec(), b"B\n".to_vec())
    );
    t.s.undo(UndoInput::new("b.txt")).unwrap();
    assert_eq!(
        (t.get("a.txt"), t.get("b.txt")),
        (b"a\n".to_vec(), b"b\n".to_vec())
    );
    t.assert_no_residue();
}

#[test]
fn block_16_a_malformed_reply_names_the_line_and_what_was_expected() {
    let t = sb();
    t.put("a.txt", b"one\n");
    let reply = "a.txt\n<<<<<<< SEARCH\none\n>>>>>>> REPLACE\n";
    let e = refused(&t, reply, Code::InvalidPatch);
    assert_eq!(e.fields["line"], 4);
    let expected = e.fields["expected"].as_str().unwrap();
    assert!(expected.contains("======="), "{expected}");
    refused(&t, "Nothing to change here.\n", Code::InvalidPatch);
}

#[test]
fn block_17_dry_run_writes_nothing_and_reads_nothing() {
    let t = sb();
    t.put("a.txt", b"a\n");
    let reply = block("a.txt", "a\n", "A\n") + &block("n.txt", "", "n\n");
    let before = tree(&t.root);
    let out =
        t.s.search_replace(SearchReplaceInput {
            text: reply,
            dry_run: true,
        })
        .unwrap();
    assert!(out.dry_run);
    let actions: Vec<FileAction> = out.files.iter().map(|f| f.action).collect();
    assert_eq!(actions, [FileAction::Updated, FileAction::Created]);
    assert_eq!(tree(&t.root), before);
    // The read state is as it was: a.txt was never read, so Edit still needs a Read.
    let e = t.edit("a.txt", "a", "A").unwrap_err();
    assert_eq!(e.code, Code::NotRead);
    t.assert_no_residue();
}

#[test]
fn block_17_a_dry_run_leaves_the_read_state_as_it_was() {
    sb().dry_run_keeps_the_read_state(
        "search_replace",
        serde_json::json!({"text": block("f.txt", "beta\n", "BETA\n"), "dry_run": true}),
    );
}
