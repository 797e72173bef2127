//! The entry to the tools, above them: the typed methods of [`Session`] and the JSON dispatch
//! ([`Session::call`]) that every JSON front end (`editref call`, `serve`, the MCP server)
//! goes through.
//!
//! It sits above [`crate::tools`] on purpose. The session keeps state and path rules *below*
//! the tools, the tools use it, and this layer routes calls into them, so the modules form one
//! way down — call → tool → session/engine/disk — with no circle. The JSON entry parses into
//! the typed input (see [`crate::api`]), runs the same typed method and serializes its output,
//! so both entries take exactly one path through the tools.

use crate::api::{
    ApplyPatchInput, EditCall, EditInput, EditOutput, FilesOutput, LineEditInput, LineEditOutput,
    MultiEditInput, MultiEditOutput, NotebookEditInput, NotebookEditOutput, PatchOperation,
    ReadInput, ReadOutput, SearchReplaceInput, TextEditorInput, TextEditorOutput, UndoInput,
    UndoOutput, WriteInput, WriteOutput,
};
use crate::dialects;
use crate::error::{ToolError, ToolResult};
use crate::session::Session;
use crate::tools;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// The five tools of Claude Code's format, in the order of the spec: what the MCP server
/// offers unless told otherwise.
pub const TOOLS: [&str; 5] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"];

/// Every tool name [`Session::call`] answers to: the five, undo, and the dialects (§15).
pub const ALL_TOOLS: [&str; 10] = [
    "Read",
    "Edit",
    "MultiEdit",
    "Write",
    "NotebookEdit",
    "Undo",
    "LineEdit",
    "str_replace_based_edit_tool",
    "search_replace",
    "apply_patch",
];

impl Session {
    /// Read (READ-1..7): numbered text lines, media as base64, notebooks as cells. A full Read
    /// is what allows a later write of the file in this session.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::ReadInput};
    /// let session = Session::new(Config::new("/repo"));
    /// let out = session.read(ReadInput::new("src/main.rs"))?;
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn read(&self, input: ReadInput) -> ToolResult<ReadOutput> {
        tools::read::run(self, input)
    }

    /// Edit (EDIT-1..7): replaces the one occurrence of `old_string` (or every one with
    /// `replace_all`), written atomically, or refuses with a coded error and changes nothing.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{EditInput, ReadInput}};
    /// let session = Session::new(Config::new("/repo").with_root("/repo"));
    /// session.read(ReadInput::new("src/main.rs"))?;
    /// let out = session.edit(EditInput::new("src/main.rs", "let x = 1;", "let x = 2;"))?;
    /// println!("{} replacement(s)\n{}", out.replacements, out.change.diff());
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn edit(&self, input: EditInput) -> ToolResult<EditOutput> {
        tools::edit::run(self, input)
    }

    /// MultiEdit (MULTI-1..5): several edits of one file in order, all written or none.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{EditSpec, MultiEditInput, ReadInput}};
    /// let session = Session::new(Config::new("/repo"));
    /// session.read(ReadInput::new("a.py"))?;
    /// let out = session.multi_edit(MultiEditInput {
    ///     file_path: "a.py".into(),
    ///     edits: vec![
    ///         EditSpec { old_string: "x = 1".into(), new_string: "x = 2".into(), replace_all: false },
    ///         EditSpec { old_string: "old".into(), new_string: "new".into(), replace_all: true },
    ///     ],
    ///     dry_run: false,
    /// })?;
    /// assert_eq!(out.edits.len(), 2);
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn multi_edit(&self, input: MultiEditInput) -> ToolResult<MultiEditOutput> {
        tools::multi_edit::run(self, input)
    }

    /// Write (WRITE-1..5): creates a file, or replaces a fully read one, keeping its encoding.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{WriteInput, WriteKind}};
    /// let session = Session::new(Config::new("/repo"));
    /// let out = session.write(WriteInput::new("notes/new.txt", "hello\n"))?;
    /// assert_eq!(out.kind, WriteKind::Create);
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn write(&self, input: WriteInput) -> ToolResult<WriteOutput> {
        tools::write::run(self, input)
    }

    /// NotebookEdit (NOTEBOOK-1..4): replaces, inserts or deletes one cell of a notebook.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{NotebookEditInput, ReadInput}};
    /// let session = Session::new(Config::new("/repo"));
    /// session.read(ReadInput::new("analysis.ipynb"))?;
    /// session.notebook_edit(NotebookEditInput {
    ///     notebook_path: "analysis.ipynb".into(),
    ///     cell_id: Some("cell-2".into()),
    ///     new_source: Some("print(1)".into()),
    ///     ..Default::default()
    /// })?;
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn notebook_edit(&self, input: NotebookEditInput) -> ToolResult<NotebookEditOutput> {
        tools::notebook::run(self, input)
    }

    /// Undo (UNDO-2..5): takes back the last write (or `steps` writes) of a file, each with
    /// every other file the same call changed, refusing when a file changed since.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{EditInput, ReadInput, UndoInput}};
    /// # use editref::undo::UndoPlace;
    /// // The journal the CLI, `call` and `mcp` keep for /repo, outside the working tree.
    /// let mut config = Config::new("/repo").with_root("/repo");
    /// config.undo = UndoPlace::user_state().config_for("/repo".as_ref());
    /// let session = Session::new(config);
    /// session.read(ReadInput::new("a.py"))?;
    /// session.edit(EditInput::new("a.py", "x = 1", "x = 2"))?;
    /// session.undo(UndoInput::new("a.py"))?; // a.py holds its old bytes again
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn undo(&self, input: UndoInput) -> ToolResult<UndoOutput> {
        tools::undo::run(self, input)
    }

    /// LineEdit (LINES-1..6): replaces lines by number, after a full Read, refusing when the
    /// file changed since or the lines do not hold `expected_text`.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{LineEditInput, ReadInput}};
    /// let session = Session::new(Config::new("/repo"));
    /// session.read(ReadInput::new("a.py"))?;
    /// session.line_edit(LineEditInput {
    ///     file_path: "a.py".into(),
    ///     start_line: 3,
    ///     end_line: 4,
    ///     new_content: "y = 2\n".into(),
    ///     ..Default::default()
    /// })?;
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn line_edit(&self, input: LineEditInput) -> ToolResult<LineEditOutput> {
        tools::line_edit::run(self, input)
    }

    /// Codex's apply_patch (APPLY rules): a V4A patch applied to every file it names, all or
    /// nothing.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::ApplyPatchInput};
    /// let session = Session::new(Config::new("/repo"));
    /// let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n";
    /// let out = session.apply_patch(ApplyPatchInput::new(patch))?;
    /// assert_eq!(out.files.len(), 1);
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn apply_patch(&self, input: ApplyPatchInput) -> ToolResult<FilesOutput> {
        dialects::apply_patch::run(self, input)
    }

    /// One operation of the Responses API's apply_patch (`create_file`, `update_file`,
    /// `delete_file` with a V4A diff): the shape the API hands a client one file at a time,
    /// checked and written as a patch of that one file would be.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::PatchOperation};
    /// let session = Session::new(Config::new("/repo"));
    /// let out = session.apply_patch_operation(PatchOperation {
    ///     kind: "create_file".into(),
    ///     path: "notes.txt".into(),
    ///     diff: "+first line\n+second line\n".into(),
    /// })?;
    /// assert_eq!(out.files.len(), 1);
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn apply_patch_operation(&self, op: PatchOperation) -> ToolResult<FilesOutput> {
        dialects::apply_patch::run_operation(self, op)
    }

    /// Aider's SEARCH/REPLACE blocks (BLOCK rules): every block of a reply applied to the
    /// files it names, all or nothing.
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::SearchReplaceInput};
    /// let session = Session::new(Config::new("/repo"));
    /// let reply = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
    /// let out = session.search_replace(SearchReplaceInput::new(reply))?;
    /// assert_eq!(out.files.len(), 1);
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn search_replace(&self, input: SearchReplaceInput) -> ToolResult<FilesOutput> {
        dialects::search_replace::run(self, input)
    }

    /// Anthropic's text editor tool (EDITOR-1..6): `view`, `create`, `str_replace`, `insert`
    /// and `undo_edit`, each run as the tool that does that job — so a `view` counts as the
    /// Read that a later `str_replace` needs (EDITOR-2).
    ///
    /// ```no_run
    /// # use editref::{Config, Session, api::{EditorCommand, TextEditorInput}};
    /// let session = Session::new(Config::new("/repo"));
    /// session.text_editor(TextEditorInput::new(EditorCommand::View, "a.py"))?;
    /// session.text_editor(TextEditorInput {
    ///     old_str: Some("x = 1".into()),
    ///     new_str: Some("x = 2".into()),
    ///     ..TextEditorInput::new(EditorCommand::StrReplace, "a.py")
    /// })?;
    /// # Ok::<(), editref::ToolError>(())
    /// ```
    pub fn text_editor(&self, input: TextEditorInput) -> ToolResult<TextEditorOutput> {
        dialects::text_editor::run(self, input)
    }

    /// Runs one tool call from JSON: `tool` is one of [`ALL_TOOLS`], `input` its JSON input. The result is the tool's JSON output or a coded
    /// error. The input is parsed into the tool's typed input and the typed method runs, so
    /// this is exactly the typed API with JSON at both ends.
    pub fn call(&self, tool: &str, input: &Value) -> ToolResult<Value> {
        match tool {
            "Edit" | "MultiEdit" | "Write" => self.call_value(tool, input.clone()),
            _ => self.call_borrowed(tool, input).and_then(json),
        }
    }

    /// [`Session::call`] on an input the caller hands over. The same call, answered the same
    /// way; the strings of Edit, MultiEdit and Write are moved out of the input instead of
    /// copied, so that a front end holding a request of many megabytes does not hold its
    /// strings twice (PATH-4's bounded memory).
    pub fn call_value(&self, tool: &str, input: Value) -> ToolResult<Value> {
        self.call_output(tool, input).and_then(json)
    }

    /// [`Session::call_value`] with the tool's typed output, not yet JSON. Serialized, the
    /// output is the very JSON `call_value` returns; a front end that only writes it out
    /// (`editref call`, `serve`) writes it straight from the typed value, without building a
    /// [`Value`] tree of it first — for a replace_all of 100,000 hits, a tree as large again as
    /// the diff.
    pub fn call_output(&self, tool: &str, input: Value) -> ToolResult<CallOutput> {
        match tool {
            "Edit" => match EditCall::from_value(input)? {
                EditCall::One(input) => Ok(CallOutput::Edit(self.edit(input)?)),
                // Pi's list of edits (ALIAS-6): MultiEdit's answer.
                EditCall::List(input) => Ok(CallOutput::MultiEdit(
                    tools::multi_edit::run_on_original(self, input)?,
                )),
            },
            "MultiEdit" => Ok(CallOutput::MultiEdit(
                self.multi_edit(MultiEditInput::from_value(input)?)?,
            )),
            "Write" => Ok(CallOutput::Write(
                self.write(WriteInput::from_value(input)?)?,
            )),
            _ => self.call_borrowed(tool, &input),
        }
    }

    /// The other tools, whose inputs are read from a borrowed value (and unknown names).
    fn call_borrowed(&self, tool: &str, input: &Value) -> ToolResult<CallOutput> {
        Ok(match tool {
            "Read" => CallOutput::Read(self.read(ReadInput::from_json(input)?)?),
            "NotebookEdit" => {
                CallOutput::NotebookEdit(self.notebook_edit(NotebookEditInput::from_json(input)?)?)
            }
            "Undo" => CallOutput::Undo(self.undo(UndoInput::from_json(input)?)?),
            "LineEdit" => CallOutput::LineEdit(self.line_edit(LineEditInput::from_json(input)?)?),
            "search_replace" => {
                CallOutput::Files(self.search_replace(SearchReplaceInput::from_json(input)?)?)
            }
            "apply_patch" if PatchOperation::is_operation(input) => {
                CallOutput::Files(self.apply_patch_operation(PatchOperation::from_json(input)?)?)
            }
            "apply_patch" => {
                CallOutput::Files(self.apply_patch(ApplyPatchInput::from_json(input)?)?)
            }
            "str_replace_based_edit_tool" | "str_replace_editor" => {
                CallOutput::TextEditor(self.text_editor(TextEditorInput::from_json(input)?)?)
            }
            other => {
                return Err(ToolError::invalid_input(format!(
                    "unknown tool '{other}'. The tools are {}.",
                    ALL_TOOLS.join(", ")
                )))
            }
        })
    }
}

/// The typed output of whichever tool a JSON call ran ([`Session::call_output`]). It serializes
/// exactly as the tool's own output type does.
#[derive(Debug)]
pub enum CallOutput {
    /// Read.
    Read(ReadOutput),
    /// Edit.
    Edit(EditOutput),
    /// MultiEdit.
    MultiEdit(MultiEditOutput),
    /// Write.
    Write(WriteOutput),
    /// NotebookEdit.
    NotebookEdit(NotebookEditOutput),
    /// Undo.
    Undo(UndoOutput),
    /// LineEdit.
    LineEdit(LineEditOutput),
    /// apply_patch and search_replace: the files they changed.
    Files(FilesOutput),
    /// Anthropic's text editor tool.
    TextEditor(TextEditorOutput),
}

impl Serialize for CallOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            CallOutput::Read(o) => o.serialize(serializer),
            CallOutput::Edit(o) => o.serialize(serializer),
            CallOutput::MultiEdit(o) => o.serialize(serializer),
            CallOutput::Write(o) => o.serialize(serializer),
            CallOutput::NotebookEdit(o) => o.serialize(serializer),
            CallOutput::Undo(o) => o.serialize(serializer),
            CallOutput::LineEdit(o) => o.serialize(serializer),
            CallOutput::Files(o) => o.serialize(serializer),
            CallOutput::TextEditor(o) => o.serialize(serializer),
        }
    }
}

/// A typed output as JSON. The outputs hold only strings, numbers, lists and maps with string
/// keys, so serializing them cannot fail; should it ever, the caller gets a coded error, not
/// a panic.
pub(crate) fn json<T: Serialize>(output: T) -> ToolResult<Value> {
    serde_json::to_value(output).map_err(|e| {
        ToolError::new(
            crate::error::Code::Io,
            format!("The result could not be serialized: {e}. The tool did run; read the file to see its state."),
        )
    })
}
