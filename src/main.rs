//! The `editref` binary: the tools for people (`read`, `edit`, …), for programs (`call`,
//! `serve`, `mcp`), and the conformance harness (`conform`).
//!
//! The command line is defined in `cli/args.rs`; this file routes each subcommand to the
//! typed API and to how its result is printed.
//!
//! Exit codes: 0 done, 1 refused (the error code is printed), 2 usage.

use clap::Parser;
use editref::api::{
    EditInput, LineEditInput, MultiEditInput, NotebookEditInput, ReadInput, UndoInput, WriteInput,
};
use editref::protocol;
use serde_json::{json, Value};
use std::io::Read;
use std::process::ExitCode;

mod cli;
use cli::args::{Cli, Command};
#[cfg(feature = "mcp")]
use cli::programs::mcp;
use cli::programs::{call, conform};
use cli::{argument_text, human, print_change, print_read, usage, words, Common};

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
            flags,
        } => human(
            &Common::from(flags),
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
            &common.speaking(words::EDIT),
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
                &common.speaking(words::WRITE),
                |s| s.write(WriteInput::new(file, content)),
                cli::print_write,
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
            &common.speaking(words::NOTEBOOK_EDIT),
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
                &common.speaking(words::LINE_EDIT),
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
        Command::Undo { file, steps, flags } => human(
            &Common::from(flags),
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
                // The client closed its end of the replies: the session is over, as when it
                // closes the requests; every call answered before was made.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
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
        Command::Completions { shell } => cli::manuals::completions(shell),
        Command::Man { out } => cli::manuals::man(out.as_deref()),
        Command::Conform { args } => conform(&args),
    }
}
