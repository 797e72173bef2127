//! REPAIR-1..6 (SPEC §1, input repair): desanitized tokens, line-number prefixes, `\uXXXX` escapes,
//! and the rule that the literal text wins.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::sb;
use editref::Code;
use serde_json::json;

/// REPAIR-1's table, copied from SPEC.md by hand (not from the code's table, so that a wrong
/// or missing entry there fails the test).
const SPEC_TABLE: [(&str, &str); 18] = [
    ("<fnr>", "<function_results>"),
    ("<n>", "<name>"),
    ("</n>", "</name>"),
    ("<o>", "<output>"),
    ("</o>", "</output>"),
    ("<e>", "<error>"),
    ("</e>", "</error>"),
    ("<s>", "<system>"),
    ("</s>", "</system>"),
    ("<r>", "<result>"),
    ("</r>", "</result>"),
    ("< META_START >", "<META_START>"),
    ("< META_END >", "<META_END>"),
    ("< EOT >", "<EOT>"),
    ("< META >", "<META>"),
    ("< SOS >", "<SOS>"),
    ("\n\nH:", "\n\nHuman:"),
    ("\n\nA:", "\n\nAssistant:"),
];

/// REPAIR-1 and REPAIR-2: each entry of the spec's table expands in `old_string`, and the same
/// entry then expands in `new_string`; the result names the repair.
#[test]
fn repair_1_every_table_entry_expands() {
    for (short, long) in SPEC_TABLE {
        let t = sb();
        t.put("f.txt", format!("x {long} y\n").as_bytes());
        t.read("f.txt");
        let out = t
            .edit("f.txt", &format!("x {short} y"), &format!("z {short}"))
            .unwrap_or_else(|e| panic!("{short:?}: {}", e.message));
        assert_eq!(out["repairs"], json!(["desanitize"]), "{short:?}");
        assert_eq!(
            t.get("f.txt"),
            format!("z {long}\n").as_bytes(),
            "{short:?}"
        );
        t.assert_no_residue();
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
