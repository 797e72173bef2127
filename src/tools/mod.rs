//! The five tools: validate → engine → disk, in the order SPEC EDIT-1 fixes.
//!
//! Each tool module parses its input strictly (unknown fields are refused), then runs the
//! checks in spec order so that the first failing check decides and nothing on disk changes
//! on any error.

pub mod edit;
pub mod multi_edit;
pub mod notebook;
pub mod read;
pub mod write;

use crate::disk::{self, Kind, LoadError, Loaded, Meta};
use crate::error::{Code, ToolError, ToolResult};
use crate::session::{Resolved, Session};
use crate::text::DecodeError;
use serde_json::{Map, Value};
use std::path::Path;

/// Tool names in the order of the spec.
pub const TOOLS: [&str; 5] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"];

/// Routes a call to its tool.
pub fn dispatch(session: &Session, tool: &str, input: &Value) -> ToolResult<Value> {
    match tool {
        "Read" => read::run(session, input),
        "Edit" => edit::run(session, input),
        "MultiEdit" => multi_edit::run(session, input),
        "Write" => write::run(session, input),
        "NotebookEdit" => notebook::run(session, input),
        other => Err(ToolError::invalid_input(format!(
            "unknown tool '{other}'. The tools are {}.",
            TOOLS.join(", ")
        ))),
    }
}

/// Edit or MultiEdit with the result kept typed, for callers that show the diff instead of
/// passing JSON on (the human CLI). The same input checks, rules and write as [`dispatch`];
/// only the `structuredPatch` value is never built — for a replace_all with 100,000 hits,
/// one JSON string per diff line costs more than the edit itself.
pub fn edit_outcome(session: &Session, tool: &str, input: &Value) -> ToolResult<edit::Done> {
    let (path, edits, dry_run) = match tool {
        "Edit" => {
            let (path, edit, dry_run) = edit::parse(input)?;
            (path, vec![edit], dry_run)
        }
        "MultiEdit" => multi_edit::parse(input)?,
        other => {
            return Err(ToolError::invalid_input(format!(
                "edit_outcome runs Edit and MultiEdit, not '{other}'."
            )))
        }
    };
    edit::apply(session, &path, &edits, dry_run, tool == "MultiEdit")
}

/// Strict access to a tool's input object.
pub(crate) struct Input<'a> {
    tool: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Input<'a> {
    /// Checks that `input` is an object whose keys are all in `allowed`.
    pub fn new(tool: &'static str, input: &'a Value, allowed: &[&str]) -> ToolResult<Input<'a>> {
        let map = input.as_object().ok_or_else(|| {
            ToolError::invalid_input(format!("{tool} expects a JSON object as input"))
        })?;
        if let Some(bad) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(ToolError::invalid_input(format!(
                "An unexpected parameter `{bad}` was provided to {tool}. Its parameters are: {}.",
                allowed.join(", ")
            ))
            .with("field", bad.as_str()));
        }
        Ok(Input { tool, map })
    }

    fn type_error(&self, key: &str, wanted: &str) -> ToolError {
        ToolError::invalid_input(format!(
            "The parameter `{key}` of {} must be {wanted}.",
            self.tool
        ))
        .with("field", key)
    }

    /// A required string.
    pub fn string(&self, key: &str) -> ToolResult<String> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => Err(ToolError::invalid_input(format!(
                "The required parameter `{key}` of {} is missing.",
                self.tool
            ))
            .with("field", key)),
            Some(_) => Err(self.type_error(key, "a string")),
        }
    }

    /// An optional string.
    pub fn opt_string(&self, key: &str) -> ToolResult<Option<String>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.type_error(key, "a string")),
        }
    }

    /// An optional boolean; the strings "true" and "false" are accepted.
    pub fn boolean(&self, key: &str) -> ToolResult<bool> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s == "true" => Ok(true),
            Some(Value::String(s)) if s == "false" => Ok(false),
            Some(_) => Err(self.type_error(key, "a boolean (true or false)")),
        }
    }

    /// An optional non-negative integer; numeric strings are accepted.
    pub fn integer(&self, key: &str) -> ToolResult<Option<u64>> {
        let v = match self.map.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(v) => v,
        };
        let n = match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        n.map(Some)
            .ok_or_else(|| self.type_error(key, "a non-negative whole number"))
    }

    /// The raw value of a key.
    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }
}

/// `file_not_found` with the working directory and a near name when one exists.
pub(crate) fn not_found(session: &Session, r: &Resolved) -> ToolError {
    let mut message = format!(
        "File does not exist. Note: your current working directory is {}.",
        session.config().cwd.display()
    );
    if let Some(s) = suggestion(session, &r.lexical) {
        message.push_str(&format!(" Did you mean {s}?"));
    }
    ToolError::new(Code::FileNotFound, message)
}

/// A sibling that differs only in case or extension.
fn suggestion(session: &Session, path: &Path) -> Option<String> {
    let parent = path.parent()?;
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let stem = path.file_stem()?.to_string_lossy().to_lowercase();
    let names = session.fs().read_dir(parent).ok()?;
    let mut names: Vec<String> = names
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    names.sort();
    let pick = names
        .iter()
        .find(|n| n.to_lowercase() == name)
        .or_else(|| {
            names.iter().find(|n| {
                Path::new(n.as_str())
                    .file_stem()
                    .is_some_and(|s| s.to_string_lossy().to_lowercase() == stem)
            })
        })?;
    Some(parent.join(pick).display().to_string())
}

/// `lstat` of a resolved, existing target.
pub(crate) fn stat(session: &Session, r: &Resolved) -> ToolResult<Meta> {
    session
        .fs()
        .symlink_metadata(&r.target)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => not_found(session, r),
            std::io::ErrorKind::PermissionDenied => ToolError::new(
                Code::PermissionDenied,
                format!("Permission denied reading '{}': {e}.", r.given),
            ),
            _ => ToolError::io(&format!("Could not stat '{}'", r.given), &e),
        })
}

/// PATH-3: special files are never opened for writing.
pub(crate) fn refuse_special(r: &Resolved, meta: &Meta) -> ToolResult<()> {
    match meta.kind {
        Kind::Fifo | Kind::Socket | Kind::Device => Err(ToolError::new(
            Code::NotRegularFile,
            format!(
                "'{}' is not a regular file (it is a {}). Only regular files can be edited or written.",
                r.given,
                kind_name(meta.kind)
            ),
        )),
        _ => Ok(()),
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::File => "regular file",
        Kind::Dir => "directory",
        Kind::Symlink => "symbolic link",
        Kind::Fifo => "named pipe",
        Kind::Socket => "socket",
        Kind::Device => "device",
    }
}

/// EDIT-1 step 5: the metadata checks every writer runs on an existing file (also under
/// `dry_run`).
pub(crate) fn metadata_checks(session: &Session, r: &Resolved, meta: &Meta) -> ToolResult<()> {
    if meta.kind == Kind::Dir {
        return Err(ToolError::new(
            Code::IsDirectory,
            format!(
                "'{}' is a directory, not a file. Give the path of a file inside it.",
                r.given
            ),
        ));
    }
    refuse_special(r, meta)?;
    let limit = session.config().max_edit_size;
    if meta.len > limit {
        return Err(ToolError::new(
            Code::TooLarge,
            format!(
                "File is too large to edit ({}). Maximum editable file size is {}.",
                human_size(meta.len),
                human_size(limit)
            ),
        ));
    }
    if meta.nlink > 1 {
        return Err(ToolError::new(
            Code::HardLink,
            format!(
                "'{}' has {} hard links. Replacing it would split the links apart, so it was left untouched; edit it with a tool that writes in place, or remove the other links first.",
                r.given, meta.nlink
            ),
        ));
    }
    if meta.mode & 0o200 == 0 {
        return Err(ToolError::new(
            Code::PermissionDenied,
            format!(
                "'{}' is read-only (mode {:o}). It was left untouched; make it writable first if it really should change.",
                r.given, meta.mode
            ),
        ));
    }
    Ok(())
}

/// Loads a file for a writer, mapping failures to codes.
pub(crate) fn load(session: &Session, r: &Resolved, cap: u64) -> ToolResult<Loaded> {
    disk::load(session.fs(), &r.target, cap).map_err(|e| match e {
        LoadError::NotRegular(kind) => ToolError::new(
            Code::NotRegularFile,
            format!(
                "'{}' is a {}, not a regular file.",
                r.given,
                kind_name(kind)
            ),
        ),
        LoadError::TooLarge(n) => ToolError::new(
            Code::TooLarge,
            format!(
                "'{}' is too large ({}; the limit is {}).",
                r.given,
                human_size(n),
                human_size(cap)
            ),
        ),
        LoadError::Io(e) if e.kind() == std::io::ErrorKind::PermissionDenied => ToolError::new(
            Code::PermissionDenied,
            format!(
                "Permission denied reading '{}': {e}. The file was left untouched.",
                r.given
            ),
        ),
        LoadError::Io(e) if e.raw_os_error() == Some(libc::ELOOP) => ToolError::new(
            Code::Stale,
            format!(
                "'{}' was replaced by a symbolic link while it was being opened. Read it again.",
                r.given
            ),
        ),
        LoadError::Io(e) => ToolError::io(&format!("Could not read '{}'", r.given), &e),
    })
}

/// TEXT-1/TEXT-7 refusals.
pub(crate) fn decode_error(e: DecodeError, given: &str) -> ToolError {
    match e {
        DecodeError::Binary => ToolError::new(
            Code::Binary,
            format!("'{given}' looks like a binary file (it contains NUL bytes), so it was left untouched. Text tools cannot edit it."),
        ),
        DecodeError::Encoding(why) => ToolError::new(
            Code::Encoding,
            format!("'{given}' cannot be decoded without loss: {why}. The file was left untouched."),
        ),
    }
}

/// `encoding` for text the file's encoding cannot hold (D11, D14).
pub(crate) fn unrepresentable(c: char, enc: &str, given: &str) -> ToolError {
    ToolError::new(
        Code::Encoding,
        format!(
            "The new text contains {c:?} (U+{:04X}), which the file's encoding ({enc}) cannot represent. '{given}' was left untouched; use characters the encoding has.",
            c as u32
        ),
    )
}

/// `formatFileSize` style: bytes, then KB/MB/GB with one decimal.
pub(crate) fn human_size(n: u64) -> String {
    if n < 1024 {
        return format!("{n} bytes");
    }
    let units = ["KB", "MB", "GB", "TB"];
    let mut v = n as f64 / 1024.0;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s).to_string();
    format!("{s}{}", units[i])
}

/// Whether a path names a notebook.
pub(crate) fn is_notebook(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "ipynb")
}

/// Adds `durable: false` when the write was not fully fsynced (DISK-6): fsync turned off, or
/// the directory sync after the rename failed.
pub(crate) fn mark_durability(durable: bool, out: &mut Map<String, Value>) {
    if !durable {
        out.insert("durable".into(), Value::Bool(false));
    }
}
