//! The tools as an MCP client sees them in `tools/list`: name, title, the rules the model must
//! follow, input and output schemas, and behaviour hints.
//!
//! The schemas come from the typed API ([`crate::api::input_schema`] and
//! [`crate::api::output_schema`] over the very types the tools parse and return), so what a
//! client is told cannot drift from what the server accepts and sends back.

use crate::api::{
    input_schema, output_schema, ApplyPatchInput, EditInput, EditOutput, FilesOutput,
    LineEditInput, LineEditOutput, MultiEditInput, MultiEditOutput, NotebookEditInput,
    NotebookEditOutput, ReadInput, ReadOutput, SearchReplaceInput, TextEditorInput,
    TextEditorOutput, UndoInput, UndoOutput, WriteInput, WriteOutput,
};
use crate::Code;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::{JsonSchema, Schema};
use serde_json::{json, Value};
use std::sync::Arc;

const READ: &str = "Reads a file from the local file system. Text comes back with line numbers \
(number, tab, line); use offset and limit for a part of a large file. Images come back as images, \
notebooks as their cells. Read a file in full before you edit or overwrite it: Edit, MultiEdit, \
Write and NotebookEdit refuse a file this session has not read completely, or that changed on \
disk since it was read (read it again then).";

const EDIT: &str = "Replaces text in a file. old_string must match the file exactly (copy it \
from Read's output without the line-number prefix) and must occur exactly once, unless \
replace_all is true. Include enough surrounding lines to make it unique. Read the whole file \
first. The edit is refused, never guessed: if old_string is missing, occurs more than once, or \
the file changed since it was read, nothing is written and the error says what to do. Line \
endings, encoding and everything outside the replaced text stay as they were. The result is a \
unified diff.";

const MULTI_EDIT: &str = "Applies several edits to one file in order, all or none. Each edit \
follows Edit's rules (exact, unique old_string unless replace_all) against the text left by the \
edits before it; an edit may not touch text an earlier edit inserted. Read the whole file \
first. If any edit is refused, the file is left untouched.";

const WRITE: &str = "Writes a whole file: creates it, or replaces the content of an existing \
file. Replacing needs a full Read of the file first in this session, and is refused if the file \
changed since. Prefer Edit or MultiEdit to change part of a file. The file's encoding, BOM and \
line endings are kept.";

const NOTEBOOK_EDIT: &str = "Replaces, inserts or deletes one cell of a Jupyter notebook \
(.ipynb). Read the notebook first. cell_id names the cell (or cell-N for the N-th, 0-based); \
edit_mode is replace (default), insert (after cell_id, or at the start) or delete. The rest of \
the notebook is left as it was.";

const UNDO: &str = "Takes back the last write of a file made by these tools (or the last \
`steps` writes), together with every other file the same call changed. It is refused, and \
nothing changes, if a file was changed since by something else; read the file then and edit it \
back instead.";

const LINE_EDIT: &str = "Replaces lines start_line to end_line (1-based, inclusive) of a file \
with new_content; with end_line = start_line - 1 it inserts before start_line. Read the whole \
file first: the edit is refused if the file changed since, because line numbers would then \
point at other lines. Give expected_text (what those lines hold now) to be safe. Prefer Edit \
when you can quote the text.";

const TEXT_EDITOR: &str = "View, create and edit files. view: a file with line numbers \
(view_range [first, last], -1 for the end), or a directory two levels deep. create: a new file \
from file_text (an existing file must be viewed in full first). str_replace: replace old_str, \
which must occur exactly once, with new_str. insert: insert insert_text after line \
insert_line (0 for the top; view the file first). undo_edit: take back the last change of the \
file. A refused command changes nothing and says how to succeed.";

const SEARCH_REPLACE: &str = "Applies SEARCH/REPLACE blocks to files, all or nothing. Each \
block: the file's path alone on a line, then <<<<<<< SEARCH, the exact lines to find, =======, \
the lines to put in their place, >>>>>>> REPLACE. SEARCH must match whole lines of the file \
exactly once (indentation may differ as a whole); an empty SEARCH creates a new file. Text \
around the blocks is ignored. If any block cannot be applied, no file changes and the error \
names the block's line.";

const APPLY_PATCH: &str = "Applies a patch to one or more files, all or nothing. The patch \
starts with '*** Begin Patch' and ends with '*** End Patch'. Between them: '*** Add File: PATH' \
followed by the new file's lines each prefixed '+'; '*** Delete File: PATH'; '*** Update File: \
PATH' (optionally '*** Move to: NEW_PATH') followed by chunks of lines prefixed ' ' (context, \
usually 3 lines before and after), '-' (removed) and '+' (added), each chunk optionally after \
an '@@ LINE' naming a line above it (a class or function header) to say where it goes. \
Context must fit exactly one place in the file; if any part cannot be applied, no file changes \
and the error names the patch line.";

/// The definition of one tool, or `None` for a name that is not a tool.
pub fn tool(name: &str) -> Option<Tool> {
    let (title, description, input, output, annotations) = match name {
        "Read" => (
            "Read file",
            READ,
            input_schema::<ReadInput>(),
            output_schema_of::<ReadOutput>(),
            hints(true, false, true),
        ),
        "Edit" => (
            "Edit file",
            EDIT,
            input_schema::<EditInput>(),
            edit_output_schema(),
            hints(false, false, false),
        ),
        "MultiEdit" => (
            "Edit file (several edits)",
            MULTI_EDIT,
            input_schema::<MultiEditInput>(),
            output_schema_of::<MultiEditOutput>(),
            hints(false, false, false),
        ),
        "Write" => (
            "Write file",
            WRITE,
            input_schema::<WriteInput>(),
            output_schema_of::<WriteOutput>(),
            hints(false, true, false),
        ),
        "NotebookEdit" => (
            "Edit notebook cell",
            NOTEBOOK_EDIT,
            input_schema::<NotebookEditInput>(),
            output_schema_of::<NotebookEditOutput>(),
            hints(false, false, false),
        ),
        "Undo" => (
            "Undo the last write of a file",
            UNDO,
            input_schema::<UndoInput>(),
            output_schema_of::<UndoOutput>(),
            hints(false, false, false),
        ),
        "LineEdit" => (
            "Replace lines of a file",
            LINE_EDIT,
            input_schema::<LineEditInput>(),
            output_schema_of::<LineEditOutput>(),
            hints(false, false, false),
        ),
        "str_replace_based_edit_tool" | super::TEXT_EDITOR_ALIAS => (
            "Text editor",
            TEXT_EDITOR,
            input_schema::<TextEditorInput>(),
            output_schema_of::<TextEditorOutput>(),
            hints(false, true, false),
        ),
        "apply_patch" => (
            "Apply a patch",
            APPLY_PATCH,
            input_schema::<ApplyPatchInput>(),
            output_schema_of::<FilesOutput>(),
            hints(false, true, false),
        ),
        "search_replace" => (
            "Apply SEARCH/REPLACE blocks",
            SEARCH_REPLACE,
            input_schema::<SearchReplaceInput>(),
            output_schema_of::<FilesOutput>(),
            hints(false, false, false),
        ),
        _ => return None,
    };
    let (read_only, destructive, idempotent) = annotations;
    let hints = ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false);
    Some(
        Tool::new(name.to_string(), description, object(input))
            .with_title(title)
            .with_raw_output_schema(output)
            .with_annotations(hints),
    )
}

/// readOnly, destructive, idempotent. Edits change files but only the text named (not
/// destructive); Write replaces a whole file (destructive); only Read can be repeated with the
/// same effect.
fn hints(read_only: bool, destructive: bool, idempotent: bool) -> (bool, bool, bool) {
    (read_only, destructive, idempotent)
}

/// A tool's `outputSchema`: an object at the root, as MCP requires, that admits what its
/// results carry as `structuredContent` — the tool's JSON result (the schema of `T`, which the
/// result is serialized from), or a refusal's `{"error": {code, message, ...}}` (SPEC MCP-3).
/// The root keeps `$schema`, `title` and `description`; the rest of `T`'s schema (its
/// properties, or the `oneOf` of a tagged enum such as Read's) becomes the first branch of an
/// `anyOf`, the refusal the second.
pub fn output_schema_of<T: JsonSchema>() -> Arc<JsonObject> {
    let mut root = JsonObject::new();
    let mut result = JsonObject::new();
    if let Value::Object(map) = Value::from(output_schema::<T>()) {
        for (key, value) in map {
            match key.as_str() {
                "$schema" | "title" | "description" => root.insert(key, value),
                _ => result.insert(key, value),
            };
        }
    }
    if !result.contains_key("type") {
        result.insert("type".into(), Value::String("object".into()));
    }
    root.insert("type".into(), Value::String("object".into()));
    root.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(result), refusal_schema()]),
    );
    Arc::new(root)
}

/// Edit's `outputSchema`: as [`output_schema_of`] gives it, but its result is Edit's or, for
/// Pi's list of edits sent to Edit (ALIAS-6), MultiEdit's — the two an `anyOf` inside the
/// result's branch, so a client that checks results against the schema accepts both.
fn edit_output_schema() -> Arc<JsonObject> {
    let mut root = (*output_schema_of::<EditOutput>()).clone();
    let multi = output_schema_of::<MultiEditOutput>();
    let list = match multi.get("anyOf").and_then(|a| a.get(0)) {
        Some(Value::Object(list)) => {
            let mut list = list.clone();
            list.insert(
                "description".into(),
                Value::String(
                    "The result of a list of edits (Pi's `edits`), as MultiEdit's.".into(),
                ),
            );
            Value::Object(list)
        }
        _ => return Arc::new(root),
    };
    if let Some(Value::Array(branches)) = root.get_mut("anyOf") {
        if let Some(one) = branches.first_mut() {
            let single = one.take();
            *one = json!({"type": "object", "anyOf": [single, list]});
        }
    }
    Arc::new(root)
}

/// The structured content of a refusal: `{"error": {code, message, ...fields}}`, with `code`
/// one of SPEC §12's and the fields of §13.2 allowed beside the two.
pub fn refusal_schema() -> Value {
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    json!({
        "type": "object",
        "description": "A refusal (the result has isError: true): nothing was changed. The code is stable (SPEC section 12); the message says how to succeed; some codes carry more fields (section 13.2).",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "enum": codes},
                    "message": {"type": "string"}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["error"],
        "additionalProperties": false
    })
}

fn object(schema: Schema) -> Arc<JsonObject> {
    match Value::from(schema) {
        Value::Object(map) => Arc::new(map),
        // A schema of `true`/`false` never comes out of a struct or enum; accept anything then.
        _ => Arc::new(JsonObject::from_iter([(
            "type".to_string(),
            Value::String("object".into()),
        )])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_input_and_output_schema() {
        for name in crate::ALL_TOOLS
            .into_iter()
            .chain([super::super::TEXT_EDITOR_ALIAS])
        {
            let t = tool(name).expect(name);
            assert_eq!(t.name, name);
            assert_eq!(t.input_schema["type"], "object", "{name}");
            let out = t.output_schema.expect(name);
            assert_eq!(out["type"], "object", "{name}");
            assert_eq!(out["anyOf"][0]["type"], "object", "{name}: the result");
            assert_eq!(out["anyOf"][1], refusal_schema(), "{name}: the refusal");
            assert!(
                out.contains_key("title"),
                "{name}: the title stays at the root"
            );
            assert!(t.description.is_some() && t.title.is_some());
        }
        // Edit answers with Edit's result, or MultiEdit's for Pi's list of edits (ALIAS-6).
        let edit = tool("Edit").unwrap().output_schema.unwrap();
        let branches = edit["anyOf"][0]["anyOf"].as_array().unwrap();
        assert!(branches[0]["required"].to_string().contains("oldString"));
        assert!(branches[1]["required"].to_string().contains("edits"));
        let read = tool("Read").unwrap().output_schema.unwrap();
        assert!(
            read["anyOf"][0].get("oneOf").is_some(),
            "Read keeps its variants"
        );
        assert!(tool("Bash").is_none());
    }

    #[test]
    fn hints_say_what_the_tool_does() {
        let read = tool("Read").unwrap().annotations.unwrap();
        assert_eq!(read.read_only_hint, Some(true));
        assert_eq!(read.idempotent_hint, Some(true));
        let write = tool("Write").unwrap().annotations.unwrap();
        assert_eq!(write.read_only_hint, Some(false));
        assert_eq!(write.destructive_hint, Some(true));
        let edit = tool("Edit").unwrap().annotations.unwrap();
        assert_eq!(edit.destructive_hint, Some(false));
        assert_eq!(edit.idempotent_hint, Some(false));
    }
}
