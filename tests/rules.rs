//! One or more tests per rule ID of SPEC.md, through the public `Session` API on real files.
//! Every test that edits checks the exact bytes on disk; every refusal checks that the file is
//! byte-identical and that no temp file was left behind.

use editref::disk::is_temp_name;
use editref::{Code, Config, Session};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

struct Sb {
    _dir: tempfile::TempDir,
    root: PathBuf,
    s: Session,
}

fn sb() -> Sb {
    sb_with(|c| c)
}

fn sb_with(f: impl FnOnce(Config) -> Config) -> Sb {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("root");
    std::fs::create_dir(&root).unwrap();
    let s = Session::new(f(Config::new(&root).with_root(&root)));
    Sb { _dir: dir, root, s }
}

impl Sb {
    fn p(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }
    fn put(&self, name: &str, bytes: &[u8]) {
        let p = self.p(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    fn get(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.p(name)).unwrap()
    }
    fn call(&self, tool: &str, input: Value) -> Result<Value, editref::ToolError> {
        self.s.call(tool, &input)
    }
    fn read(&self, name: &str) -> Value {
        self.call("Read", json!({"file_path": name})).unwrap()
    }
    fn edit(&self, name: &str, old: &str, new: &str) -> Result<Value, editref::ToolError> {
        self.call(
            "Edit",
            json!({"file_path": name, "old_string": old, "new_string": new}),
        )
    }
    /// Reads, edits and returns the bytes on disk.
    fn edited(&self, bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
        self.put("f.txt", bytes);
        self.read("f.txt");
        self.edit("f.txt", old, new).unwrap();
        self.assert_no_residue();
        self.get("f.txt")
    }
    fn assert_no_residue(&self) {
        fn walk(dir: &Path) {
            for e in std::fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                assert!(!is_temp_name(&name), "temp residue: {name}");
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path());
                }
            }
        }
        walk(&self.root);
    }
    /// Asserts a refusal with `code` that leaves `name` byte-identical and no residue.
    fn refused(&self, name: &str, code: Code, tool: &str, input: Value) -> editref::ToolError {
        let before = std::fs::read(self.p(name)).ok();
        let err = self.call(tool, input).expect_err("must be refused");
        assert_eq!(err.code, code, "{}", err.message);
        assert_eq!(
            std::fs::read(self.p(name)).ok(),
            before,
            "file changed on refusal"
        );
        self.assert_no_residue();
        err
    }
}

// ---- REPAIR ----

#[test]
fn repair_1_every_table_entry_expands() {
    for (short, long) in editref::repair::DESANITIZE {
        let t = sb();
        let file = format!("x {long} y\n");
        let out = t.edited(
            file.as_bytes(),
            &format!("x {short} y"),
            &format!("z {short}"),
        );
        assert_eq!(out, format!("z {long}\n").as_bytes(), "{short}");
    }
}

#[test]
fn repair_2_only_entries_that_changed_old_apply_to_new() {
    let t = sb();
    t.put("f.txt", b"<name>a</name>\n");
    t.read("f.txt");
    let out = t.edit("f.txt", "<n>a</n>", "<n>b</n><o>").unwrap();
    assert_eq!(out["repairs"], json!(["desanitize"]));
    assert_eq!(t.get("f.txt"), b"<name>b</name><o>\n");
}

#[test]
fn repair_3_line_prefixes_stripped_strictly() {
    let t = sb();
    assert_eq!(
        t.edited(b"a\nb\nc\n", "2\tb\n3\tc", "2\tB\n3\tC"),
        b"a\nB\nC\n"
    );
    let t = sb();
    t.put("f.tsv", b"12\tfoo\n14\tbar\n");
    t.read("f.tsv");
    t.refused(
        "f.tsv",
        Code::NotFound,
        "Edit",
        json!({"file_path": "f.tsv", "old_string": "12\tfoo\n13\tbar", "new_string": "x"}),
    );
}

#[test]
fn repair_4_exact_text_wins_over_repairs() {
    let t = sb();
    t.put("f.txt", b"<n> and <name>\n");
    t.read("f.txt");
    let out = t.edit("f.txt", "<n>", "<m>").unwrap();
    assert_eq!(out["repairs"], json!([]));
    assert_eq!(t.get("f.txt"), b"<m> and <name>\n");
}

#[test]
fn repair_5_trailing_whitespace_is_kept() {
    let t = sb();
    assert_eq!(t.edited(b"a\n", "a", "b  \t"), b"b  \t\n");
}

#[test]
fn repair_6_unicode_escapes() {
    let t = sb();
    assert_eq!(
        t.edited("s = 'é'\n".as_bytes(), "'\\u00e9'", "'\\u00e8'"),
        "s = 'è'\n".as_bytes()
    );
    let t = sb();
    assert_eq!(
        t.edited(b"s = \"\\u00E9\"\n", "\"\u{e9}\"", "\"\u{e8}\""),
        b"s = \"\\u00E8\"\n"
    );
}

// ---- TEXT ----

#[test]
fn text_1_encodings_by_bom_and_checked_legacy() {
    let t = sb();
    assert_eq!(
        t.edited(b"\xFE\xFF\x00a\x00b", "a", "x"),
        b"\xFE\xFF\x00x\x00b"
    );
    let t = sb();
    let latin = b"caf\xE9 cr\xE8me br\xFBl\xE9e \x93quoted\x94 and more words here\n";
    let out = t.edited(latin, "br\u{fb}l\u{e9}e", "glac\u{e9}e");
    assert_eq!(
        out,
        b"caf\xE9 cr\xE8me glac\xE9e \x93quoted\x94 and more words here\n"
    );
}

#[test]
fn text_2_undecodable_bytes_are_refused_untouched() {
    let t = sb();
    t.put("f.txt", b"\xEF\xBB\xBFok \xFF\xFE bad");
    let _ = t.call("Read", json!({"file_path": "f.txt"}));
    let s2 = Session::new(Config::new(&t.root).one_shot());
    let before = t.get("f.txt");
    let err = s2
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "ok", "new_string": "no"}),
        )
        .unwrap_err();
    assert_eq!(err.code, Code::Encoding);
    assert_eq!(t.get("f.txt"), before);
    t.assert_no_residue();
}

#[test]
fn text_3_bom_kept_and_never_shown() {
    let t = sb();
    t.put("f.txt", b"\xEF\xBB\xBFhello\n");
    let r = t.read("f.txt");
    assert_eq!(r["file"]["content"], "1\thello");
    t.edit("f.txt", "hello", "bye").unwrap();
    assert_eq!(t.get("f.txt"), b"\xEF\xBB\xBFbye\n");
    let t = sb();
    assert_eq!(t.edited(b"\xFF\xFEh\0i\0", "hi", "yo"), b"\xFF\xFEy\0o\0");
}

#[test]
fn text_4_dominant_ending_strict_majority() {
    let t = sb();
    assert_eq!(
        t.edited(b"a\r\nb\r\nc\n", "c", "c\nd"),
        b"a\r\nb\r\nc\r\nd\n"
    );
    let t = sb();
    assert_eq!(
        t.edited(b"a\r\nb\n", "b", "b\nc"),
        b"a\r\nb\nc\n",
        "tie is LF"
    );
}

#[test]
fn text_5_lf_old_string_matches_crlf_file() {
    let t = sb();
    assert_eq!(
        t.edited(b"one\r\ntwo\r\n", "one\ntwo", "1\n2"),
        b"1\r\n2\r\n"
    );
    let t = sb();
    assert_eq!(
        t.edited(b"one\r\ntwo\r\n", "one\r\ntwo", "1\r\n2"),
        b"1\r\n2\r\n"
    );
}

#[test]
fn text_6_bytes_outside_the_span_are_identical() {
    let t = sb();
    let file = b"keep\r\nmixed\nlone\rcr\r\nedit me\nend";
    assert_eq!(
        t.edited(file, "edit me", "edited"),
        b"keep\r\nmixed\nlone\rcr\r\nedited\nend"
    );
}

#[test]
fn text_7_nul_means_binary() {
    let t = sb();
    t.put("f.bin", b"abc\0def");
    t.refused("f.bin", Code::Binary, "Read", json!({"file_path": "f.bin"}));
    let one = Session::new(Config::new(&t.root).one_shot());
    let err = one
        .call(
            "Edit",
            &json!({"file_path": "f.bin", "old_string": "abc", "new_string": "x"}),
        )
        .unwrap_err();
    assert_eq!(err.code, Code::Binary);
    assert_eq!(t.get("f.bin"), b"abc\0def");
}

// ---- MATCH ----

#[test]
fn match_1_exact_non_overlapping() {
    let t = sb();
    t.put("f.txt", b"aaa\n");
    t.read("f.txt");
    let out = t
        .call("Edit", json!({"file_path": "f.txt", "old_string": "aa", "new_string": "b", "replace_all": true}))
        .unwrap();
    assert_eq!(out["replacements"], 1);
    assert_eq!(t.get("f.txt"), b"ba\n");
}

#[test]
fn match_2_curly_fallback_uses_the_files_text() {
    let t = sb();
    let out = t.edited("say “hi”\n".as_bytes(), "say \"hi\"", "say \"bye\"");
    assert_eq!(out, "say “bye”\n".as_bytes());
    let t = sb();
    assert_eq!(t.edited(b"it's\n", "it’s", "it is"), b"it is\n");
}

#[test]
fn match_3_ambiguity_refused_with_count_and_lines() {
    let t = sb();
    t.put("f.txt", b"x\ny\nx\n");
    t.read("f.txt");
    let e = t.refused(
        "f.txt",
        Code::Ambiguous,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "x", "new_string": "z"}),
    );
    assert_eq!(e.fields["count"], 2);
    assert_eq!(e.fields["lines"], json!([1, 3]));
}

#[test]
fn match_4_quote_style_per_hit() {
    let t = sb();
    t.put("f.txt", "“a” and ‘a’\n".as_bytes());
    t.read("f.txt");
    t.call(
        "Edit",
        json!({"file_path": "f.txt", "old_string": "'a'", "new_string": "'it's b'"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), "“a” and ‘it’s b’\n".as_bytes());
}

#[test]
fn match_5_no_dollar_expansion() {
    let t = sb();
    assert_eq!(t.edited(b"price\n", "price", "$& $1 \\n"), b"$& $1 \\n\n");
}

#[test]
fn match_6_not_found_hint_never_edits() {
    let t = sb();
    t.put("f.txt", b"fn main() {\n    let x = 1;\n}\n");
    t.read("f.txt");
    let e = t.refused(
        "f.txt",
        Code::NotFound,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "let x=1;", "new_string": "let x = 2;"}),
    );
    assert_eq!(e.fields["hint"]["startLine"], 2);
}

// ---- EDIT ----

#[test]
fn edit_1_validation_order() {
    let t = sb();
    // schema first
    t.put("f.txt", b"a\n");
    t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"file_path": "f.txt", "old_string": 1, "new_string": "b"}),
    );
    t.refused(
        "f.txt",
        Code::InvalidInput,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "extra": 1}),
    );
    // no_change before path rules
    let e = t
        .call(
            "Edit",
            json!({"file_path": "", "old_string": "a", "new_string": "a"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::NoChange);
    // missing file
    let e = t
        .call(
            "Edit",
            json!({"file_path": "nope.txt", "old_string": "a", "new_string": "b"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::FileNotFound);
    // not read
    t.refused(
        "f.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    );
    // empty old_string on a non-blank file
    t.read("f.txt");
    t.refused(
        "f.txt",
        Code::FileExists,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "", "new_string": "b"}),
    );
    // create with parents
    t.call(
        "Edit",
        json!({"file_path": "new/dir/g.txt", "old_string": "", "new_string": "hi\n"}),
    )
    .unwrap();
    assert_eq!(t.get("new/dir/g.txt"), b"hi\n");
    // a blank file takes new_string as its content
    t.put("blank.txt", b"  \n");
    t.read("blank.txt");
    t.call(
        "Edit",
        json!({"file_path": "blank.txt", "old_string": "", "new_string": "full"}),
    )
    .unwrap();
    assert_eq!(t.get("blank.txt"), b"full");
    // directory and notebook
    std::fs::create_dir(t.p("d")).unwrap();
    let e = t
        .call(
            "Edit",
            json!({"file_path": "d", "old_string": "a", "new_string": "b"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::IsDirectory);
    t.put("n.ipynb", b"{}");
    t.refused(
        "n.ipynb",
        Code::UseNotebookEdit,
        "Edit",
        json!({"file_path": "n.ipynb", "old_string": "{", "new_string": "["}),
    );
}

#[test]
fn edit_2_deleting_takes_the_line_break() {
    let t = sb();
    assert_eq!(t.edited(b"a\nfoo\nb\n", "foo", ""), b"a\nb\n");
    let t = sb();
    assert_eq!(t.edited(b"a\r\nfoo\r\nb\r\n", "foo", ""), b"a\r\nb\r\n");
}

#[test]
fn edit_3_write_rechecks_and_replaces_atomically() {
    let t = sb();
    assert_eq!(t.edited(b"one two\n", "two", "2"), b"one 2\n");
}

#[test]
fn edit_4_second_edit_needs_no_reread() {
    let t = sb();
    t.put("f.txt", b"a b\n");
    t.read("f.txt");
    t.edit("f.txt", "a", "x").unwrap();
    t.edit("f.txt", "b", "y").unwrap();
    assert_eq!(t.get("f.txt"), b"x y\n");
}

#[test]
fn edit_5_result_fields() {
    let t = sb();
    t.put("f.txt", "“q”\n".as_bytes());
    t.read("f.txt");
    let out = t.edit("f.txt", "\"q\"", "\"r\"").unwrap();
    assert_eq!(out["oldString"], "“q”");
    assert_eq!(out["newString"], "“r”");
    assert_eq!(out["replacements"], 1);
    assert_eq!(out["replaceAll"], false);
    assert_eq!(out["userModified"], false);
    assert_eq!(out["repairs"], json!([]));
    assert!(out["diff"].as_str().unwrap().contains("+“r”"));
}

#[test]
fn edit_6_structured_patch_shape() {
    let t = sb();
    t.put("f.txt", b"1\n2\n3\n4\n5\n");
    t.read("f.txt");
    let out = t.edit("f.txt", "3", "three").unwrap();
    assert_eq!(
        out["structuredPatch"],
        json!([{"oldStart": 1, "oldLines": 5, "newStart": 1, "newLines": 5,
                "lines": [" 1", " 2", "-3", "+three", " 4", " 5"]}])
    );
    assert_eq!(t.get("f.txt"), b"1\n2\nthree\n4\n5\n");
}

#[test]
fn edit_7_dry_run_writes_nothing() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "dry_run": true}),
        )
        .unwrap();
    assert_eq!(out["dryRun"], true);
    assert_eq!(t.get("f.txt"), b"a\n");
    t.assert_no_residue();
    // Metadata checks still run under dry_run.
    std::fs::set_permissions(t.p("f.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
    t.refused(
        "f.txt",
        Code::PermissionDenied,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "dry_run": true}),
    );
}

// ---- MULTI ----

fn multi(t: &Sb, edits: Value) -> Result<Value, editref::ToolError> {
    t.call("MultiEdit", json!({"file_path": "f.txt", "edits": edits}))
}

#[test]
fn multi_1_sequential() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    multi(
        &t,
        json!([{"old_string": "a", "new_string": "b c"}, {"old_string": "b c", "new_string": "d"}]),
    )
    .map(|_| ())
    .expect_err("b c is inside an earlier new_string (MULTI-2)");
    multi(
        &t,
        json!([{"old_string": "a", "new_string": "b"}, {"old_string": "b\n", "new_string": "c\n"}]),
    )
    .expect_err("also a conflict");
    t.put("f.txt", b"one two\n");
    t.read("f.txt");
    // Edit 1 sees edit 0's result ("1 two"); its old_string is not inside "1", so no conflict.
    multi(&t, json!([{"old_string": "one", "new_string": "1"}, {"old_string": "1 two", "new_string": "x"}])).unwrap();
    assert_eq!(t.get("f.txt"), b"x\n");
    multi(&t, json!([{"old_string": "x", "new_string": "1 2"}, {"old_string": "\n", "new_string": "!\n"}])).unwrap();
    assert_eq!(t.get("f.txt"), b"1 2!\n");
}

#[test]
fn multi_2_conflict_has_edit_index() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let before = t.get("f.txt");
    let e = multi(
        &t,
        json!([{"old_string": "a", "new_string": "xyz"}, {"old_string": "y", "new_string": "q"}]),
    )
    .unwrap_err();
    assert_eq!(e.code, Code::EditConflict);
    assert_eq!(e.fields["edit_index"], 1);
    assert_eq!(t.get("f.txt"), before);
}

#[test]
fn multi_3_all_or_nothing() {
    let t = sb();
    t.put("f.txt", b"a b\n");
    t.read("f.txt");
    let e = multi(
        &t,
        json!([{"old_string": "a", "new_string": "x"}, {"old_string": "zz", "new_string": "y"}]),
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.fields["edit_index"].clone()),
        (Code::NotFound, json!(1))
    );
    assert_eq!(t.get("f.txt"), b"a b\n");
    t.assert_no_residue();
}

#[test]
fn multi_4_create_then_edit() {
    let t = sb();
    t.call(
        "MultiEdit",
        json!({"file_path": "new.txt", "edits": [
        {"old_string": "", "new_string": "hello world\n"},
        {"old_string": "world", "new_string": "there"}]}),
    )
    .unwrap();
    assert_eq!(t.get("new.txt"), b"hello there\n");
}

#[test]
fn multi_5_one_write_one_patch() {
    let t = sb();
    t.put("f.txt", b"a\nb\n");
    t.read("f.txt");
    let out = multi(
        &t,
        json!([{"old_string": "a", "new_string": "A"}, {"old_string": "b", "new_string": "B"}]),
    )
    .unwrap();
    assert_eq!(out["edits"].as_array().unwrap().len(), 2);
    assert_eq!(out["structuredPatch"].as_array().unwrap().len(), 1);
    assert_eq!(t.get("f.txt"), b"A\nB\n");
}

// ---- WRITE ----

#[test]
fn write_1_creates_with_parents_without_read() {
    let t = sb();
    let out = t
        .call(
            "Write",
            json!({"file_path": "a/b/c.txt", "content": "x\r\ny"}),
        )
        .unwrap();
    assert_eq!(out["type"], "create");
    assert_eq!(t.get("a/b/c.txt"), b"x\r\ny");
}

#[test]
fn write_2_existing_needs_full_fresh_read() {
    let t = sb();
    t.put("f.txt", b"1\n2\n");
    t.refused(
        "f.txt",
        Code::NotRead,
        "Write",
        json!({"file_path": "f.txt", "content": "x"}),
    );
    t.call("Read", json!({"file_path": "f.txt", "limit": 1}))
        .unwrap();
    t.refused(
        "f.txt",
        Code::PartialRead,
        "Write",
        json!({"file_path": "f.txt", "content": "x"}),
    );
}

#[test]
fn write_3_encoding_kept_endings_as_given() {
    let t = sb();
    t.put("f.txt", b"\xFF\xFEa\0\r\0\n\0");
    t.read("f.txt");
    t.call("Write", json!({"file_path": "f.txt", "content": "b\nc"}))
        .unwrap();
    assert_eq!(t.get("f.txt"), b"\xFF\xFEb\0\n\0c\0");
}

#[test]
fn write_4_result_shape() {
    let t = sb();
    t.put("f.txt", b"old\n");
    t.read("f.txt");
    let out = t
        .call("Write", json!({"file_path": "f.txt", "content": "new\n"}))
        .unwrap();
    assert_eq!(out["type"], "update");
    assert_eq!(out["originalFile"], "old\n");
    assert_eq!(out["structuredPatch"][0]["lines"], json!(["-old", "+new"]));
    assert_eq!(t.get("f.txt"), b"new\n");
}

#[test]
fn write_5_written_content_counts_as_read() {
    let t = sb();
    t.call("Write", json!({"file_path": "f.txt", "content": "a\n"}))
        .unwrap();
    t.call("Write", json!({"file_path": "f.txt", "content": "b\n"}))
        .unwrap();
    t.edit("f.txt", "b", "c").unwrap();
    assert_eq!(t.get("f.txt"), b"c\n");
}

// ---- READ ----

#[test]
fn read_1_numbered_lines_without_phantom_line() {
    let t = sb();
    t.put("f.txt", b"\xEF\xBB\xBFa\r\nb\r\n");
    let r = t.read("f.txt");
    assert_eq!(r["file"]["content"], "1\ta\n2\tb");
    assert_eq!(r["file"]["totalLines"], 2);
    let t = sb_with(|mut c| {
        c.line_format = editref::LineFormat::Arrow;
        c
    });
    t.put("f.txt", b"a\n");
    assert_eq!(t.read("f.txt")["file"]["content"], "     1\u{2192}a");
}

#[test]
fn read_2_large_files_need_limit() {
    let t = sb();
    let big = "x".repeat(100).repeat(3000);
    t.put("big.txt", big.as_bytes());
    t.refused(
        "big.txt",
        Code::TooLarge,
        "Read",
        json!({"file_path": "big.txt"}),
    );
    let r = t
        .call(
            "Read",
            json!({"file_path": "big.txt", "offset": 1, "limit": 1}),
        )
        .unwrap();
    assert_eq!(r["file"]["numLines"], 1);
}

#[test]
fn read_3_partial_reads_that_cover_everything_count_as_full() {
    let t = sb();
    t.put("f.txt", b"1\n2\n3\n4\n");
    t.call("Read", json!({"file_path": "f.txt", "limit": 2}))
        .unwrap();
    t.refused(
        "f.txt",
        Code::PartialRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "3", "new_string": "x"}),
    );
    t.call(
        "Read",
        json!({"file_path": "f.txt", "offset": 3, "limit": 2}),
    )
    .unwrap();
    t.edit("f.txt", "3", "x").unwrap();
    assert_eq!(t.get("f.txt"), b"1\n2\nx\n4\n");
}

#[test]
fn read_4_unchanged_reread() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    assert_eq!(t.read("f.txt")["type"], "file_unchanged");
    t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(
        t.read("f.txt")["type"],
        "text",
        "writes do not dedup the next read"
    );
}

#[test]
fn read_5_blocked_devices_and_fifos() {
    let t = sb();
    for dev in ["/dev/zero", "/dev/stdin", "/dev/urandom", "/proc/self/fd/0"] {
        let e = t.call("Read", json!({"file_path": dev})).unwrap_err();
        assert_eq!(e.code, Code::BlockedPath, "{dev}");
    }
    let fifo = t.p("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let e = t.call("Read", json!({"file_path": "pipe"})).unwrap_err();
    assert_eq!(e.code, Code::BlockedPath);
}

#[test]
fn read_6_images_pdfs_notebooks() {
    let t = sb();
    t.put("i.png", b"\x89PNG\r\n\x1a\nrest");
    let r = t.read("i.png");
    assert_eq!(
        (r["type"].clone(), r["mediaType"].clone()),
        (json!("image"), json!("image/png"))
    );
    assert_eq!(r["base64"], "iVBORw0KGgpyZXN0");
    t.put("d.pdf", b"%PDF-1.4\n");
    assert_eq!(t.read("d.pdf")["type"], "pdf");
    let e = t
        .call("Read", json!({"file_path": "d.pdf", "pages": "1-30"}))
        .unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);
    t.put("n.ipynb", br#"{"cells": [{"cell_type": "code", "source": ["a\n", "b"], "outputs": []}], "nbformat": 4, "nbformat_minor": 4}"#);
    let r = t.read("n.ipynb");
    assert_eq!(r["cells"][0]["cellId"], "cell-0");
    assert_eq!(r["cells"][0]["source"], "a\nb");
}

#[test]
fn read_7_order_devices_before_root_and_directories() {
    let t = sb();
    let e = t
        .call("Read", json!({"file_path": "/dev/zero"}))
        .unwrap_err();
    assert_eq!(e.code, Code::BlockedPath, "blocked before outside_root");
    std::fs::create_dir(t.p("d")).unwrap();
    assert_eq!(
        t.call("Read", json!({"file_path": "d"})).unwrap_err().code,
        Code::IsDirectory
    );
}

// ---- NOTEBOOK ----

const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3,\n   \"id\": \"c1\",\n   \"metadata\": {},\n   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"1\\n\"\n     ]\n    }\n   ],\n   \"source\": [\n    \"print(1)\\n\",\n    \"x = 'é'\"\n   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"m1\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Title\"\n   ]\n  }\n ],\n \"metadata\": {\n  \"language_info\": {\n   \"name\": \"python\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

fn nb_edit(t: &Sb, input: Value) -> Result<Value, editref::ToolError> {
    let mut input = input;
    input["notebook_path"] = json!("n.ipynb");
    t.call("NotebookEdit", input)
}

#[test]
fn notebook_1_order_of_refusals() {
    let t = sb();
    t.put("n.txt", b"x");
    let e = t
        .call(
            "NotebookEdit",
            json!({"notebook_path": "n.txt", "cell_id": "a", "new_source": "x"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::NotNotebook);
    t.put("n.ipynb", NB.as_bytes());
    t.refused("n.ipynb", Code::InvalidInput, "NotebookEdit", json!({"notebook_path": "n.ipynb", "cell_id": "c1", "new_source": "x", "edit_mode": "bogus"}));
    t.refused(
        "n.ipynb",
        Code::InvalidInput,
        "NotebookEdit",
        json!({"notebook_path": "n.ipynb", "new_source": "x", "edit_mode": "insert"}),
    );
    t.refused(
        "n.ipynb",
        Code::NotRead,
        "NotebookEdit",
        json!({"notebook_path": "n.ipynb", "cell_id": "c1", "new_source": "x"}),
    );
    t.read("n.ipynb");
    t.refused(
        "n.ipynb",
        Code::CellNotFound,
        "NotebookEdit",
        json!({"notebook_path": "n.ipynb", "cell_id": "nope", "new_source": "x"}),
    );
    t.put("bad.ipynb", b"{not json");
    t.s.call("Read", &json!({"file_path": "bad.ipynb"}))
        .unwrap_err();
    let one = Session::new(Config::new(&t.root).one_shot());
    let e = one
        .call(
            "NotebookEdit",
            &json!({"notebook_path": "bad.ipynb", "cell_id": "c1", "new_source": "x"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::InvalidNotebook);
    assert_eq!(t.get("bad.ipynb"), b"{not json");
}

#[test]
fn notebook_2_lookup_by_id_then_index() {
    let t = sb();
    t.put("n.ipynb", NB.as_bytes());
    t.read("n.ipynb");
    nb_edit(&t, json!({"cell_id": "cell-1", "new_source": "# New"})).unwrap();
    let after = String::from_utf8(t.get("n.ipynb")).unwrap();
    assert_eq!(after, NB.replace("\"# Title\"", "\"# New\""));
}

#[test]
fn notebook_3_replace_clears_outputs_and_delete_removes() {
    let t = sb();
    t.put("n.ipynb", NB.as_bytes());
    t.read("n.ipynb");
    nb_edit(&t, json!({"cell_id": "c1", "new_source": "y = 2\nz = 3"})).unwrap();
    let expected = NB
        .replace("\"execution_count\": 3", "\"execution_count\": null")
        .replace("\"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"1\\n\"\n     ]\n    }\n   ]", "\"outputs\": []")
        .replace("\"print(1)\\n\",\n    \"x = 'é'\"", "\"y = 2\\n\",\n    \"z = 3\"");
    assert_eq!(String::from_utf8(t.get("n.ipynb")).unwrap(), expected);
    nb_edit(&t, json!({"cell_id": "m1", "edit_mode": "delete"})).unwrap();
    let nb: Value = serde_json::from_slice(&t.get("n.ipynb")).unwrap();
    assert_eq!(nb["cells"].as_array().unwrap().len(), 1);
    nb_edit(
        &t,
        json!({"edit_mode": "insert", "cell_type": "markdown", "new_source": "top"}),
    )
    .unwrap();
    let nb: Value = serde_json::from_slice(&t.get("n.ipynb")).unwrap();
    assert_eq!(nb["cells"][0]["source"], json!(["top"]));
    assert_eq!(
        nb["cells"][0]["id"].as_str().unwrap().len(),
        8,
        "nbformat 4.5 gets ids"
    );
}

#[test]
fn notebook_4_unchanged_notebook_is_byte_identical() {
    let nb = editref::tools::notebook::parse(NB).unwrap();
    assert_eq!(editref::tools::notebook::serialize(&nb, 1, true), NB);
}

#[test]
fn notebook_5_source_form_and_read_state() {
    let t = sb();
    t.put("n.ipynb", NB.as_bytes());
    t.read("n.ipynb");
    nb_edit(&t, json!({"cell_id": "m1", "new_source": "a\nb\n"})).unwrap();
    nb_edit(&t, json!({"cell_id": "m1", "new_source": "c"})).expect("no re-read needed");
    let nb: Value = serde_json::from_slice(&t.get("n.ipynb")).unwrap();
    assert_eq!(nb["cells"][1]["source"], json!(["c"]));
}

// ---- SESSION ----

#[test]
fn session_1_read_before_write_and_one_shot() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.refused(
        "f.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    );
    let one = Session::new(Config::new(&t.root).one_shot());
    one.call(
        "Edit",
        &json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
}

fn set_mtime(p: &Path, delta_secs: i64) {
    let f = std::fs::File::options().write(true).open(p).unwrap();
    let m = f.metadata().unwrap().modified().unwrap();
    let t = if delta_secs >= 0 {
        m + std::time::Duration::from_secs(delta_secs as u64)
    } else {
        m - std::time::Duration::from_secs((-delta_secs) as u64)
    };
    f.set_modified(t).unwrap();
}

#[test]
fn session_2_changed_stale_touched_forgiven_backwards_counts() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    std::fs::write(t.p("f.txt"), b"b\n").unwrap();
    set_mtime(&t.p("f.txt"), 2);
    t.refused(
        "f.txt",
        Code::Stale,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "b", "new_string": "c"}),
    );
    t.read("f.txt");
    set_mtime(&t.p("f.txt"), 5);
    t.edit("f.txt", "b", "c").expect("touched only: not stale");
    assert_eq!(t.get("f.txt"), b"c\n");
    let m = std::fs::metadata(t.p("f.txt")).unwrap().modified().unwrap();
    std::fs::write(t.p("f.txt"), b"d\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(t.p("f.txt"))
        .unwrap()
        .set_modified(m - std::time::Duration::from_secs(5))
        .unwrap();
    t.refused(
        "f.txt",
        Code::Stale,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "d", "new_string": "e"}),
    );
}

#[test]
fn session_3_change_just_before_rename_is_stale() {
    use editref::disk::{FaultFs, Op, RealFs};
    use std::sync::Arc;
    let t = sb();
    t.put("f.txt", b"a\n");
    let target = t.p("f.txt");
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
        if op == Op::Lock {
            std::fs::write(&target, b"other\n").unwrap();
        }
    });
    let s = Session::with_fs(Config::new(&t.root).one_shot(), Arc::new(fs));
    let e = s
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert_eq!(t.get("f.txt"), b"other\n");
    t.assert_no_residue();
}

#[test]
fn session_4_two_sessions_one_file_no_lost_update() {
    let t = sb();
    t.put("f.txt", b"a b\n");
    let other = Session::new(Config::new(&t.root).with_root(&t.root));
    t.read("f.txt");
    other.call("Read", &json!({"file_path": "f.txt"})).unwrap();
    t.edit("f.txt", "a", "x").unwrap();
    let e = other
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "b", "new_string": "y"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert_eq!(t.get("f.txt"), b"x b\n");
}

#[test]
fn session_5_evicted_file_needs_a_reread() {
    let t = sb_with(|mut c| {
        c.max_entries = 2;
        c
    });
    for n in ["a", "b", "c"] {
        t.put(n, b"x\n");
        t.read(n);
    }
    t.refused(
        "a",
        Code::NotRead,
        "Edit",
        json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
    );
    t.edit("c", "x", "y").unwrap();
    assert_eq!(t.get("c"), b"y\n");
}

// ---- DISK ----

#[test]
fn disk_1_mode_kept_no_temp_left() {
    let t = sb();
    t.put("run.sh", b"echo a\n");
    std::fs::set_permissions(t.p("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    t.read("run.sh");
    t.edit("run.sh", "a", "b").unwrap();
    assert_eq!(t.get("run.sh"), b"echo b\n");
    assert_eq!(
        std::fs::metadata(t.p("run.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o751
    );
    t.assert_no_residue();
}

#[test]
fn disk_2_symlinks_stay_links() {
    let t = sb();
    t.put("real/target.txt", b"a\n");
    std::os::unix::fs::symlink("real/target.txt", t.p("link.txt")).unwrap();
    std::os::unix::fs::symlink("link.txt", t.p("chain.txt")).unwrap();
    t.read("chain.txt");
    t.edit("chain.txt", "a", "b").unwrap();
    assert!(std::fs::symlink_metadata(t.p("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::symlink_metadata(t.p("chain.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(t.get("real/target.txt"), b"b\n");
}

#[test]
fn disk_3_hard_links_refused() {
    let t = sb();
    t.put("a.txt", b"a\n");
    std::fs::hard_link(t.p("a.txt"), t.p("b.txt")).unwrap();
    t.read("a.txt");
    t.refused(
        "a.txt",
        Code::HardLink,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(t.get("b.txt"), b"a\n");
}

#[test]
fn disk_4_read_only_refused() {
    let t = sb();
    t.put("ro.txt", b"a\n");
    std::fs::set_permissions(t.p("ro.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
    t.read("ro.txt");
    t.refused(
        "ro.txt",
        Code::PermissionDenied,
        "Edit",
        json!({"file_path": "ro.txt", "old_string": "a", "new_string": "b"}),
    );
    t.refused(
        "ro.txt",
        Code::PermissionDenied,
        "Write",
        json!({"file_path": "ro.txt", "content": "b"}),
    );
}

#[test]
fn disk_5_orphan_temp_files_are_never_read_back() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.put(".f.txt.editref-1-deadbeef.tmp", b"half");
    t.read("f.txt");
    t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
    assert_eq!(t.get(".f.txt.editref-1-deadbeef.tmp"), b"half");
}

#[test]
fn disk_6_fsync_off_is_reported() {
    let t = sb_with(|mut c| {
        c.fsync = false;
        c
    });
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    let out = t.edit("f.txt", "a", "b").unwrap();
    assert_eq!(out["durable"], false);
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    assert!(t.edit("f.txt", "a", "b").unwrap().get("durable").is_none());
}

// ---- PATH ----

#[test]
fn path_1_nul_and_empty() {
    let t = sb();
    for p in ["", "a\0b"] {
        let e = t
            .call(
                "Edit",
                json!({"file_path": p, "old_string": "a", "new_string": "b"}),
            )
            .unwrap_err();
        assert_eq!(e.code, Code::InvalidPath);
    }
}

#[test]
fn path_2_escapes_refused_for_reads_and_writes() {
    let t = sb();
    let outside = t.root.parent().unwrap().join("secret.txt");
    std::fs::write(&outside, b"s\n").unwrap();
    std::os::unix::fs::symlink(&outside, t.p("link")).unwrap();
    for p in ["../secret.txt", "link", outside.to_str().unwrap()] {
        assert_eq!(
            t.call("Read", json!({"file_path": p})).unwrap_err().code,
            Code::OutsideRoot,
            "{p}"
        );
        let one = Session::new(Config::new(&t.root).with_root(&t.root).one_shot());
        let e = one
            .call(
                "Edit",
                &json!({"file_path": p, "old_string": "s", "new_string": "x"}),
            )
            .unwrap_err();
        assert_eq!(e.code, Code::OutsideRoot, "{p}");
        let e = one
            .call("Write", &json!({"file_path": p, "content": "x"}))
            .unwrap_err();
        assert_eq!(e.code, Code::OutsideRoot, "{p}");
    }
    assert_eq!(std::fs::read(&outside).unwrap(), b"s\n");
}

#[test]
fn path_3_special_files_never_written() {
    let t = sb();
    let fifo = t.p("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let one = Session::new(Config::new(&t.root).one_shot());
    let e = one
        .call("Write", &json!({"file_path": "pipe", "content": "x"}))
        .unwrap_err();
    assert_eq!(e.code, Code::NotRegularFile);
    let e = one
        .call(
            "Edit",
            &json!({"file_path": "pipe", "old_string": "a", "new_string": "b"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::NotRegularFile);
}

#[test]
fn path_4_hostile_inputs_get_coded_errors() {
    let t = sb();
    t.put("f.txt", b"a\n");
    for input in [
        json!(null),
        json!([1, 2]),
        json!({"file_path": ["x"]}),
        json!({"file_path": "f.txt", "old_string": {"a": 1}, "new_string": "b"}),
        json!({"file_path": "x".repeat(10_000), "old_string": "a", "new_string": "b"}),
    ] {
        for tool in ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Nope"] {
            let e = t.call(tool, input.clone()).unwrap_err();
            assert!(!e.code.as_str().is_empty());
        }
    }
    assert_eq!(t.get("f.txt"), b"a\n");
    t.assert_no_residue();
}
