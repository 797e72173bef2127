//! BLOCK-9..17 through [`run`]: the cases where applying must be exact about which bytes
//! change. The corpus and `tests/rules/search_replace.rs` cover the rules at large.

use super::super::run;
use crate::api::SearchReplaceInput;
use crate::disk::is_temp_name;
use crate::{Code, Config, Session, ToolError};
use std::path::{Path, PathBuf};

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    session: Session,
}

fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let session = Session::new(Config::new(&root).with_root(&root));
    Sandbox {
        _dir: dir,
        root,
        session,
    }
}

impl Sandbox {
    fn put(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.root.join(name), bytes).unwrap();
    }
    fn get(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.root.join(name)).unwrap()
    }
    fn apply(&self, reply: &str) -> Result<(), ToolError> {
        run(&self.session, SearchReplaceInput::new(reply)).map(|_| ())
    }
    /// A refusal with `code` that leaves `name` as it was and no temp file.
    fn refused(&self, name: &str, reply: &str, code: Code) -> ToolError {
        let before = self.get(name);
        let e = self.apply(reply).expect_err("must be refused");
        assert_eq!(e.code, code, "{}", e.message);
        assert_eq!(self.get(name), before);
        assert_no_temp(&self.root);
        e
    }
}

fn assert_no_temp(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!is_temp_name(&name), "temp file left: {name}");
    }
}

fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
}

#[test]
fn block_14_a_block_that_changes_nothing_is_no_change() {
    let sb = sandbox();
    sb.put("a.txt", b"a\nb\nc\n");
    let e = sb.refused("a.txt", &block("a.txt", "b\n", "b\n"), Code::NoChange);
    assert_eq!(e.fields["block_line"], 2);
}

#[test]
fn block_14_blocks_that_undo_each_other_are_no_change() {
    let sb = sandbox();
    sb.put("a.txt", b"a\nb\n");
    let reply = block("a.txt", "a\n", "z\n") + &block("a.txt", "z\n", "a\n");
    sb.refused("a.txt", &reply, Code::NoChange);
}

#[test]
fn block_14_a_no_op_block_leaves_the_line_ending_of_its_line() {
    // CRLF dominates; line 2 ends in a bare LF. Only line 1 changes; the no-op block on line
    // 2 must not give its line the dominant ending.
    let sb = sandbox();
    sb.put("m.txt", b"a\r\nb\nc\r\n");
    let reply = block("m.txt", "b\n", "b\n") + &block("m.txt", "a\n", "A\n");
    sb.apply(&reply).unwrap();
    assert_eq!(sb.get("m.txt"), b"A\r\nb\nc\r\n");
}

#[test]
fn block_10_a_mid_line_hit_does_not_hide_the_whole_line_match() {
    // Exact at line 2 (once); the indented copy at line 4 is only a flexible candidate, which
    // is never looked at when the exact search finds the text.
    let sb = sandbox();
    sb.put("s.txt", b"ab\nb\nb\n  b\n  b\n");
    sb.apply(&block("s.txt", "b\nb\n", "c\n")).unwrap();
    assert_eq!(sb.get("s.txt"), b"ab\nc\n  b\n  b\n");
}

#[test]
fn block_10_curly_quotes_at_a_line_start_win_over_reindenting_a_mid_line_hit() {
    let sb = sandbox();
    sb.put("q.py", "  say('hi')\nsay(\u{2018}hi\u{2019})\n".as_bytes());
    sb.apply(&block("q.py", "say('hi')\n", "say('bye')\n"))
        .unwrap();
    assert_eq!(
        sb.get("q.py"),
        "  say('hi')\nsay(\u{2018}bye\u{2019})\n".as_bytes()
    );
}

#[test]
fn block_10_ambiguous_gives_the_count_and_the_first_ten_lines() {
    let sb = sandbox();
    sb.put("x.txt", "x\n".repeat(12).as_bytes());
    let e = sb.refused("x.txt", &block("x.txt", "x\n", "y\n"), Code::Ambiguous);
    assert_eq!(e.fields["count"], 12);
    assert_eq!(
        e.fields["lines"],
        serde_json::json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    );
    assert_eq!(e.fields["block_line"], 2);
}

#[test]
fn block_10_not_found_carries_the_hint() {
    let sb = sandbox();
    sb.put("a.txt", b"alpha\nbeta\n");
    let e = sb.refused("a.txt", &block("a.txt", "be  ta\n", "b\n"), Code::NotFound);
    assert_eq!(e.fields["hint"]["startLine"], 2);
    assert_eq!(e.fields["block_line"], 2);
}

#[test]
fn block_12_an_empty_search_fills_a_new_file_left_blank_by_an_earlier_block() {
    let sb = sandbox();
    let reply = block("n.txt", "", "") + &block("n.txt", "", "hello\n");
    sb.apply(&reply).unwrap();
    assert_eq!(sb.get("n.txt"), b"hello\n");
}

#[test]
fn block_12_an_empty_search_after_a_new_file_got_text_is_file_exists() {
    let sb = sandbox();
    let reply = block("n.txt", "", "one\n") + &block("n.txt", "", "two\n");
    let e = sb.apply(&reply).expect_err("refused");
    assert_eq!(e.code, Code::FileExists);
    assert_eq!(e.fields["block_line"], 7);
    assert!(!sb.root.join("n.txt").exists());
}

#[test]
fn block_13_an_undecodable_file_is_refused_naming_its_first_block() {
    let sb = sandbox();
    sb.put("b.bin", b"a\0b\n");
    let e = sb.refused("b.bin", &block("b.bin", "a\n", "b\n"), Code::Binary);
    assert_eq!(e.fields["block_line"], 2);
}

#[test]
fn block_15_a_character_the_encoding_cannot_hold_is_refused_naming_the_first_block() {
    let sb = sandbox();
    sb.put("w.txt", b"caf\xe9\nnote\n");
    let reply = block("w.txt", "note\n", "snow \u{2603}\n");
    let e = sb.refused("w.txt", &reply, Code::Encoding);
    assert_eq!(e.fields["block_line"], 2);
}
