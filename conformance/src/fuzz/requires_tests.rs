//! Tests of [`super`]: `curly_quotes` is required exactly when MATCH-2's quote normalisation is
//! what finds a quoted text; the kinds of file every tool meets are guards, never required.
use super::super::dialects::{Chunk, PatchOp};
use super::super::gen::{GenCase, GenEdit, GenFile, GenStep};
use super::super::parts::Encoding;
use super::{guards, requires};

const TEXT: &str =
    "\tsay \u{201C}name\u{201D} and it\u{2019}s index\n    print('result gamma')\n\tcount foo\n";

fn case(steps: Vec<GenStep>) -> GenCase {
    GenCase {
        files: vec![GenFile {
            path: "a.txt".into(),
            text: TEXT.into(),
            encoding: Encoding::Utf8,
            mode: 0o644,
        }],
        links: Vec::new(),
        hardlinks: Vec::new(),
        steps,
    }
}

fn patch(quoted: &str) -> GenStep {
    GenStep::Patch {
        ops: vec![PatchOp::Update {
            path: "a.txt".into(),
            chunks: vec![Chunk {
                anchor: None,
                lines: vec![
                    (' ', quoted.into()),
                    ('-', "\tcount foo".into()),
                    ('+', "x".into()),
                ],
            }],
        }],
    }
}

fn edit(old: &str) -> GenStep {
    GenStep::Edit {
        path: "a.txt".into(),
        edit: GenEdit {
            old: old.into(),
            new: "y".into(),
            replace_all: false,
        },
    }
}

fn needs_curly(steps: Vec<GenStep>) -> bool {
    requires(&case(steps)).iter().any(|f| f == "curly_quotes")
}

#[test]
fn a_straight_quote_quoted_as_the_file_has_it_needs_no_normalisation() {
    // The file holds curly quotes on one line and a straight one on the next (MATCH-2 is not
    // involved when the quoted line is the file's own).
    assert!(!needs_curly(vec![patch("    print('result gamma')")]));
    assert!(!needs_curly(vec![edit("print('result gamma')")]));
}

#[test]
fn curly_quotes_typed_straight_need_normalisation() {
    assert!(needs_curly(vec![patch("\tsay \"name\" and it's index")]));
    assert!(needs_curly(vec![edit("it's index")]));
}

#[test]
fn a_typo_that_no_quote_change_mends_needs_no_normalisation() {
    assert!(!needs_curly(vec![edit("print('resxlt gamma')")]));
    assert!(!needs_curly(vec![edit("it's indax")]));
}

#[test]
fn a_quote_found_in_text_a_step_wrote_needs_no_normalisation() {
    let write = GenStep::Write {
        path: "b.txt".into(),
        content: "let s = 'q';\n".into(),
    };
    assert!(!needs_curly(vec![write, edit("'q'")]));
}

/// Files of the kinds every tool meets need no feature of their own, and are named as guards;
/// what a call asks of the tool is required.
#[test]
fn guard_files_need_only_the_tools_and_a_crlf_call_needs_crlf() {
    let mut c = case(vec![
        GenStep::Read {
            path: "link.txt".into(),
            window: None,
        },
        edit("one\ntwo"),
    ]);
    c.files[0].text = "one\r\ntwo\rthree\n".into();
    c.files[0].encoding = Encoding::Utf16Le;
    c.files[0].mode = 0o755;
    c.links.push(("link.txt".into(), "a.txt".into()));
    assert_eq!(requires(&c), ["read", "edit"]);
    assert_eq!(
        guards(&c),
        ["crlf", "mixed_eol", "utf16le", "symlink", "posix_mode"]
    );
    c.steps.push(edit("two\r\nthree"));
    assert_eq!(requires(&c), ["read", "edit", "crlf"]);
    let plain = case(vec![edit("x")]);
    assert!(guards(&plain).is_empty(), "{:?}", guards(&plain));
}
