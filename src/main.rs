//! The `editref` binary: the tools for people (`read`, `edit`, …), for programs (`call`,
//! `serve`, `mcp`), and the conformance harness (`conform`).
//!
//! Exit codes: 0 done, 1 refused (the error code is printed), 2 usage.

use clap::{Parser, Subcommand};
use editref::api::{
    EditInput, LineEditInput, MultiEditInput, NotebookEditInput, ReadInput, UndoInput, WriteInput,
};
use editref::{protocol, Config, Session, ToolError};
use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;
use cli::{current_dir, human, one_shot_session, print_change, print_read, Common, UndoFlags};

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

/// `editref mcp`: the MCP server, on stdio or (loopback only) streamable HTTP.
#[cfg(feature = "mcp")]
fn mcp(
    roots: Vec<PathBuf>,
    tools: &str,
    http: Option<std::net::SocketAddr>,
    no_fsync: bool,
    undo: &UndoFlags,
) -> ExitCode {
    use editref::mcp;
    let mut options = mcp::Options::new(current_dir());
    options.roots = roots;
    options.fsync = !no_fsync;
    options.undo = undo.place();
    if let Err(e) = options.select_tools(tools) {
        return usage(&e);
    }
    let served = match http {
        Some(addr) if !mcp::http::allowed(&addr) => {
            return usage(&format!(
                "--http {addr}: only loopback addresses (127.0.0.1, [::1]) are served; the server has no authentication"
            ))
        }
        Some(addr) => mcp::run_http(options, addr),
        None => mcp::run_stdio(options),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("editref mcp: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("editref: {message}");
    ExitCode::from(2)
}

/// `@FILE`, `-` (stdin) or the text itself.
fn argument_text(arg: &str) -> std::io::Result<String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        Ok(s)
    } else if let Some(path) = arg.strip_prefix('@') {
        std::fs::read_to_string(path)
    } else {
        Ok(arg.to_string())
    }
}

/// `editref call`: one JSON call on stdin, the JSON result on stdout; optionally a persistent
/// read state so that shell-driven agents get read-before-write and staleness checks.
fn call(
    state: Option<PathBuf>,
    cwd: Option<PathBuf>,
    root: Option<PathBuf>,
    no_fsync: bool,
    undo: &UndoFlags,
) -> ExitCode {
    let mut raw = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut raw) {
        return usage(&format!("could not read the call from stdin: {e}"));
    }
    let reply = |v: Value, code: u8| {
        println!("{v}");
        ExitCode::from(code)
    };
    let request: Value = match serde_json::from_str(&raw) {
        Ok(v) => v,
        Err(e) => {
            let err = ToolError::invalid_input(format!("the call is not valid JSON: {e}"));
            return reply(json!({"ok": false, "error": err.to_json()}), 1);
        }
    };
    let (Some(tool), Some(input)) = (
        request.get("tool").and_then(Value::as_str),
        request.get("input"),
    ) else {
        let err = ToolError::invalid_input("the call must be {\"tool\": NAME, \"input\": {...}}");
        return reply(json!({"ok": false, "error": err.to_json()}), 1);
    };
    let cwd = cwd.unwrap_or_else(current_dir);
    let session = match &state {
        None => one_shot_session(root, cwd, no_fsync, undo),
        Some(_) => {
            let mut config = Config::new(&cwd);
            config.undo = undo.place().config_for(root.as_deref().unwrap_or(&cwd));
            config.root = root;
            config.fsync = !no_fsync;
            Session::new(config)
        }
    };
    let lock = match &state {
        Some(path) => match editref::session::file::open(path) {
            Ok(f) => {
                session.set_read_state(f.state.clone());
                Some(f)
            }
            Err(e) => {
                let err = ToolError::io(
                    &format!("Could not open the session file {}", path.display()),
                    &e,
                );
                return reply(json!({"ok": false, "error": err.to_json()}), 1);
            }
        },
        None => None,
    };
    let result = session.call(tool, input);
    if let Some(mut f) = lock {
        f.state = session.read_state();
        if let Err(e) = f.save() {
            eprintln!("editref: could not save the session file: {e}");
        }
    }
    match result {
        Ok(output) => reply(json!({"ok": true, "output": output}), 0),
        Err(e) => reply(json!({"ok": false, "error": e.to_json()}), 1),
    }
}

/// `editref conform …` runs the conformance harness, `editref-conform`, with the same arguments.
///
/// The harness is its own crate (it depends on this library for `--builtin`, so this binary
/// cannot link it without a cycle); like `git` and `cargo` subcommands, it is looked up next to
/// this executable first — where `cargo build` and `cargo install` put it — then on `PATH`.
fn conform(args: &[String]) -> ExitCode {
    use std::os::unix::process::CommandExt;
    const NAME: &str = "editref-conform";
    let beside = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name(NAME))
        .filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from(NAME));
    let err = std::process::Command::new(&program).args(args).exec();
    if err.kind() == std::io::ErrorKind::NotFound {
        usage(&format!(
            "the conformance harness ({NAME}) is not installed next to this binary or on PATH. \
             Build it with `cargo build --release -p {NAME}` in a clone of editref, or install it \
             with `cargo install --locked --path conformance`."
        ))
    } else {
        usage(&format!("could not start {}: {err}", program.display()))
    }
}
