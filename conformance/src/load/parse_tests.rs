//! The tests of loading one case file as a whole.

use super::super::tests_support::{first_error, parse, GOOD};
use super::*;
use crate::case::{Expect, Step};

#[test]
fn a_good_case_loads_byte_exactly() {
    let case = parse(GOOD).unwrap();
    assert_eq!(case.level, Level::Core);
    assert_eq!(case.files.len(), 4);
    let get = |p: &str| case.files.iter().find(|(k, _)| k == p).unwrap().1.clone();
    assert_eq!(
        get("a.txt").content,
        Content::Bytes(b"one\r\ntwo\n".to_vec())
    );
    assert_eq!(get("a.txt").mode, Some(0o644));
    assert_eq!(get("b.bin").content, Content::Bytes(vec![0xFF, 0xFE, 0]));
    assert_eq!(get("../outside.txt").content, Content::Bytes(vec![b'x', 0]));
    assert_eq!(case.steps.len(), 8);
    assert_eq!(
        case.steps[7],
        Step::Link {
            path: "l".into(),
            target: "../outside.txt".into()
        }
    );
    assert!(matches!(
        case.steps[3],
        Step::Touch {
            shift_ns: -5_000_000_000,
            ..
        }
    ));
    assert!(
        matches!(&case.steps[5], Step::Call { expect: Some(Expect::Error { code, .. }), .. } if code == "permission_denied")
    );
}

#[test]
fn semantic_errors_are_located() {
    let bad = GOOD.replace("level: core", "level: basic");
    let e = first_error(&bad);
    assert_eq!((e.line, e.field.as_str()), (4, "level"), "{e}");

    let bad = GOOD.replace("id: edit/sample", "id: edit/other");
    assert_eq!(first_error(&bad).field, "id");

    let bad = GOOD.replace("requires: [read, edit]", "requires: [read, teleport]");
    let e = first_error(&bad);
    assert_eq!((e.line, e.field.as_str()), (5, "requires[1]"), "{e}");

    let bad = GOOD.replace(
        "{bytes_hex: \"FF fe 00\"}",
        "{bytes_hex: \"FF\", text: \"x\"}",
    );
    let e = first_error(&bad);
    assert_eq!((e.line, e.field.as_str()), (9, "files.b.bin"), "{e}");
    assert!(e.message.contains("exactly one content source"), "{e}");

    let bad = GOOD.replace("tool: Edit\n", "tool: Delete\n");
    let e = first_error(&bad);
    assert_eq!(e.field, "steps[1].call.tool", "{e}");
    assert_eq!(e.line, 15, "{e}");

    let bad = GOOD.replace(
        "- remove: {path: b.bin}",
        "- remove: {path: b.bin}\n    touch: {path: a.txt, mtime: \"+1s\"}",
    );
    assert!(first_error(&bad).message.contains("exactly one of"));

    let bad = GOOD.replace("mtime: \"-5s\"", "mtime: \"soon\"");
    assert_eq!(first_error(&bad).field, "steps[3].touch.mtime");

    let bad = GOOD.replace("{absent: true}", "{absent: true, text: \"x\"}");
    assert!(first_error(&bad).message.contains("absent"));

    let bad = GOOD.replace("../outside.txt", "../../escape.txt");
    assert_eq!(first_error(&bad).field, "files.../../escape.txt");

    let bad = GOOD.replace(
        "text: \"z\", keep_mtime: true",
        "text: \"z\", unchanged: true",
    );
    assert_eq!(first_error(&bad).field, "steps[2].modify.unchanged");

    let bad = GOOD.replace("symlink: \"../outside.txt\"}", "text: \"x\"}");
    let e = first_error(&bad);
    assert_eq!(e.field, "steps[7].link.text", "{e}");
    let bad = GOOD.replace(", symlink: \"../outside.txt\"}", "}");
    let e = first_error(&bad);
    assert_eq!(e.field, "steps[7].link.symlink", "{e}");
    assert!(e.message.contains("symlink: TARGET"), "{e}");
}

#[test]
fn paths_of_case_files_fix_the_id() {
    assert_eq!(id_from_path("eol/crlf.yaml").as_deref(), Some("eol/crlf"));
    assert_eq!(id_from_path("crlf.yaml"), None);
    assert_eq!(id_from_path("a/b/c.yaml"), None);
    assert_eq!(id_from_path("a/b.yml"), None);
    let e = parse_case("x", "deep/er/case.yaml", GOOD.as_bytes()).unwrap_err();
    assert!(e[0].message.contains("<area>/<name>.yaml"));
}
