//! MultiEdit (MULTI-1..5): several edits of one file, applied in order, written once or not at
//! all.

use super::edit::{apply, finish};
use super::Input;
use crate::engine::EditRequest;
use crate::error::{ToolError, ToolResult};
use serde_json::{json, Map, Value};

const FIELDS: [&str; 3] = ["file_path", "edits", "dry_run"];
const EDIT_FIELDS: [&str; 3] = ["old_string", "new_string", "replace_all"];
/// Most edits one call may carry.
pub const MAX_EDITS: usize = 1000;

/// Runs MultiEdit.
pub fn run(session: &crate::session::Session, input: &Value) -> ToolResult<Value> {
    let (path, edits, dry_run) = parse(input)?;
    let done = apply(session, &path, &edits, dry_run, true)?;
    let durable = done.durable;
    let mut repairs: Vec<&str> = Vec::new();
    let per_edit: Vec<Value> = done
        .reports
        .iter()
        .map(|r| {
            for name in &r.repairs {
                if !repairs.contains(name) {
                    repairs.push(name);
                }
            }
            json!({
                "oldString": r.old_string,
                "newString": r.new_string,
                "replaceAll": r.replace_all,
                "replacements": r.replacements,
                "repairs": r.repairs,
            })
        })
        .collect();
    let mut out = Map::new();
    out.insert("filePath".into(), json!(path));
    out.insert("edits".into(), Value::Array(per_edit));
    out.insert("structuredPatch".into(), done.patch.to_json());
    out.insert("diff".into(), Value::String(done.patch.into_diff()));
    out.insert("repairs".into(), json!(repairs));
    out.insert("userModified".into(), json!(false));
    finish(&mut out, durable, dry_run);
    Ok(Value::Object(out))
}

/// MultiEdit's input, checked: the path, the edits, and whether it is a dry run.
pub(crate) fn parse(input: &Value) -> ToolResult<(String, Vec<EditRequest>, bool)> {
    let i = Input::new("MultiEdit", input, &FIELDS)?;
    let path = i.string("file_path")?;
    let dry_run = i.boolean("dry_run")?;
    let list = match i.raw("edits") {
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(ToolError::invalid_input("The parameter `edits` of MultiEdit must be an array of {old_string, new_string, replace_all?} objects.").with("field", "edits"))
        }
        None => {
            return Err(ToolError::invalid_input("The required parameter `edits` of MultiEdit is missing.").with("field", "edits"))
        }
    };
    if list.is_empty() || list.len() > MAX_EDITS {
        return Err(ToolError::invalid_input(format!(
            "MultiEdit takes 1 to {MAX_EDITS} edits; {} were given. Split larger changes into several calls.",
            list.len()
        ))
        .with("field", "edits"));
    }
    let mut edits = Vec::with_capacity(list.len());
    for (index, e) in list.iter().enumerate() {
        let parsed = (|| {
            let ei = Input::new("MultiEdit", e, &EDIT_FIELDS)?;
            Ok::<_, ToolError>(EditRequest {
                old_string: ei.string("old_string")?,
                new_string: ei.string("new_string")?,
                replace_all: ei.boolean("replace_all")?,
            })
        })();
        edits.push(parsed.map_err(|err| err.with("edit_index", index))?);
    }
    Ok((path, edits, dry_run))
}
