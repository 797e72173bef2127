//! `dialect_inputs`: the JSON front ends of the dialects and of the other agents' spellings —
//! `TextEditorInput::from_json` (EDITOR-1), `LineEditInput::from_json` (LINES-1) and Edit's and
//! Write's entries through the alias reading (ALIAS-1..3, ALIAS-5's `0`) — against the model
//! of `dialect_model`, with D29's lenient readings.
//!
//! An input is an object built from keys and values picked from pools that hold every name the
//! readers know, other agents' names, near misses and free text, and values of every kind D29
//! speaks of. For each:
//! - the model finds no fault: the reader accepts it, as exactly the value the model built;
//! - the model finds faults: the reader refuses with `invalid_input`, whose `field` names one of
//!   them (a mixture of spellings: the keys listed) and whose message names that field too;
//! - an accepted text editor `create`, `str_replace` or `insert` is also run, through
//!   `Session::call` under either tool name, in an empty sandbox that is its root: a command
//!   missing what it needs (EDITOR-1/4/5) is refused naming it before any file is looked at, and
//!   one that has it is never refused for its parameters — there is no file to act on, so it is
//!   refused for the path — and the sandbox stays empty.

use crate::depth::Ending;
use crate::dialect_model::{self, command_refusal, Verdict};
use crate::framing::{self, Writer};
use crate::sandbox::Sandbox;
use crate::{ensure, Check};
use arbitrary::{Arbitrary, Result, Unstructured};
use editref::api::{EditInput, EditorCommand, LineEditInput, TextEditorInput, WriteInput};
use editref::error::{Code, ToolError};
use editref::{Config, Session};
use serde_json::{json, Map, Value};
use std::fmt::Debug;

/// The keys an input's fields are named by: every field of the four readers, every spelling of
/// ALIAS-1, and near misses.
pub const KEYS: [&str; 35] = [
    "command",
    "path",
    "view_range",
    "file_text",
    "old_str",
    "new_str",
    "insert_line",
    "insert_text",
    "file_path",
    "start_line",
    "end_line",
    "new_content",
    "expected_text",
    "dry_run",
    "filePath",
    "old_string",
    "oldString",
    "oldStr",
    "new_string",
    "newString",
    "newStr",
    "replace_all",
    "replaceAll",
    "expected_replacements",
    "content",
    "text",
    "startLine",
    "Command",
    "",
    " path",
    "oldText",
    "newText",
    "allow_multiple",
    "instruction",
    "edits",
];

/// The text editor's commands, and two names that are none.
pub const COMMAND_NAMES: [&str; 7] = [
    "view",
    "create",
    "str_replace",
    "insert",
    "undo_edit",
    "View",
    "delete",
];

/// A field's key: one of [`KEYS`], or any text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySpec {
    /// `KEYS[n % KEYS.len()]`.
    Pool(u8),
    /// The text itself.
    Free(String),
}

/// A field's value, by the kinds D29 reads differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueSpec {
    /// A string.
    Text(String),
    /// A whole number of at least 0.
    Int(u16),
    /// `-(n + 1)`.
    Neg(u16),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A string of digits.
    NumText(u16),
    /// A two-element array of whole numbers.
    Range(i16, i16),
    /// `n + 0.5`.
    Float(u16),
    /// One of the values of [`special`].
    Special(u8),
    /// A string of [`COMMAND_NAMES`].
    Command(u8),
}

/// One field: a key and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSpec {
    /// The key.
    pub key: KeySpec,
    /// The value.
    pub value: ValueSpec,
}

/// Input of `dialect_inputs`.
///
/// Framing: the tool byte, a field-count byte (b % 9 fields), then per field its key (a byte;
/// 255 is followed by a text, the key itself) and its value (a kind byte, b % 10, followed by
/// the kind's payload: a text, a u16, a byte, two u16 or nothing).
///
/// `Arbitrary` is written out rather than derived: the derive's `size_hint` would claim a
/// minimum of 25 bytes (the in-memory size of the fields), which makes libFuzzer skip every
/// shorter input — and a whole case fits in fewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectCase {
    /// Bits 0–1: the reader (text editor, LineEdit, Edit, Write); bit 2: the text editor is
    /// called by its older name `str_replace_editor` when it runs.
    pub tool: u8,
    /// The fields, in order; a later field with the key of an earlier one replaces its value.
    pub fields: Vec<FieldSpec>,
}

impl<'a> Arbitrary<'a> for DialectCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<DialectCase> {
        Ok(DialectCase {
            tool: framing::byte(u)?,
            fields: read_fields(u)?,
        })
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (0, None)
    }
}

/// Most fields one input has.
const MAX_FIELDS: usize = 8;

fn read_fields(u: &mut Unstructured<'_>) -> Result<Vec<FieldSpec>> {
    let n = usize::from(framing::byte(u)?) % (MAX_FIELDS + 1);
    (0..n)
        .map(|_| {
            Ok(FieldSpec {
                key: read_key(u)?,
                value: read_value(u)?,
            })
        })
        .collect()
}

fn read_key(u: &mut Unstructured<'_>) -> Result<KeySpec> {
    Ok(match framing::byte(u)? {
        255 => KeySpec::Free(framing::text(u)?),
        b => KeySpec::Pool(b),
    })
}

fn read_value(u: &mut Unstructured<'_>) -> Result<ValueSpec> {
    Ok(match framing::byte(u)? % 10 {
        0 => ValueSpec::Text(framing::text(u)?),
        1 => ValueSpec::Int(framing::u16_le(u)?),
        2 => ValueSpec::Neg(framing::u16_le(u)?),
        3 => ValueSpec::Bool(framing::byte(u)? & 1 == 1),
        4 => ValueSpec::Null,
        5 => ValueSpec::NumText(framing::u16_le(u)?),
        6 => ValueSpec::Range(framing::u16_le(u)? as i16, framing::u16_le(u)? as i16),
        7 => ValueSpec::Float(framing::u16_le(u)?),
        8 => ValueSpec::Special(framing::byte(u)?),
        _ => ValueSpec::Command(framing::byte(u)?),
    })
}

/// Values D29 leaves at the edges: empty and overlong arrays, objects, numbers beyond 64 bits
/// and at the limit, strings that read as booleans or almost as numbers, `1e2`.
pub fn special(n: u8) -> Value {
    let number = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    match n % 16 {
        0 => json!([]),
        1 => json!([1]),
        2 => json!([1, "2"]),
        3 => json!([1, 2, 3]),
        4 => json!({}),
        5 => json!({"a": 1}),
        6 => number("18446744073709551616"),
        7 => number("18446744073709551615"),
        8 => json!(""),
        9 => json!("true"),
        10 => json!("false"),
        11 => json!(" 7"),
        12 => json!("+7"),
        13 => number("1e2"),
        14 => number("9223372036854775808"),
        _ => json!("007"),
    }
}

impl ValueSpec {
    /// The JSON value.
    pub fn json(&self) -> Value {
        match self {
            ValueSpec::Text(s) => json!(s),
            ValueSpec::Int(n) => json!(n),
            ValueSpec::Neg(n) => json!(-i64::from(*n) - 1),
            ValueSpec::Bool(b) => json!(b),
            ValueSpec::Null => Value::Null,
            ValueSpec::NumText(n) => json!(n.to_string()),
            ValueSpec::Range(a, b) => json!([a, b]),
            ValueSpec::Float(n) => serde_json::from_str(&format!("{n}.5")).unwrap_or(Value::Null),
            ValueSpec::Special(n) => special(*n),
            ValueSpec::Command(n) => json!(COMMAND_NAMES[usize::from(*n) % COMMAND_NAMES.len()]),
        }
    }

    fn write(&self, w: &mut Writer) -> Option<()> {
        match self {
            ValueSpec::Text(s) => {
                w.byte(0).text(s)?;
            }
            ValueSpec::Int(n) => {
                w.byte(1).u16_le(*n);
            }
            ValueSpec::Neg(n) => {
                w.byte(2).u16_le(*n);
            }
            ValueSpec::Bool(b) => {
                w.byte(3).byte(u8::from(*b));
            }
            ValueSpec::Null => {
                w.byte(4);
            }
            ValueSpec::NumText(n) => {
                w.byte(5).u16_le(*n);
            }
            ValueSpec::Range(a, b) => {
                w.byte(6).u16_le(*a as u16).u16_le(*b as u16);
            }
            ValueSpec::Float(n) => {
                w.byte(7).u16_le(*n);
            }
            ValueSpec::Special(n) => {
                w.byte(8).byte(*n);
            }
            ValueSpec::Command(n) => {
                w.byte(9).byte(*n);
            }
        }
        Some(())
    }
}

impl KeySpec {
    /// The key.
    pub fn name(&self) -> &str {
        match self {
            KeySpec::Pool(n) => KEYS[usize::from(*n) % KEYS.len()],
            KeySpec::Free(s) => s,
        }
    }
}

impl DialectCase {
    /// The input object: the fields in order, a repeated key keeping its first place and its
    /// last value.
    pub fn object(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for f in &self.fields {
            map.insert(f.key.name().to_string(), f.value.json());
        }
        map
    }

    /// The input bytes that decode to this case (seed writing); `None` when a text is too long
    /// for the framing or there are more than eight fields.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        if self.fields.len() > MAX_FIELDS {
            return None;
        }
        let mut w = Writer::new();
        w.byte(self.tool).byte(self.fields.len() as u8);
        for f in &self.fields {
            match &f.key {
                KeySpec::Pool(n) if *n != 255 => {
                    w.byte(*n);
                }
                KeySpec::Pool(_) => return None,
                KeySpec::Free(s) => {
                    w.byte(255).text(s)?;
                }
            }
            f.value.write(&mut w)?;
        }
        Some(w.finish())
    }
}

/// Runs the checks of the module documentation; the ending names the reader and the outcome.
pub fn dialect_inputs(case: &DialectCase) -> std::result::Result<Ending, String> {
    let map = case.object();
    let input = Value::Object(map.clone());
    let (tool, outcome) = match case.tool % 4 {
        0 => ("text_editor", text_editor(case, &map, &input)?),
        1 => (
            "line_edit",
            judge(
                dialect_model::line_edit(&map),
                LineEditInput::from_json(&input),
            )?,
        ),
        2 => (
            "edit",
            judge(dialect_model::edit(&map), EditInput::from_json(&input))?,
        ),
        _ => (
            "write",
            judge(dialect_model::write(&map), WriteInput::from_json(&input))?,
        ),
    };
    Ok(Ending::deep(format!("{tool}:{outcome}")))
}

/// The reader's answer against the model's verdict; the outcome's name on success.
fn judge<T: PartialEq + Debug>(
    verdict: Verdict<T>,
    got: std::result::Result<T, ToolError>,
) -> std::result::Result<&'static str, String> {
    match got {
        Ok(value) => {
            ensure!(
                verdict.faults.is_empty(),
                "accepted an input with faults {:?}: {value:?}",
                verdict.faults
            );
            if let Some(want) = &verdict.value {
                ensure!(
                    *want == value,
                    "accepted as {value:?}, the model reads {want:?}"
                );
                Ok("accepted")
            } else {
                Ok("accepted_open")
            }
        }
        Err(e) => {
            let field = refused_field(&e)?;
            ensure!(
                !verdict.faults.is_empty() || !verdict.open.is_empty(),
                "refused a valid input, naming {field:?}: {}; the model accepts {:?}",
                e.message,
                verdict.value
            );
            ensure!(
                verdict.allows(field),
                "refused naming {field:?}, which is not at fault (faults {:?}, open {:?}): {}",
                verdict.faults,
                verdict.open,
                e.message
            );
            Ok("refused")
        }
    }
}

/// The `field` of an `invalid_input` refusal whose message names it, or why the error is not
/// one.
fn refused_field(e: &ToolError) -> std::result::Result<&str, String> {
    ensure!(
        e.code == Code::InvalidInput,
        "refused with {} instead of invalid_input: {}",
        e.code.as_str(),
        e.message
    );
    let Some(field) = e.fields.get("field").and_then(Value::as_str) else {
        return Err(format!("invalid_input without a field: {}", e.message));
    };
    for piece in field.split(',') {
        ensure!(
            e.message.contains(piece),
            "the message does not name the field {piece:?}: {}",
            e.message
        );
    }
    Ok(field)
}

/// The text editor's reader, then an accepted command run where that touches no file.
fn text_editor(
    case: &DialectCase,
    map: &Map<String, Value>,
    input: &Value,
) -> std::result::Result<&'static str, String> {
    let verdict = dialect_model::text_editor(map);
    let parsed = TextEditorInput::from_json(input);
    let accepted = parsed.as_ref().ok().cloned();
    let outcome = judge(verdict, parsed)?;
    let Some(parsed) = accepted else {
        return Ok(outcome);
    };
    let refusal = command_refusal(&parsed);
    let runs = match parsed.command {
        // A complete create would write a file: only its refusal is run.
        EditorCommand::Create => !refusal.is_empty(),
        EditorCommand::StrReplace | EditorCommand::Insert => true,
        EditorCommand::View | EditorCommand::UndoEdit => false,
    };
    if !runs {
        return Ok(outcome);
    }
    let name = if case.tool & 4 == 0 {
        "str_replace_based_edit_tool"
    } else {
        "str_replace_editor"
    };
    run_command(name, input, &refusal)?;
    Ok(if refusal.is_empty() {
        "run_refused_for_the_path"
    } else {
        "run_refused_for_a_parameter"
    })
}

/// Runs one command in an empty sandbox (its root and working directory).
fn run_command(name: &str, input: &Value, refusal: &[&str]) -> Check {
    let sandbox = Sandbox::new()?;
    let dir = sandbox.path();
    let mut config = Config::new(dir).with_root(dir);
    config.fsync = false;
    let session = Session::new(config);
    let result = session.call(name, input);
    let left = std::fs::read_dir(dir).map_or(0, Iterator::count);
    ensure!(left == 0, "{name} left {left} entries in the empty sandbox");
    let err = match result {
        Ok(out) => return Err(format!("{name} succeeded in an empty sandbox: {out}")),
        Err(e) => e,
    };
    let named = err.fields.get("field").and_then(Value::as_str);
    if refusal.is_empty() {
        let own = ["old_str", "new_str", "insert_line", "insert_text"];
        ensure!(
            !(err.code == Code::InvalidInput && named.is_some_and(|f| own.contains(&f))),
            "{name} refused a complete command for its parameter {named:?}: {}",
            err.message
        );
    } else {
        let field = refused_field(&err)?;
        ensure!(
            refusal.contains(&field),
            "{name} refused naming {field:?}, expected one of {refusal:?}: {}",
            err.message
        );
    }
    Ok(())
}
