//! MATCH-1..6 (SPEC §3, matching): exact and quote-folded search, ambiguity, literal replacement,
//! the not-found hint.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::Code;
use serde_json::json;

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

/// MATCH-4 (with D26) under `replace_all`: each hit found by quote folding is styled after its
/// own text. Hit 1 has curly doubles only, hit 2 curly singles only, hit 3 both; none is an
/// exact match, so MATCH-2 finds all three. A `"` opens at the start and after a space and
/// closes elsewhere; a `'` between two letters is an apostrophe.
#[test]
fn match_4_quote_style_per_hit() {
    let t = sb();
    t.put(
        "f.txt",
        "“a” or 'b'\n\"a\" or ‘b’\n“a” or ‘b’\nkeep \"a\" 'b'\n".as_bytes(),
    );
    t.read("f.txt");
    let out = t
        .call(
            "Edit",
            json!({"file_path": "f.txt", "old_string": "\"a\" or 'b'",
                   "new_string": "\"c's\" or 'd'", "replace_all": true}),
        )
        .unwrap();
    assert_eq!(out["replacements"], 3);
    assert_eq!(out["oldString"], "“a” or 'b'");
    assert_eq!(out["newString"], "“c's” or 'd'");
    assert_eq!(
        t.get("f.txt"),
        "“c's” or 'd'\n\"c’s\" or ‘d’\n“c’s” or ‘d’\nkeep \"a\" 'b'\n".as_bytes()
    );
    t.assert_no_residue();

    // A single hit with curly singles next to curly doubles that are not part of it.
    let t = sb();
    t.put("f.txt", "“a” and ‘a’\n".as_bytes());
    t.read("f.txt");
    t.edit("f.txt", "'a'", "'it's b'").unwrap();
    assert_eq!(t.get("f.txt"), "“a” and ‘it’s b’\n".as_bytes());
    t.assert_no_residue();
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
