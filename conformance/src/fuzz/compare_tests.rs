//! Tests of [`super`]: the kinds, classes and order of the disagreements of one case.
use super::*;
use serde_json::json;

/// Every feature: a tool held to every field, as the reference is.
fn all() -> Vec<String> {
    editref_protocol::FEATURES.map(String::from).to_vec()
}

fn obs(answers: Vec<Answer>) -> Observation {
    Observation {
        answers,
        ..Observation::default()
    }
}

fn kinds(ds: &[Disagreement]) -> Vec<&str> {
    ds.iter().map(|d| d.kind.as_str()).collect()
}

#[test]
fn answers_are_told_apart_by_code_and_repair() {
    let tools = vec![
        Some(("Read".to_string(), Value::Null)),
        Some(("Edit".to_string(), Value::Null)),
    ];
    let read = Answer::Ok(json!({"file": {"content": "1\ta"}}));
    let repaired = Answer::Ok(json!({"repairs": ["line_prefix"]}));
    let refused = Answer::Err {
        code: "not_found".into(),
    };
    let d = compare(
        &obs(vec![read.clone(), repaired]),
        &obs(vec![read.clone(), refused.clone()]),
        &tools,
        ReadFormat::Tab,
        &all(),
    );
    assert_eq!(
        kinds(&d),
        ["Edit: refused (not_found) where the reference succeeds after repairing line_prefix"]
    );
    assert_eq!(d[0].call, Some(2));
    let d = compare(
        &obs(vec![read.clone(), refused.clone()]),
        &obs(vec![read.clone(), Answer::Ok(json!({}))]),
        &tools,
        ReadFormat::Tab,
        &all(),
    );
    assert_eq!(
        kinds(&d),
        ["Edit: accepted where the reference refuses (not_found)"]
    );
    // A Read in the plain form agrees with the spec's numbered form.
    let plain = Answer::Ok(json!({"file": {"content": "a"}}));
    let same = compare(
        &obs(vec![read.clone(), refused.clone()]),
        &obs(vec![plain.clone(), refused.clone()]),
        &tools,
        ReadFormat::Plain,
        &all(),
    );
    assert_eq!(same, vec![]);
    let d = compare(
        &obs(vec![read, refused.clone()]),
        &obs(vec![plain, refused]),
        &tools,
        ReadFormat::Tab,
        &all(),
    );
    assert_eq!(kinds(&d), ["Read: shows other content"]);
    assert_eq!(d[0].class, Class::Presentation);
}

#[test]
fn every_disagreement_is_listed_and_those_after_states_part_follow() {
    let tools = vec![
        Some(("Read".to_string(), json!({}))),
        Some(("Edit".to_string(), json!({}))),
        Some(("Edit".to_string(), json!({}))),
    ];
    let edited = json!({"oldString": "a", "newString": "b", "replacements": 1, "repairs": []});
    let want = obs(vec![
        Answer::Ok(json!({"file": {"content": "1\ta"}})),
        Answer::Ok(edited.clone()),
        Answer::Ok(edited.clone()),
    ]);
    // Read shows other content (presentation), the first Edit reports two replacements
    // where the reference made one (contract), the second is refused (the states part).
    let mut twice = edited.clone();
    twice["replacements"] = json!(2);
    let got = obs(vec![
        Answer::Ok(json!({"file": {"content": "1\tA"}})),
        Answer::Ok(twice),
        Answer::Err {
            code: "not_found".into(),
        },
    ]);
    let d = compare(&want, &got, &tools, ReadFormat::Tab, &all());
    assert_eq!(
        kinds(&d),
        [
            "Read: shows other content",
            "Edit: result field replacements differs",
            "Edit: refused (not_found) where the reference succeeds"
        ]
    );
    assert_eq!(
        d.iter().map(|d| d.class).collect::<Vec<_>>(),
        [Class::Presentation, Class::Contract, Class::Capability]
    );
    assert!(d.iter().all(|d| !d.follows));
    // A tool that does not declare `result_fields` is judged on the outcome of an Edit alone,
    // as a corpus run judges it: the count that differs is no disagreement; what a Read
    // shows and the refusal still are.
    let bare: Vec<String> = ["read", "edit", "write"].map(String::from).to_vec();
    let d = compare(&want, &got, &tools, ReadFormat::Tab, &bare);
    assert_eq!(
        kinds(&d),
        [
            "Read: shows other content",
            "Edit: refused (not_found) where the reference succeeds"
        ]
    );
    // A tool whose results carry none of the fields; a refusal parts the states, so what
    // comes after it follows.
    let bare = obs(vec![
        Answer::Ok(json!({"file": {"content": "1\ta"}})),
        Answer::Err {
            code: "not_found".into(),
        },
        Answer::Ok(json!({"content": "done"})),
    ]);
    let d = compare(&want, &bare, &tools, ReadFormat::Tab, &all());
    assert_eq!(
        kinds(&d),
        [
            "Edit: refused (not_found) where the reference succeeds",
            "Edit: the result lacks oldString, newString, replacements, repairs",
            "Edit: the result has content, which the protocol does not define"
        ]
    );
    assert_eq!(
        d.iter().map(|d| d.follows).collect::<Vec<_>>(),
        [false, true, true]
    );
}

#[test]
fn a_long_line_shown_short_is_its_own_kind() {
    let long = "x".repeat(2100);
    let tools = vec![Some(("Read".to_string(), json!({})))];
    let want = obs(vec![Answer::Ok(
        json!({"file": {"content": format!("1\ta\n2\t{long}")}}),
    )]);
    let got = obs(vec![Answer::Ok(
        json!({"file": {"content": format!("1\ta\n2\t{}", &long[..2000])}}),
    )]);
    let d = compare(&want, &got, &tools, ReadFormat::Tab, &all());
    assert_eq!(kinds(&d), ["Read: cuts lines longer than 2000 characters"]);
    // A long line that only lost its lone CR is not cut: its ending differs.
    let want = obs(vec![Answer::Ok(
        json!({"file": {"content": format!("1\t{long}\r")}}),
    )]);
    let got = obs(vec![Answer::Ok(
        json!({"file": {"content": format!("1\t{long}")}}),
    )]);
    let d = compare(&want, &got, &tools, ReadFormat::Tab, &all());
    assert_eq!(kinds(&d), ["Read: shows other content"]);
}

#[test]
fn expected_outputs_are_what_the_corpus_compares() {
    let edit = json!({"filePath": "/x", "oldString": "a", "newString": "b",
        "replaceAll": false, "replacements": 1, "repairs": [], "diff": "..."});
    assert_eq!(
        expected_output("Edit", &json!({}), &edit),
        Some(json!({"oldString": "a", "newString": "b", "replacements": 1, "repairs": []}))
    );
    let editor = json!({"command": "str_replace"});
    assert_eq!(
        expected_output(
            "str_replace_based_edit_tool",
            &editor,
            &json!({"command": "str_replace", "result": edit})
        ),
        Some(
            json!({"result": {"oldString": "a", "newString": "b", "replacements": 1, "repairs": []}})
        )
    );
    let view = json!({"command": "view"});
    assert_eq!(
        expected_output(
            "str_replace_based_edit_tool",
            &view,
            &json!({"result": {"type": "text", "file": {"content": "1\ta", "numLines": 1}}})
        ),
        Some(json!({"result": {"file": {"content": "1\ta"}}}))
    );
    assert_eq!(
        expected_output("Read", &json!({}), &json!({"type": "file_unchanged"})),
        Some(json!({"type": "file_unchanged"}))
    );
    assert_eq!(
        expected_output("apply_patch", &json!({}), &json!({"files": []})),
        None
    );
}

/// A result is held to the shape the protocol defines: a field it does not define and a field
/// of another type are each a kind, with the expectation a written finding needs; a field the
/// value comparison already reports is not reported again.
#[test]
fn fields_outside_the_protocol_and_of_another_type_are_disagreements() {
    let tools = vec![Some(("Edit".to_string(), json!({})))];
    let edited = json!({"filePath": "/x", "oldString": "a", "newString": "b", "replaceAll": false,
                        "replacements": 1, "structuredPatch": [], "diff": "", "repairs": [],
                        "userModified": false});
    let want = obs(vec![Answer::Ok(edited.clone())]);
    let mut odd = edited.clone();
    odd["replaceAll"] = json!("false");
    odd["message"] = json!("edited");
    odd["replacements"] = json!("1");
    odd["dryRun"] = json!(false);
    let d = compare(
        &want,
        &obs(vec![Answer::Ok(odd)]),
        &tools,
        ReadFormat::Tab,
        &all(),
    );
    assert_eq!(
        kinds(&d),
        [
            "Edit: result field replacements differs",
            "Edit: result field replaceAll is string where the protocol has boolean",
            "Edit: the result has message, which the protocol does not define",
        ]
    );
    assert!(d.iter().all(|d| d.class == Class::Contract));
    assert_eq!(
        d[1].expect,
        Some(("replaceAll".into(), json!({"shape": "boolean"})))
    );
    assert_eq!(
        d[2].expect,
        Some(("message".into(), json!({"absent": true})))
    );
}
