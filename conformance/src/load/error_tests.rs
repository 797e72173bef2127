//! The located errors' tests: what a case author reads for each kind of problem.

use super::super::parse_case;
use super::super::tests_support::{first_error, parse, GOOD};

#[test]
fn unknown_field_names_file_line_and_field() {
    let bad = GOOD.replace("  b.bin: {bytes_hex", "  b.bin: {colour: red, bytes_hex");
    let e = first_error(&bad);
    assert_eq!(e.file, "cases/edit/sample.yaml");
    assert_eq!(e.line, 9, "{e}");
    assert_eq!(e.field, "colour", "{e}");
    assert!(
        e.to_string().starts_with("cases/edit/sample.yaml:9:"),
        "{e}"
    );
}

#[test]
fn malformed_yaml_never_panics_and_is_located() {
    let samples = [
        "",
        "id: [",
        "{",
        "- - -",
        "id: edit/sample\nid: edit/sample\n",
        "files: {a: {text: 1}}",
        "\u{0}\u{1}",
        "id: &a [*a]",
        "steps: !!binary AAAA",
        "a: &a [x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
        "title: |\n  x\n  y\n",
        "a: b: c",
        "'",
        "---\n---\n",
        "level: core\n  bad indent: 1",
    ];
    for s in samples {
        let r = parse(s);
        let errs = r.expect_err(s);
        assert!(!errs.is_empty());
        assert!(
            errs[0].to_string().starts_with("cases/edit/sample.yaml"),
            "{}",
            errs[0]
        );
    }
    // A truncation at every byte of a valid case must fail cleanly or succeed, never panic.
    for end in 0..GOOD.len() {
        if GOOD.is_char_boundary(end) {
            let _ = parse(&GOOD[..end]);
        }
    }
    let _ = parse_case("x", "edit/sample.yaml", &[0xFF, 0xFE, b'i']);
}

#[test]
fn a_type_error_names_the_field_on_its_line() {
    let bad = GOOD
        .replace("allow_residue", "x")
        .replace("expect_files:\n", "allow_residue: [1]\nexpect_files:\n");
    let e = first_error(&bad);
    assert_eq!(e.field, "allow_residue", "{e}");
    assert!(e.line > 0, "{e}");
}
