//! The paths one tool call names, so that a connection with several roots can send the call to
//! the session of the root they lie under ([`super::roots::Roots::route`]).
//!
//! Most tools name one file in one argument. The dialects that change several files name them
//! inside their text: an apply_patch patch in its `*** Add/Update/Delete File:` and
//! `*** Move to:` lines, a search_replace reply in the path line before each block. Those are
//! read with the library's own parsers ([`crate::dialects::apply_patch::parse`],
//! [`crate::dialects::search_replace::parse`]), so routing sees exactly the files the tool will
//! touch. Text the parser refuses names no path: the call then goes to the first root, whose
//! tool refuses it with `invalid_patch` and the line at fault.

use crate::api::PatchOperation;
use crate::dialects::{apply_patch, search_replace};
use serde_json::Value;

/// Every path `tool` would touch with `args`, in the order named, each once. Empty when the
/// arguments name none (a missing or ill-typed field, text that does not parse).
pub fn named(tool: &str, args: &Value) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let mut add = |p: &str| {
        if !paths.iter().any(|q| q == p) {
            paths.push(p.to_string());
        }
    };
    match tool {
        "apply_patch" if PatchOperation::is_operation(args) => {
            if let Some(p) = string(args, "path") {
                add(p);
            }
        }
        "apply_patch" => {
            // `{"input": PATCH}`, or `{"patch": PATCH}` as ApplyPatchInput::from_json takes it.
            let text = string(args, "input").or_else(|| string(args, "patch"));
            if let Some(patch) = text.and_then(|t| apply_patch::parse(t).ok()) {
                for op in &patch.ops {
                    add(op.path());
                    if let apply_patch::FileOp::Update {
                        move_to: Some(to), ..
                    } = op
                    {
                        add(to);
                    }
                }
            }
        }
        "search_replace" => {
            if let Some(blocks) = string(args, "text").and_then(|t| search_replace::parse(t).ok()) {
                for block in &blocks {
                    add(&block.path);
                }
            }
        }
        "NotebookEdit" => {
            if let Some(p) = string(args, "notebook_path") {
                add(p);
            }
        }
        // Edit and Write also take other agents' spellings (ALIAS-1); the text editor says
        // `path`.
        _ => {
            if let Some(p) = ["file_path", "filePath", "path"]
                .iter()
                .find_map(|k| string(args, k))
            {
                add(p);
            }
        }
    }
    paths
}

fn string<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn single_file_tools_name_their_path() {
        assert_eq!(named("Edit", &json!({"file_path": "a.txt"})), ["a.txt"]);
        assert_eq!(named("Write", &json!({"filePath": "b.txt"})), ["b.txt"]);
        assert_eq!(
            named(
                "str_replace_editor",
                &json!({"command": "view", "path": "c"})
            ),
            ["c"]
        );
        assert_eq!(
            named("NotebookEdit", &json!({"notebook_path": "n.ipynb"})),
            ["n.ipynb"]
        );
        assert!(named("Edit", &json!({"file_path": 3})).is_empty());
    }

    #[test]
    fn a_patch_names_every_file_it_touches() {
        let patch = "*** Begin Patch\n*** Add File: x/new.txt\n+n\n*** Update File: a.txt\n\
                     *** Move to: y/b.txt\n@@\n-a\n+A\n*** Delete File: old.txt\n*** End Patch\n";
        let want = ["x/new.txt", "a.txt", "y/b.txt", "old.txt"];
        assert_eq!(named("apply_patch", &json!({ "input": patch })), want);
        assert_eq!(named("apply_patch", &json!({ "patch": patch })), want);
        let op = json!({"type": "update_file", "path": "z.txt", "diff": "@@\n-a\n+b\n"});
        assert_eq!(named("apply_patch", &op), ["z.txt"]);
        assert!(named("apply_patch", &json!({"input": "not a patch"})).is_empty());
    }

    #[test]
    fn a_reply_names_the_file_of_each_block_once() {
        let reply = "a.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n\n\
                     sub/b.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n\n\
                     a.txt\n<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n";
        assert_eq!(
            named("search_replace", &json!({ "text": reply })),
            ["a.txt", "sub/b.txt"]
        );
    }
}
