//! The typed API (`session.edit(EditInput { .. })` and friends) against the JSON entry
//! (`Session::call`): the same rules, the same bytes on disk, the same result once serialized.

use editref::api::{
    EditInput, EditSpec, MultiEditInput, NotebookEditInput, ReadInput, ReadOutput, WriteInput,
    WriteKind,
};
use editref::{Code, Config, Session};
use serde_json::json;
use std::path::Path;

fn session(dir: &Path) -> Session {
    let mut config = Config::new(dir).with_root(dir);
    config.fsync = false;
    Session::new(config)
}

/// TEXT-5, TEXT-6, EDIT-5: a typed Edit of a CRLF file writes CRLF only on the edited line and
/// reports what the JSON entry reports.
#[test]
fn typed_edit_matches_the_json_entry_byte_for_byte() {
    let original = b"one\r\ntwo\r\nthree\r\n";
    let typed_dir = tempfile::tempdir().unwrap();
    let json_dir = tempfile::tempdir().unwrap();
    for d in [&typed_dir, &json_dir] {
        std::fs::write(d.path().join("a.txt"), original).unwrap();
    }

    let typed = session(typed_dir.path());
    let read = typed.read(ReadInput::new("a.txt")).unwrap();
    match &read {
        ReadOutput::Text { file } => {
            assert_eq!(file.content, "1\tone\n2\ttwo\n3\tthree");
            assert_eq!(file.total_lines, 3);
        }
        other => panic!("not text: {other:?}"),
    }
    let out = typed
        .edit(EditInput::new("a.txt", "two\n", "2\nand a half\n"))
        .unwrap();
    assert_eq!(out.replacements, 1);
    assert_eq!(
        std::fs::read(typed_dir.path().join("a.txt")).unwrap(),
        b"one\r\n2\r\nand a half\r\nthree\r\n"
    );

    let by_json = session(json_dir.path());
    by_json
        .call("Read", &json!({"file_path": "a.txt"}))
        .unwrap();
    let json_out = by_json
        .call(
            "Edit",
            &json!({"file_path": "a.txt", "old_string": "two\r\n", "new_string": "2\r\nand a half\r\n"}),
        )
        .unwrap();
    assert_eq!(
        std::fs::read(json_dir.path().join("a.txt")).unwrap(),
        b"one\r\n2\r\nand a half\r\nthree\r\n"
    );
    let typed_json = serde_json::to_value(&out).unwrap();
    for key in [
        "oldString",
        "newString",
        "replacements",
        "structuredPatch",
        "repairs",
    ] {
        assert_eq!(typed_json[key], json_out[key], "{key}");
    }
    assert_eq!(
        typed_json["structuredPatch"][0]["lines"],
        json!([" one", "-two", "+2", "+and a half", " three"])
    );
    assert!(
        typed_json.get("durable").is_some(),
        "fsync off: durable is false"
    );
    assert_eq!(typed_json["durable"], json!(false));
}

/// SESSION-1 and MATCH-3 through the typed API: refusals are coded and leave the file as it was.
#[test]
fn typed_refusals_leave_the_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    std::fs::write(&path, "x = 1\nx = 1\n").unwrap();
    let s = session(dir.path());
    let e = s
        .edit(EditInput::new("a.txt", "x = 1", "x = 2"))
        .unwrap_err();
    assert_eq!(e.code, Code::NotRead);
    s.read(ReadInput::new("a.txt")).unwrap();
    let e = s
        .edit(EditInput::new("a.txt", "x = 1", "x = 2"))
        .unwrap_err();
    assert_eq!(e.code, Code::Ambiguous);
    assert_eq!(std::fs::read(&path).unwrap(), b"x = 1\nx = 1\n");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("a.txt")],
        "no temp file left"
    );
}

/// MULTI-1..3 and WRITE-1 through the typed API.
#[test]
fn typed_multi_edit_and_write() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let created = s.write(WriteInput::new("b.py", "a = 1\nb = 2\n")).unwrap();
    assert_eq!(created.kind, WriteKind::Create);
    assert_eq!(
        serde_json::to_value(&created).unwrap()["originalFile"],
        json!(null)
    );
    let out = s
        .multi_edit(MultiEditInput {
            file_path: "b.py".into(),
            edits: vec![
                EditSpec {
                    old_string: "a = 1".into(),
                    new_string: "a = 10".into(),
                    replace_all: false,
                },
                EditSpec {
                    old_string: "b = 2".into(),
                    new_string: "b = 20".into(),
                    replace_all: false,
                },
            ],
            dry_run: false,
        })
        .unwrap();
    assert_eq!(out.edits.len(), 2);
    assert_eq!(
        std::fs::read(dir.path().join("b.py")).unwrap(),
        b"a = 10\nb = 20\n"
    );
    let e = s
        .notebook_edit(NotebookEditInput {
            notebook_path: "b.py".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.code, Code::NotNotebook);
    assert_eq!(
        std::fs::read(dir.path().join("b.py")).unwrap(),
        b"a = 10\nb = 20\n"
    );
}
