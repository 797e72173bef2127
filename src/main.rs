//! The `editref` binary: the tools for people (`read`, `edit`, …), for programs (`call`,
//! `serve`), and the conformance harness (`conform`).
//!
//! Exit codes: 0 done, 1 refused (the error code is printed), 2 usage.

use clap::{Args, Parser, Subcommand};
use editref::{protocol, Config, Session, ToolError};
use serde_json::{json, Value};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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

#[derive(Args, Clone)]
struct Common {
    /// Refuse paths whose final target lies outside DIR (PATH-2).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print the JSON result instead of a human summary.
    #[arg(long)]
    json: bool,
    /// Skip fsync (faster, not crash-durable; results say so). For tests and benchmarks.
    #[arg(long)]
    no_fsync: bool,
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
    },
    /// Speak adapter protocol v1 on stdin/stdout (what the conformance harness drives).
    Serve {
        /// Skip fsync (tests and benchmarks only).
        #[arg(long)]
        no_fsync: bool,
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
        } => {
            let mut input = json!({ "file_path": file });
            if let Some(o) = offset {
                input["offset"] = json!(o);
            }
            if let Some(l) = limit {
                input["limit"] = json!(l);
            }
            if let Some(p) = pages {
                input["pages"] = json!(p);
            }
            human("Read", input, &common)
        }
        Command::Edit {
            file,
            old_string,
            new_string,
            replace_all,
            dry_run,
            common,
        } => human(
            "Edit",
            json!({"file_path": file, "old_string": old_string, "new_string": new_string,
                   "replace_all": replace_all, "dry_run": dry_run}),
            &common,
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
            human(
                "MultiEdit",
                json!({"file_path": file, "edits": edits, "dry_run": dry_run}),
                &common,
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
                "Write",
                json!({"file_path": file, "content": content}),
                &common,
            )
        }
        Command::NotebookEdit {
            file,
            cell_id,
            new_source,
            cell_type,
            edit_mode,
            common,
        } => {
            let mut input = json!({ "notebook_path": file });
            for (k, v) in [
                ("cell_id", cell_id),
                ("new_source", new_source),
                ("cell_type", cell_type),
                ("edit_mode", edit_mode),
            ] {
                if let Some(v) = v {
                    input[k] = json!(v);
                }
            }
            human("NotebookEdit", input, &common)
        }
        Command::Call {
            session,
            cwd,
            root,
            no_fsync,
        } => call(session, cwd, root, no_fsync),
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
        Command::Conform { args } => conform(&args),
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

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
}

fn one_shot_session(root: Option<PathBuf>, cwd: PathBuf, no_fsync: bool) -> Session {
    let mut config = Config::new(cwd).one_shot();
    config.root = root;
    config.fsync = !no_fsync;
    Session::new(config)
}

/// The human subcommands: one-shot calls, a summary (and coloured diff on a terminal) or JSON.
fn human(tool: &str, input: Value, common: &Common) -> ExitCode {
    let session = one_shot_session(common.root.clone(), current_dir(), common.no_fsync);
    // Stdout is line-buffered: without this, a diff of 100,000 lines is 100,000 write calls.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    if !common.json && matches!(tool, "Edit" | "MultiEdit") {
        // Only the diff is shown: the typed result skips building structuredPatch as JSON.
        return match editref::tools::edit_outcome(&session, tool, &input) {
            Ok(done) => {
                let _ = print_edit_summary(&mut out, tool, &input, &done);
                let _ = out.flush();
                // A one-shot process: the OS frees the (possibly huge) patch faster than
                // dropping it line by line would.
                std::mem::forget(done);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("editref: refused ({}): {}", e.code, e.message);
                ExitCode::from(1)
            }
        };
    }
    let result = session.call(tool, &input);
    match result {
        Ok(v) => {
            if common.json {
                let _ = writeln!(out, "{}", v);
            } else {
                let _ = print_summary(&mut out, tool, &v);
            }
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(e) => {
            if common.json {
                let _ = writeln!(out, "{}", json!({"ok": false, "error": e.to_json()}));
                let _ = out.flush();
            } else {
                eprintln!("editref: refused ({}): {}", e.code, e.message);
            }
            ExitCode::from(1)
        }
    }
}

/// The human summary of Edit and MultiEdit: the diff, then what changed.
fn print_edit_summary(
    out: &mut impl Write,
    tool: &str,
    input: &Value,
    done: &editref::tools::edit::Done,
) -> std::io::Result<()> {
    print_diff(out, done.patch.diff())?;
    let verb = if input["dry_run"] == json!(true) {
        "would change"
    } else {
        "changed"
    };
    let count = if tool == "Edit" {
        let n = done.reports.first().map_or(0, |r| r.replacements);
        format!(" ({n} replacement{})", if n == 1 { "" } else { "s" })
    } else {
        format!(" ({} edits)", done.reports.len())
    };
    writeln!(
        out,
        "{verb} {}{count}",
        input["file_path"].as_str().unwrap_or("")
    )
}

fn print_summary(out: &mut impl Write, tool: &str, v: &Value) -> std::io::Result<()> {
    match tool {
        "Read" => match v["type"].as_str() {
            Some("text") => writeln!(out, "{}", v["file"]["content"].as_str().unwrap_or("")),
            Some(other) => writeln!(out, "{other}: {} bytes", v["originalSize"]),
            None => writeln!(out, "{v}"),
        },
        "NotebookEdit" => writeln!(
            out,
            "{} cell {} of {}",
            v["edit_mode"].as_str().unwrap_or(""),
            v["cell_id"].as_str().unwrap_or(""),
            v["notebook_path"].as_str().unwrap_or("")
        ),
        // Write (Edit and MultiEdit are shown by `print_edit_summary`): its result carries
        // only structuredPatch, from which the diff is spelled.
        _ => {
            let path = v["filePath"].as_str().unwrap_or("");
            let hunks =
                serde_json::from_value::<Vec<editref::patch::Hunk>>(v["structuredPatch"].clone())
                    .unwrap_or_default();
            print_diff(out, &editref::patch::unified_diff(path, &hunks))?;
            let verb = if v["dryRun"] == json!(true) {
                "would change"
            } else {
                "changed"
            };
            writeln!(out, "{verb} {path}")
        }
    }
}

fn print_diff(out: &mut impl Write, diff: &str) -> std::io::Result<()> {
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if !color && !diff.contains("\r\n") {
        // What the loop below prints without colour: every line, each ended by "\n".
        out.write_all(diff.as_bytes())?;
        if !diff.is_empty() && !diff.ends_with('\n') {
            out.write_all(b"\n")?;
        }
        return Ok(());
    }
    for line in diff.lines() {
        let style = if !color {
            anstyle::Style::new()
        } else if line.starts_with("+++") || line.starts_with("---") {
            anstyle::Style::new().bold()
        } else if line.starts_with('+') {
            anstyle::AnsiColor::Green.on_default()
        } else if line.starts_with('-') {
            anstyle::AnsiColor::Red.on_default()
        } else if line.starts_with("@@") {
            anstyle::AnsiColor::Cyan.on_default()
        } else {
            anstyle::Style::new()
        };
        writeln!(out, "{}{line}{}", style.render(), style.render_reset())?;
    }
    Ok(())
}

/// `editref call`: one JSON call on stdin, the JSON result on stdout; optionally a persistent
/// read state so that shell-driven agents get read-before-write and staleness checks.
fn call(
    state: Option<PathBuf>,
    cwd: Option<PathBuf>,
    root: Option<PathBuf>,
    no_fsync: bool,
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
        None => one_shot_session(root, cwd, no_fsync),
        Some(_) => {
            let mut config = Config::new(cwd);
            config.root = root;
            config.fsync = !no_fsync;
            Session::new(config)
        }
    };
    let lock = match &state {
        Some(path) => match editref::session_file::open(path) {
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
