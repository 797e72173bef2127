//! The tests of expectations: replies, final files and the classes a case names.

use crate::case::{Class, Step};

fn case(expect: &str, file: &str) -> Result<crate::case::Case, String> {
    let text = format!(
        "id: read/t\ntitle: t\nspec: [READ-1]\nlevel: core\nrequires: [read]\nsince: \"0.1.0\"\n\
         files:\n  a.txt: {{text: \"a\"}}\nsteps:\n  - call: {{tool: Read, input: {{file_path: a.txt}}}}\n    \
         expect: {expect}\nexpect_files:\n  a.txt: {file}\n"
    );
    crate::load::parse_case("t", "read/t.yaml", text.as_bytes()).map_err(|e| format!("{e:?}"))
}

#[test]
fn an_expectation_may_name_its_class() {
    let c = case(
        "{ok: true, output: {type: text}, class: data}",
        "{unchanged: true, class: contract}",
    )
    .unwrap();
    assert!(matches!(
        c.steps[0],
        Step::Call {
            class: Some(Class::Data),
            ..
        }
    ));
    assert_eq!(c.expect_files[0].1.class, Some(Class::Contract));
    let c = case("{ok: true}", "{unchanged: true}").unwrap();
    assert!(matches!(c.steps[0], Step::Call { class: None, .. }));
    let e = case("{ok: true, class: bytes}", "{unchanged: true}").unwrap_err();
    assert!(e.contains("unknown class 'bytes'"), "{e}");
    let e = case("{ok: true}", "{text: \"a\", class: nope}").unwrap_err();
    assert!(e.contains("unknown class 'nope'"), "{e}");
}
