//! The model of `dialect_inputs`: how the JSON entry must read an input object, written from
//! the spec — D29 (the lenient readings of a value), EDITOR-1 (the text editor's commands and
//! parameters), LINES-1 (LineEdit's fields) and ALIAS-1..3 (other agents' spellings of Edit's
//! and Write's parameters; ALIAS-6's list of edits is not Edit's typed input) — and sharing nothing with the library's readers but the typed
//! inputs the verdict is expressed in.
//!
//! A verdict lists the faults of an input. No fault: the input is accepted as the value the
//! model built. Some fault: it is refused with `invalid_input`, and `field` names one of them.
//! Where the spec does not settle a reading (a numeric string padded with spaces, `1e2` as a
//! whole number, a string inside `view_range`) the field is *open*: the library may accept or
//! refuse it, but a refusal must still name a fault or an open field.

use editref::api::{EditInput, EditorCommand, LineEditInput, TextEditorInput, WriteInput};
use serde_json::{Map, Value};

/// What `field` of a refusal may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The one field at fault.
    Field(String),
    /// ALIAS-3: a listing of keys, separated by commas, in any order.
    Keys(Vec<String>),
}

impl Answer {
    /// Whether an error's `field` is this answer.
    pub fn matches(&self, field: &str) -> bool {
        match self {
            Answer::Field(f) => f == field,
            Answer::Keys(keys) => {
                // Compared as multisets of comma-separated pieces, so a key that itself holds a
                // comma cannot make two right answers look different.
                let mut want: Vec<&str> = keys.iter().flat_map(|k| k.split(',')).collect();
                let mut got: Vec<&str> = field.split(',').collect();
                want.sort_unstable();
                got.sort_unstable();
                want == got
            }
        }
    }
}

/// The model's reading of one input.
#[derive(Debug, Clone)]
pub struct Verdict<T> {
    /// Every fault the input has (empty: it must be accepted).
    pub faults: Vec<Answer>,
    /// Fields whose reading the spec leaves open.
    pub open: Vec<String>,
    /// The accepted input, when there is no fault and nothing open.
    pub value: Option<T>,
}

impl<T> Verdict<T> {
    /// Whether a refusal naming `field` is one the model allows.
    pub fn allows(&self, field: &str) -> bool {
        self.faults.iter().any(|a| a.matches(field)) || self.open.iter().any(|o| o == field)
    }
}

/// One value read as a field of some kind: absent (missing or `null`), read, open or wrong.
#[derive(Debug, Clone, PartialEq)]
enum Read<T> {
    Absent,
    Ok(T),
    Open,
    Bad,
}

/// A string: any JSON string.
fn string(v: Option<&Value>) -> Read<String> {
    match v {
        None | Some(Value::Null) => Read::Absent,
        Some(Value::String(s)) => Read::Ok(s.clone()),
        Some(_) => Read::Bad,
    }
}

/// D29: a boolean, or the strings `"true"` and `"false"`.
fn boolean(v: Option<&Value>) -> Read<bool> {
    match v {
        None | Some(Value::Null) => Read::Absent,
        Some(Value::Bool(b)) => Read::Ok(*b),
        Some(Value::String(s)) if s == "true" => Read::Ok(true),
        Some(Value::String(s)) if s == "false" => Read::Ok(false),
        Some(_) => Read::Bad,
    }
}

/// How a JSON number's text reads as an integer: plain digits with an optional minus give the
/// value (or `Bad` beyond 128 bits); a fraction or exponent is open when the number is whole
/// (`1e2`, `3.0`) and wrong otherwise.
fn integer_text(text: &str) -> Read<i128> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<i128>().map_or(Read::Bad, Read::Ok);
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() && f.fract() == 0.0 => Read::Open,
        _ => Read::Bad,
    }
}

/// D29: a whole number of at least 0 that fits 64 bits, or a string of digits that is one.
/// A string of digits with spaces or a `+` around them is open.
fn whole(v: Option<&Value>) -> Read<u64> {
    match v {
        None | Some(Value::Null) => Read::Absent,
        Some(Value::Number(n)) => match integer_text(&n.to_string()) {
            Read::Ok(i) => u64::try_from(i).map_or(Read::Bad, Read::Ok),
            other => other.map_absent(),
        },
        Some(Value::String(s)) => {
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                s.parse::<u64>().map_or(Read::Bad, Read::Ok)
            } else if s.chars().any(|c| c.is_ascii_digit())
                && s.chars()
                    .all(|c| c.is_ascii_digit() || c.is_whitespace() || c == '+')
            {
                Read::Open
            } else {
                Read::Bad
            }
        }
        Some(_) => Read::Bad,
    }
}

impl<T> Read<T> {
    /// A non-`Ok` reading carried over to another type.
    fn map_absent<U>(self) -> Read<U> {
        match self {
            Read::Absent => Read::Absent,
            Read::Open => Read::Open,
            Read::Ok(_) | Read::Bad => Read::Bad,
        }
    }
}

/// EDITOR-2: `view_range` is two whole numbers (negative ones too: `-1` means the end). Numbers
/// beyond 64 bits, whole numbers written with a fraction or exponent, and numeric strings are
/// open.
fn range(v: Option<&Value>) -> Read<[i64; 2]> {
    let element = |e: &Value| -> Read<i64> {
        match e {
            Value::Number(n) => match integer_text(&n.to_string()) {
                Read::Ok(i) => i64::try_from(i).map_or(Read::Open, Read::Ok),
                other => other.map_absent(),
            },
            Value::String(_) => match whole(Some(e)) {
                Read::Ok(_) | Read::Open => Read::Open,
                _ => Read::Bad,
            },
            _ => Read::Bad,
        }
    };
    match v {
        None | Some(Value::Null) => Read::Absent,
        Some(Value::Array(a)) if a.len() == 2 => match (element(&a[0]), element(&a[1])) {
            (Read::Ok(x), Read::Ok(y)) => Read::Ok([x, y]),
            (Read::Bad, _) | (_, Read::Bad) => Read::Bad,
            _ => Read::Open,
        },
        Some(_) => Read::Bad,
    }
}

/// Collects faults and open fields while a verdict is built.
#[derive(Default)]
struct Faults {
    faults: Vec<Answer>,
    open: Vec<String>,
}

impl Faults {
    fn fault(&mut self, field: &str) {
        self.faults.push(Answer::Field(field.to_string()));
    }

    /// A required field: its value, or a fault (missing and wrong alike name it).
    fn required<T>(&mut self, field: &str, r: Read<T>) -> Option<T> {
        match r {
            Read::Ok(v) => Some(v),
            Read::Open => {
                self.open.push(field.to_string());
                None
            }
            Read::Absent | Read::Bad => {
                self.fault(field);
                None
            }
        }
    }

    /// An optional field: `Some(None)` when absent, `None` when it is wrong or open.
    fn optional<T>(&mut self, field: &str, r: Read<T>) -> Option<Option<T>> {
        match r {
            Read::Absent => Some(None),
            Read::Ok(v) => Some(Some(v)),
            Read::Open => {
                self.open.push(field.to_string());
                None
            }
            Read::Bad => {
                self.fault(field);
                None
            }
        }
    }

    /// Every key of `map` that is not in `known` is a fault, named by the key.
    fn unknown(&mut self, map: &Map<String, Value>, known: &[&str]) {
        for k in map.keys() {
            if !known.contains(&k.as_str()) {
                self.fault(k);
            }
        }
    }

    fn verdict<T>(self, value: Option<T>) -> Verdict<T> {
        let clean = self.faults.is_empty() && self.open.is_empty();
        Verdict {
            faults: self.faults,
            open: self.open,
            value: value.filter(|_| clean),
        }
    }
}

/// EDITOR-1: the commands and the parameters each takes besides `command` and `path`;
/// deliberately duplicates the spec's table (not `src/api/text_editor.rs`'s), as a model must.
const COMMANDS: [(&str, EditorCommand, &[&str]); 5] = [
    ("view", EditorCommand::View, &["view_range"]),
    ("create", EditorCommand::Create, &["file_text"]),
    (
        "str_replace",
        EditorCommand::StrReplace,
        &["old_str", "new_str"],
    ),
    (
        "insert",
        EditorCommand::Insert,
        &["insert_line", "insert_text", "new_str"],
    ),
    ("undo_edit", EditorCommand::UndoEdit, &[]),
];

/// Every parameter of the text editor other than `command` and `path`.
const EDITOR_PARAMS: [&str; 6] = [
    "view_range",
    "file_text",
    "old_str",
    "new_str",
    "insert_line",
    "insert_text",
];

/// EDITOR-1 as the JSON entry reads it: known keys only, a known command, no parameter of
/// another command with a value other than `null`, each value of its kind.
pub fn text_editor(map: &Map<String, Value>) -> Verdict<TextEditorInput> {
    let mut f = Faults::default();
    let mut known = vec!["command", "path"];
    known.extend(EDITOR_PARAMS);
    f.unknown(map, &known);
    let command = match map.get("command") {
        Some(Value::String(name)) => COMMANDS.iter().find(|(n, _, _)| n == name),
        _ => None,
    };
    if command.is_none() {
        f.fault("command");
    }
    if let Some((_, _, takes)) = command {
        for p in EDITOR_PARAMS {
            let given = !matches!(map.get(p), None | Some(Value::Null));
            if given && !takes.contains(&p) {
                f.fault(p);
            }
        }
    }
    let path = f.required("path", string(map.get("path")));
    let view_range = f.optional("view_range", range(map.get("view_range")));
    let file_text = f.optional("file_text", string(map.get("file_text")));
    let old_str = f.optional("old_str", string(map.get("old_str")));
    let new_str = f.optional("new_str", string(map.get("new_str")));
    let insert_line = f.optional("insert_line", whole(map.get("insert_line")));
    let insert_text = f.optional("insert_text", string(map.get("insert_text")));
    let value = (|| {
        Some(TextEditorInput {
            command: command?.1,
            path: path?,
            view_range: view_range?,
            file_text: file_text?,
            old_str: old_str?,
            new_str: new_str?,
            insert_line: insert_line?,
            insert_text: insert_text?,
        })
    })();
    f.verdict(value)
}

/// What a text editor command must refuse before it looks at any file (EDITOR-1: a parameter
/// the command needs is missing; EDITOR-4: an empty `old_str`; EDITOR-5: the insert text given
/// twice or not at all): the fields the refusal may name, empty when there is nothing to refuse.
pub fn command_refusal(input: &TextEditorInput) -> Vec<&'static str> {
    let mut out = Vec::new();
    match input.command {
        EditorCommand::Create if input.file_text.is_none() => out.push("file_text"),
        EditorCommand::StrReplace if input.old_str.as_deref().is_none_or(str::is_empty) => {
            out.push("old_str")
        }
        EditorCommand::Insert => {
            if input.insert_line.is_none() {
                out.push("insert_line");
            }
            if input.insert_text.is_some() == input.new_str.is_some() {
                out.extend(["insert_text", "new_str"]);
            }
        }
        _ => {}
    }
    out
}

/// LINES-1: four required fields, two optional ones, nothing else.
pub fn line_edit(map: &Map<String, Value>) -> Verdict<LineEditInput> {
    let mut f = Faults::default();
    f.unknown(
        map,
        &[
            "file_path",
            "start_line",
            "end_line",
            "new_content",
            "expected_text",
            "dry_run",
        ],
    );
    let file_path = f.required("file_path", string(map.get("file_path")));
    let start_line = f.required("start_line", whole(map.get("start_line")));
    let end_line = f.required("end_line", whole(map.get("end_line")));
    let new_content = f.required("new_content", string(map.get("new_content")));
    let expected_text = f.optional("expected_text", string(map.get("expected_text")));
    let dry_run = f.optional("dry_run", boolean(map.get("dry_run")));
    let value = (|| {
        Some(LineEditInput {
            file_path: file_path?,
            start_line: start_line?,
            end_line: end_line?,
            new_content: new_content?,
            expected_text: expected_text?,
            dry_run: dry_run?.unwrap_or(false),
        })
    })();
    f.verdict(value)
}

/// ALIAS-1: each agent's names for Edit's parameters, as (canonical, spelling) pairs, editref's
/// own names first; deliberately duplicates the spec's table, not the library's.
const EDIT_AGENTS: [&[(&str, &str)]; 6] = [
    &[
        ("file_path", "file_path"),
        ("old_string", "old_string"),
        ("new_string", "new_string"),
        ("replace_all", "replace_all"),
        ("expected_replacements", "expected_replacements"),
        ("dry_run", "dry_run"),
    ],
    // OpenCode
    &[
        ("file_path", "filePath"),
        ("old_string", "oldString"),
        ("new_string", "newString"),
        ("replace_all", "replaceAll"),
        ("dry_run", "dry_run"),
    ],
    // Kiro
    &[
        ("file_path", "path"),
        ("old_string", "oldStr"),
        ("new_string", "newStr"),
        ("dry_run", "dry_run"),
    ],
    // Pi
    &[
        ("file_path", "path"),
        ("old_string", "oldText"),
        ("new_string", "newText"),
        ("dry_run", "dry_run"),
    ],
    // Anthropic's text editor
    &[
        ("file_path", "path"),
        ("old_string", "old_str"),
        ("new_string", "new_str"),
        ("dry_run", "dry_run"),
    ],
    // Gemini CLI (`instruction` is read, a string, and dropped)
    &[
        ("file_path", "file_path"),
        ("instruction", "instruction"),
        ("old_string", "old_string"),
        ("new_string", "new_string"),
        ("replace_all", "allow_multiple"),
        ("expected_replacements", "expected_replacements"),
        ("dry_run", "dry_run"),
    ],
];

/// ALIAS-1: each agent's names for Write's parameters (editref, OpenCode, Kiro, Pi, Anthropic,
/// Gemini CLI); deliberately duplicates the spec's table, not the library's.
const WRITE_AGENTS: [&[(&str, &str)]; 6] = [
    &[("file_path", "file_path"), ("content", "content")],
    &[("file_path", "filePath"), ("content", "content")],
    &[("file_path", "path"), ("content", "text")],
    &[("file_path", "path"), ("content", "content")],
    &[("file_path", "path"), ("content", "file_text")],
    &[("file_path", "file_path"), ("content", "content")],
];

/// ALIAS-2/3: the input with its keys renamed to the canonical names when one agent spells
/// every key of the table that it uses; otherwise the faults of a mixed call (the keys listed,
/// or a key outside the table by its name).
fn canonical(
    map: &Map<String, Value>,
    agents: &[&[(&str, &str)]],
) -> Result<Map<String, Value>, Vec<Answer>> {
    let in_table = |k: &str| agents.iter().any(|a| a.iter().any(|(_, s)| *s == k));
    let spelled: Vec<&String> = map.keys().filter(|k| in_table(k)).collect();
    let agent = agents
        .iter()
        .find(|a| spelled.iter().all(|k| a.iter().any(|(_, s)| s == k)));
    let Some(agent) = agent else {
        let mut answers = vec![
            Answer::Keys(map.keys().cloned().collect()),
            Answer::Keys(spelled.iter().map(|k| (*k).clone()).collect()),
        ];
        answers.extend(
            map.keys()
                .filter(|k| !in_table(k))
                .map(|k| Answer::Field(k.clone())),
        );
        return Err(answers);
    };
    Ok(map
        .iter()
        .map(|(k, v)| {
            let name = agent
                .iter()
                .find(|(_, s)| s == k)
                .map_or(k.as_str(), |(c, _)| c);
            (name.to_string(), v.clone())
        })
        .collect())
}

/// Edit's JSON entry (ALIAS-1..3, ALIAS-5's `0`, D29). Edit's typed input is one replacement:
/// Pi's list of edits (ALIAS-6) is an unknown key `edits` to it.
pub fn edit(map: &Map<String, Value>) -> Verdict<EditInput> {
    let map = match canonical(map, &EDIT_AGENTS) {
        Ok(m) => m,
        Err(faults) => return mixed(faults),
    };
    let mut f = Faults::default();
    f.unknown(
        &map,
        &[
            "file_path",
            "instruction",
            "old_string",
            "new_string",
            "replace_all",
            "expected_replacements",
            "dry_run",
        ],
    );
    // Gemini CLI's instruction: a string (or absent), with no effect.
    let _ = f.optional("instruction", string(map.get("instruction")));
    let file_path = f.required("file_path", string(map.get("file_path")));
    let old_string = f.required("old_string", string(map.get("old_string")));
    let new_string = f.required("new_string", string(map.get("new_string")));
    let replace_all = f.optional("replace_all", boolean(map.get("replace_all")));
    let count = match whole(map.get("expected_replacements")) {
        Read::Ok(0) => Read::Bad,
        r => r,
    };
    let expected_replacements = f.optional("expected_replacements", count);
    let dry_run = f.optional("dry_run", boolean(map.get("dry_run")));
    let value = (|| {
        Some(EditInput {
            file_path: file_path?,
            old_string: old_string?,
            new_string: new_string?,
            replace_all: replace_all?.unwrap_or(false),
            expected_replacements: expected_replacements?,
            dry_run: dry_run?.unwrap_or(false),
        })
    })();
    f.verdict(value)
}

/// Write's JSON entry (ALIAS-1..3, D29).
pub fn write(map: &Map<String, Value>) -> Verdict<WriteInput> {
    let map = match canonical(map, &WRITE_AGENTS) {
        Ok(m) => m,
        Err(faults) => return mixed(faults),
    };
    let mut f = Faults::default();
    f.unknown(&map, &["file_path", "content"]);
    let file_path = f.required("file_path", string(map.get("file_path")));
    let content = f.required("content", string(map.get("content")));
    let value = (|| {
        Some(WriteInput {
            file_path: file_path?,
            content: content?,
        })
    })();
    f.verdict(value)
}

fn mixed<T>(faults: Vec<Answer>) -> Verdict<T> {
    Verdict {
        faults,
        open: Vec::new(),
        value: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn readings_follow_d29() {
        assert_eq!(whole(Some(&json!("12"))), Read::Ok(12));
        assert_eq!(whole(Some(&json!(" 12"))), Read::Open);
        assert_eq!(whole(Some(&json!("12a"))), Read::Bad);
        assert_eq!(whole(Some(&json!(-1))), Read::Bad);
        assert_eq!(whole(Some(&json!(1.5))), Read::Bad);
        assert_eq!(whole(Some(&json!(null))), Read::Absent);
        assert_eq!(boolean(Some(&json!("true"))), Read::Ok(true));
        assert_eq!(boolean(Some(&json!("True"))), Read::Bad);
        assert_eq!(range(Some(&json!([2, -1]))), Read::Ok([2, -1]));
        assert_eq!(range(Some(&json!([2, "3"]))), Read::Open);
        assert_eq!(range(Some(&json!([2]))), Read::Bad);
    }

    #[test]
    fn alias_spellings_and_mixtures() {
        let v = edit(&obj(json!({"path": "a", "oldStr": "x", "newStr": "y"})));
        assert!(v.faults.is_empty(), "{v:?}");
        assert_eq!(v.value.map(|e| e.file_path), Some("a".to_string()));
        let v = edit(&obj(
            json!({"filePath": "a", "old_str": "x", "new_str": "y"}),
        ));
        assert!(v.allows("filePath,old_str,new_str") && v.allows("new_str,old_str,filePath"));
        assert!(!v.allows("filePath"));
        let v = write(&obj(json!({"path": "a", "text": "x"})));
        assert!(v.value.is_some(), "{v:?}");
        let v = edit(&obj(
            json!({"file_path": "a", "old_string": "x", "new_string": "y",
                                 "expected_replacements": 0}),
        ));
        assert!(v.allows("expected_replacements") && v.value.is_none());
    }

    #[test]
    fn editor_parameters_belong_to_their_command() {
        let v = text_editor(&obj(
            json!({"command": "view", "path": "a", "old_str": "x"}),
        ));
        assert!(v.allows("old_str") && v.value.is_none());
        let v = text_editor(&obj(
            json!({"command": "view", "path": "a", "old_str": null}),
        ));
        assert!(v.faults.is_empty() && v.value.is_some(), "{v:?}");
        let v = text_editor(&obj(
            json!({"command": "insert", "path": "a", "insert_line": 1}),
        ));
        let input = v.value.expect("accepted");
        assert_eq!(command_refusal(&input), vec!["insert_text", "new_str"]);
    }
}
