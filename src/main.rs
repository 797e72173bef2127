//! The `editref` binary: the tools for people (`read`, `edit`, …), for programs (`call`,
//! `serve`, `mcp`), and the conformance harness (`conform`).
//!
//! Exit codes: 0 done, 1 refused (the error code is printed), 2 usage.

use clap::{Parser, Subcommand};
use editref::api::{
    EditInput, LineEditInput, MultiEditInput, NotebookEditInput, ReadInput, UndoInput, WriteInput,
};
use editref::protocol;
use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;
#[cfg(feature = "mcp")]
use cli::programs::mcp;
use cli::programs::{call, conform};
use cli::{argument_text, human, print_change, print_read, usage, Common, UndoFlags};

#[derive(Parser)]
#[command(
    name = "editref",
    version,
    about = "Reference file tools for coding agents: Read, Edit, MultiEdit, Write, NotebookEdit — edits that never corrupt a file",
    after_help = "Exit codes: 0 done, 1 refused (the error code is printed), 2 usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print a file with line numbers (READ-1).
    Read {
        /// The file.
        file: String,
        /// First line to show (1-based).
        #[arg(long)]
        offset: Option<u64>,
        /// How many lines to show.
        #[arg(long)]
        limit: Option<u64>,
        /// PDF page range (N or N-M).
        #[arg(long)]
        pages: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Replace one exact occurrence of a string (or all with --replace-all).
    Edit {
        /// The file.
        file: String,
        /// The exact text to replace.
        #[arg(long, allow_hyphen_values = true)]
        old_string: String,
        /// The text to put in its place.
        #[arg(long, allow_hyphen_values = true)]
        new_string: String,
        /// Replace every occurrence instead of requiring exactly one.
        #[arg(long)]
        replace_all: bool,
        /// Replace every occurrence, and refuse unless there are exactly N.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        expected_replacements: Option<u64>,
        /// Validate and show the diff without writing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Apply several edits to one file, all or nothing.
    MultiEdit {
        /// The file.
        file: String,
        /// The edits as a JSON array of {old_string, new_string, replace_all?}, or @FILE, or - for stdin.
        #[arg(long, allow_hyphen_values = true)]
        edits: String,
        /// Validate and show the diff without writing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Replace a file's whole content (or create it).
    Write {
        /// The file.
        file: String,
        /// The new content; without it, the content is read from stdin.
        #[arg(long, allow_hyphen_values = true)]
        content: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Replace, insert or delete a notebook cell.
    NotebookEdit {
        /// The notebook (.ipynb).
        file: String,
        /// The cell id (or cell-N for the N-th cell, 0-based).
        #[arg(long)]
        cell_id: Option<String>,
        /// The new source of the cell.
        #[arg(long, allow_hyphen_values = true)]
        new_source: Option<String>,
        /// code or markdown.
        #[arg(long)]
        cell_type: Option<String>,
        /// replace (default), insert or delete.
        #[arg(long)]
        edit_mode: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Replace lines START to END (1-based, inclusive) of a file; END = START - 1 inserts.
    LineEdit {
        /// The file.
        file: String,
        /// The first line to replace.
        #[arg(long)]
        start: u64,
        /// The last line to replace (START - 1 to insert before START).
        #[arg(long)]
        end: u64,
        /// The new lines, or @FILE, or - for stdin.
        #[arg(long, allow_hyphen_values = true)]
        content: String,
        /// Refuse unless the lines hold this text now.
        #[arg(long, allow_hyphen_values = true)]
        expected: Option<String>,
        /// Validate and show the diff without writing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Take back the last write (or the last N) of a file made by editref, with every other
    /// file the same call changed; refused if the file changed since.
    Undo {
        /// The file.
        file: String,
        /// How many writes to take back, newest first.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        steps: u64,
        #[command(flatten)]
        common: Common,
    },
    /// Apply a patch in Codex's apply_patch format to the files it names, all or nothing. The
    /// patch is read from stdin unless given.
    ApplyPatch {
        /// The patch, or @FILE, or - for stdin (the default).
        #[arg(default_value = "-", allow_hyphen_values = true)]
        patch: String,
        /// Resolve the patch's paths against DIR.
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Check everything and show the diffs, but write nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Apply the SEARCH/REPLACE blocks of a reply (Aider's format) to the files they name,
    /// all or nothing. The reply is read from stdin unless given.
    SearchReplace {
        /// The reply, or @FILE, or - for stdin (the default).
        #[arg(default_value = "-")]
        reply: String,
        /// Resolve the blocks' paths against DIR.
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Check everything and show the diffs, but write nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Anthropic's text editor tool: view, create, str_replace, insert or undo_edit.
    TextEditor {
        /// view, create, str_replace, insert or undo_edit.
        command: String,
        /// The file (or, for view, a directory).
        path: String,
        /// view: the first and last line (-1 for the end).
        #[arg(long, num_args = 2, allow_hyphen_values = true, value_names = ["FIRST", "LAST"])]
        view_range: Option<Vec<i64>>,
        /// create: the file's content, or @FILE, or - for stdin.
        #[arg(long, allow_hyphen_values = true)]
        file_text: Option<String>,
        /// str_replace: the text to replace.
        #[arg(long, allow_hyphen_values = true)]
        old_str: Option<String>,
        /// str_replace: the text to put in its place.
        #[arg(long, allow_hyphen_values = true)]
        new_str: Option<String>,
        /// insert: the line after which to insert (0: the top).
        #[arg(long)]
        insert_line: Option<u64>,
        /// insert: the text, or @FILE, or - for stdin.
        #[arg(long, allow_hyphen_values = true)]
        insert_text: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// One tool call as JSON on stdin ({"tool": "Edit", "input": {...}}), the result on stdout.
    Call {
        /// Keep the read state in FILE between calls, so read-before-write and staleness
        /// checks apply across processes (SESSION-1).
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
        /// Working directory for relative paths (default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Refuse paths whose final target lies outside DIR (PATH-2).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Skip fsync (tests and benchmarks only).
        #[arg(long)]
        no_fsync: bool,
        #[command(flatten)]
        undo: UndoFlags,
    },
    /// Speak adapter protocol v1 on stdin/stdout (what the conformance harness drives).
    Serve {
        /// Skip fsync (tests and benchmarks only).
        #[arg(long)]
        no_fsync: bool,
    },
    /// Serve the tools over the Model Context Protocol (stdio, or streamable HTTP with --http).
    #[cfg(feature = "mcp")]
    Mcp {
        /// Refuse paths whose final target lies outside DIR (repeatable: a path must lie under
        /// one of them). Without it: the client's roots, else the working directory.
        #[arg(long, value_name = "DIR")]
        root: Vec<PathBuf>,
        /// The tools to offer, comma-separated, or `all` (the five, Undo, LineEdit and the
        /// dialects).
        #[arg(
            long,
            value_name = "LIST",
            default_value = "Read,Edit,MultiEdit,Write,NotebookEdit,Undo"
        )]
        tools: String,
        /// Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8765) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Skip fsync (tests and benchmarks only).
        #[arg(long)]
        no_fsync: bool,
        #[command(flatten)]
        undo: UndoFlags,
    },
    /// Certify an implementation against the conformance corpus (see `editref conform --help`).
    #[command(disable_help_flag = true)]
    Conform {
        /// Arguments for the harness.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    // `editref help conform` is the harness's own help: the options live in `editref-conform`.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).take(2).collect();
    if args == ["help", "conform"] {
        return conform(&["--help".to_string()]);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Read {
            file,
            offset,
            limit,
            pages,
            common,
        } => human(
            &common,
            |s| {
                s.read(ReadInput {
                    file_path: file,
                    offset,
                    limit,
                    pages,
                })
            },
            print_read,
        ),
        Command::Edit {
            file,
            old_string,
            new_string,
            replace_all,
            expected_replacements,
            dry_run,
            common,
        } => human(
            &common,
            |s| {
                s.edit(EditInput {
                    file_path: file,
                    old_string,
                    new_string,
                    replace_all,
                    expected_replacements,
                    dry_run,
                })
            },
            |out, done| {
                let n = done.replacements;
                let count = format!(" ({n} replacement{})", if n == 1 { "" } else { "s" });
                print_change(
                    out,
                    done.change.diff(),
                    done.dry_run,
                    &done.file_path,
                    &count,
                )
            },
        ),
        Command::MultiEdit {
            file,
            edits,
            dry_run,
            common,
        } => {
            let text = match argument_text(&edits) {
                Ok(t) => t,
                Err(e) => return usage(&format!("--edits: {e}")),
            };
            let edits: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => return usage(&format!("--edits is not valid JSON: {e}")),
            };
            // The edits are JSON a person wrote: the tool's own parser checks them, so the
            // messages are the ones a model would get.
            let input = json!({"file_path": file, "edits": edits, "dry_run": dry_run});
            human(
                &common,
                |s| s.multi_edit(MultiEditInput::from_json(&input)?),
                |out, done| {
                    let count = format!(" ({} edits)", done.edits.len());
                    print_change(
                        out,
                        done.change.diff(),
                        done.dry_run,
                        &done.file_path,
                        &count,
                    )
                },
            )
        }
        Command::Write {
            file,
            content,
            common,
        } => {
            let content = match content {
                Some(c) => c,
                None => {
                    let mut s = String::new();
                    if let Err(e) = std::io::stdin().read_to_string(&mut s) {
                        return usage(&format!("could not read the content from stdin: {e}"));
                    }
                    s
                }
            };
            human(
                &common,
                |s| s.write(WriteInput::new(file, content)),
                |out, done| {
                    print_change(
                        out,
                        done.structured_patch.diff(),
                        false,
                        &done.file_path,
                        "",
                    )
                },
            )
        }
        Command::NotebookEdit {
            file,
            cell_id,
            new_source,
            cell_type,
            edit_mode,
            common,
        } => human(
            &common,
            |s| {
                s.notebook_edit(NotebookEditInput {
                    notebook_path: file,
                    cell_id,
                    new_source,
                    cell_type,
                    edit_mode,
                })
            },
            |out, done| {
                writeln!(
                    out,
                    "{} cell {} of {}",
                    done.edit_mode, done.cell_id, done.notebook_path
                )
            },
        ),
        Command::LineEdit {
            file,
            start,
            end,
            content,
            expected,
            dry_run,
            common,
        } => {
            let content = match argument_text(&content) {
                Ok(t) => t,
                Err(e) => return usage(&format!("--content: {e}")),
            };
            human(
                &common,
                |s| {
                    s.line_edit(LineEditInput {
                        file_path: file,
                        start_line: start,
                        end_line: end,
                        new_content: content,
                        expected_text: expected,
                        dry_run,
                    })
                },
                |out, done| {
                    print_change(out, done.change.diff(), done.dry_run, &done.file_path, "")
                },
            )
        }
        Command::Undo {
            file,
            steps,
            common,
        } => human(
            &common,
            |s| {
                s.undo(UndoInput {
                    file_path: file,
                    steps,
                })
            },
            |out, done| {
                for step in &done.undone {
                    for f in &step.files {
                        let what = match f.action {
                            editref::api::UndoAction::Restored => "restored",
                            editref::api::UndoAction::Removed => "removed",
                            editref::api::UndoAction::Recreated => "recreated",
                        };
                        writeln!(out, "{what} {} (undid {})", f.file_path, step.tool)?;
                    }
                }
                Ok(())
            },
        ),
        Command::ApplyPatch {
            patch,
            cwd,
            dry_run,
            common,
        } => cli::apply_patch(&common, &patch, cwd, dry_run),
        Command::SearchReplace {
            reply,
            cwd,
            dry_run,
            common,
        } => cli::search_replace(&common, &reply, cwd, dry_run),
        Command::TextEditor {
            command,
            path,
            view_range,
            file_text,
            old_str,
            new_str,
            insert_line,
            insert_text,
            common,
        } => cli::text_editor(
            &common,
            cli::EditorArgs {
                command,
                path,
                view_range,
                file_text,
                old_str,
                new_str,
                insert_line,
                insert_text,
            },
        ),
        Command::Call {
            session,
            cwd,
            root,
            no_fsync,
            undo,
        } => call(session, cwd, root, no_fsync, &undo),
        Command::Serve { no_fsync } => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            match protocol::serve(stdin, stdout, no_fsync) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("editref serve: {e}");
                    ExitCode::from(1)
                }
            }
        }
        #[cfg(feature = "mcp")]
        Command::Mcp {
            root,
            tools,
            http,
            no_fsync,
            undo,
        } => mcp(root, &tools, http, no_fsync, &undo),
        Command::Conform { args } => conform(&args),
    }
}
