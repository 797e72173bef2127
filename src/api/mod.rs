//! The typed tool API: one input and one output type per tool, with serde and JSON Schema
//! derived from the same definitions.
//!
//! These types are the contract of the tools. A Rust caller builds an input and calls the
//! matching [`Session`](crate::Session) method (`session.edit(EditInput { .. })` → an
//! [`EditOutput`]); [`Session::call`](crate::Session::call) parses a JSON input into the same
//! type and serializes the output, so the JSON entry is a thin layer over the typed one; and
//! the schemas that front ends publish (and the docs show) come from [`input_schema`] and
//! [`output_schema`] over these very types, so a schema cannot drift from what is parsed.
//!
//! **What the JSON entry tolerates.** Models send loosely typed JSON, so each input's
//! `from_json` accepts `"true"`/`"false"` for booleans, numeric strings for whole numbers, and
//! `null` for an absent optional field. It refuses unknown fields and wrong kinds with
//! `invalid_input`, naming the field. (The serde `Deserialize` impls are strict; they are for
//! Rust callers that build inputs from their own typed data.)

mod aliases;
mod edit;
pub(crate) mod fields;
mod files;
mod line_edit;
mod notebook;
mod patch;
mod read;
mod text_editor;
mod undo;
mod write;

pub(crate) use edit::EditCall;
pub use edit::{
    EditInput, EditOutput, EditSpec, EditSummary, MultiEditInput, MultiEditOutput, MAX_EDITS,
};
pub use files::{
    ApplyPatchInput, FileAction, FileChange, FilesOutput, PatchOperation, SearchReplaceInput,
};
pub use line_edit::{LineEditInput, LineEditOutput};
pub use notebook::{NotebookEditInput, NotebookEditOutput};
pub use patch::{Change, StructuredPatch};
pub use read::{FileRef, NotebookCell, ReadInput, ReadOutput, TextFile};
pub use text_editor::{DirEntry, EditorCommand, TextEditorInput, TextEditorOutput};
pub use undo::{UndoAction, UndoInput, UndoOutput, UndoneFile, UndoneStep};
pub use write::{WriteInput, WriteKind, WriteOutput};

use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};

/// The JSON Schema of a tool input, as front ends publish it (draft 2020-12, inlined: no
/// `$defs` to resolve, which some agent runtimes do not follow). It describes what is
/// *parsed*: fields with a default are optional.
pub fn input_schema<T: JsonSchema>() -> Schema {
    schema_of::<T>(schemars::generate::SchemaSettings::draft2020_12().for_deserialize())
}

/// The JSON Schema of a tool output (the result object), as front ends publish it. It
/// describes what is *serialized*: a field left out when it has its usual value (`dryRun`,
/// `durable`) is optional, so every result validates against it.
pub fn output_schema<T: JsonSchema>() -> Schema {
    schema_of::<T>(schemars::generate::SchemaSettings::draft2020_12().for_serialize())
}

fn schema_of<T: JsonSchema>(mut settings: schemars::generate::SchemaSettings) -> Schema {
    settings.inline_subschemas = true;
    settings
        .transforms
        .push(Box::new(RecursiveTransform(standard_formats_only)));
    settings.into_generator().into_root_schema_for::<T>()
}

/// The `format` values JSON Schema 2020-12 defines. schemars also writes its own (`uint64`,
/// `uint`, `int64`, …) for Rust integer types; agent runtimes warn about every such unknown
/// format, and the `minimum: 0` schemars writes beside them already says what matters.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops a `format` that is not one of [`STANDARD_FORMATS`].
fn standard_formats_only(schema: &mut Schema) {
    let standard = schema
        .get("format")
        .and_then(serde_json::Value::as_str)
        .is_none_or(|f| STANDARD_FORMATS.contains(&f));
    if !standard {
        schema.remove("format");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn properties<T: JsonSchema>() -> Vec<String> {
        let schema = input_schema::<T>();
        let value: Value = schema.into();
        value["properties"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The schema a front end publishes names exactly the fields the JSON entry accepts, in
    /// the same order: the two come from one type and cannot drift.
    #[test]
    fn schemas_name_exactly_the_parsed_fields() {
        assert_eq!(properties::<ReadInput>(), ReadInput::FIELDS);
        assert_eq!(properties::<EditInput>(), EditInput::FIELDS);
        assert_eq!(properties::<MultiEditInput>(), MultiEditInput::FIELDS);
        assert_eq!(properties::<WriteInput>(), WriteInput::FIELDS);
        assert_eq!(properties::<NotebookEditInput>(), NotebookEditInput::FIELDS);
        let multi: Value = input_schema::<MultiEditInput>().into();
        let item: Vec<&String> = multi["properties"]["edits"]["items"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(item, EditSpec::FIELDS);
    }

    /// Only formats JSON Schema defines: clients warn about schemars' own (`uint64`, …).
    #[test]
    fn schemas_carry_only_standard_formats() {
        for schema in [
            input_schema::<ReadInput>(),
            output_schema::<ReadOutput>(),
            output_schema::<EditOutput>(),
            output_schema::<MultiEditOutput>(),
            output_schema::<WriteOutput>(),
        ] {
            let text = serde_json::to_string(&schema).unwrap();
            assert!(!text.contains("\"format\""), "{text}");
            assert!(
                text.contains("\"minimum\":0"),
                "unsigned fields keep their minimum: {text}"
            );
        }
    }

    #[test]
    fn required_fields_are_the_ones_without_defaults() {
        let edit: Value = input_schema::<EditInput>().into();
        assert_eq!(
            edit["required"],
            serde_json::json!(["file_path", "old_string", "new_string"])
        );
        assert_eq!(edit["additionalProperties"], Value::Bool(false));
    }

    #[test]
    fn output_schemas_name_the_result_fields() {
        let out: Value = output_schema::<EditOutput>().into();
        for key in [
            "filePath",
            "oldString",
            "newString",
            "replaceAll",
            "replacements",
            "structuredPatch",
            "diff",
            "repairs",
            "userModified",
        ] {
            assert!(out.to_string().contains(&format!("\"{key}\"")), "{key}");
        }
    }

    /// Fields a result leaves out when they have their usual value are not required, so a
    /// client that validates results against the schema accepts every result.
    #[test]
    fn output_schemas_do_not_require_omitted_fields() {
        let edit: Value = output_schema::<EditOutput>().into();
        let required = edit["required"].as_array().cloned().unwrap_or_default();
        assert!(required.contains(&Value::from("filePath")));
        assert!(!required.contains(&Value::from("dryRun")));
        assert!(!required.contains(&Value::from("durable")));
    }
}
