//! The human side of the `editref` binary: the one-shot session every subcommand uses, how a
//! result is printed (summary, coloured diff) or refused, and the flags the subcommands share.
//!
//! `args.rs` holds the command-line definition and `main.rs` routes it; what a subcommand
//! prints lives here, so that every tool — the five, undo and the dialects — reports the same
//! way.

pub mod args;
mod dialects;
pub mod manuals;
pub mod programs;
pub mod words;

pub use dialects::{apply_patch, search_replace, text_editor, EditorArgs};

use clap::Args;
use editref::api::{ReadOutput, WriteKind, WriteOutput};
use editref::undo::UndoPlace;
use editref::{Config, Session, ToolError};
use serde::Serialize;
use serde_json::json;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Where writes are recorded for `editref undo` (UNDO-7): the journal's directory, or none.
#[derive(Args, Clone, Debug, Default)]
pub struct UndoFlags {
    /// Keep the undo journal in DIR (default: one journal per --root, or per working
    /// directory, in $XDG_STATE_HOME/editref/undo, else ~/.local/state/editref/undo).
    #[arg(long, value_name = "DIR", global = true)]
    pub undo_dir: Option<PathBuf>,
    /// Keep no undo journal: writes are not recorded, and undo is refused.
    #[arg(long, global = true, conflicts_with = "undo_dir")]
    pub no_undo: bool,
}

impl UndoFlags {
    /// The journal's place the flags describe.
    pub fn place(&self) -> UndoPlace {
        UndoPlace::from_flags(self.undo_dir.clone(), self.no_undo)
    }
}

/// Where paths may lead and how a result is printed: the flags every human subcommand takes,
/// `read` no others.
#[derive(Args, Clone)]
pub struct ReadFlags {
    /// Refuse paths whose final target (symlinks followed) lies outside DIR.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Print the tool's JSON result instead of the human form.
    #[arg(long)]
    pub json: bool,
}

/// The flags every human subcommand that writes takes.
#[derive(Args, Clone)]
pub struct Common {
    #[command(flatten)]
    pub base: ReadFlags,
    /// Skip fsync (faster, not crash-durable; results say so). For tests and benchmarks.
    #[arg(long)]
    pub no_fsync: bool,
    #[command(flatten)]
    pub undo: UndoFlags,
    /// How a refusal names the tool's parameters: as this subcommand's flags.
    #[arg(skip)]
    pub words: words::Words,
}

impl Common {
    /// These flags, with refusals told in `words`.
    pub fn speaking(mut self, words: words::Words) -> Common {
        self.words = words;
        self
    }
}

impl From<ReadFlags> for Common {
    /// A read as a session sees it: no journal is opened for a call that writes nothing.
    fn from(base: ReadFlags) -> Common {
        Common {
            base,
            no_fsync: false,
            undo: UndoFlags {
                undo_dir: None,
                no_undo: true,
            },
            words: words::READ,
        }
    }
}

/// The flags of `undo`: where the journal is, but not `--no-undo`, which would leave it
/// nothing to take back.
#[derive(Args, Clone)]
pub struct UndoCmdFlags {
    #[command(flatten)]
    pub base: ReadFlags,
    /// Skip fsync (faster, not crash-durable; results say so). For tests and benchmarks.
    #[arg(long)]
    pub no_fsync: bool,
    /// The undo journal's directory (default: the journal of --root, or of the working
    /// directory, in $XDG_STATE_HOME/editref/undo, else ~/.local/state/editref/undo).
    #[arg(long, value_name = "DIR")]
    pub undo_dir: Option<PathBuf>,
}

impl From<UndoCmdFlags> for Common {
    fn from(f: UndoCmdFlags) -> Common {
        Common {
            base: f.base,
            no_fsync: f.no_fsync,
            undo: UndoFlags {
                undo_dir: f.undo_dir,
                no_undo: false,
            },
            words: words::UNDO,
        }
    }
}

/// The process's working directory (`/` when it is gone).
pub fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
}

/// The directory whose journal a session keeps (UNDO-7): its root, relative to its working
/// directory as the session reads it, else the working directory.
pub fn journal_root(root: Option<&std::path::Path>, cwd: &std::path::Path) -> PathBuf {
    root.map_or_else(|| cwd.to_path_buf(), |r| cwd.join(r))
}

/// A session for one command: no read-before-write (there is no earlier Read in this
/// process), the undo journal where the flags put it (UNDO-7).
pub fn one_shot_session(
    root: Option<PathBuf>,
    cwd: PathBuf,
    no_fsync: bool,
    undo: &UndoFlags,
) -> Session {
    let mut config = Config::new(&cwd).one_shot();
    config.undo = undo
        .place()
        .config_for(&journal_root(root.as_deref(), &cwd));
    config.root = root;
    config.fsync = !no_fsync;
    Session::new(config)
}

/// The human subcommands: one-shot calls through the typed API; on success a summary (and a
/// coloured diff on a terminal) or, with `--json`, the tool's JSON result.
pub fn human<T: Serialize>(
    common: &Common,
    run: impl FnOnce(&Session) -> Result<T, ToolError>,
    summary: impl FnOnce(&mut dyn Write, &T) -> std::io::Result<()>,
) -> ExitCode {
    human_with(common, current_dir(), run, summary)
}

fn human_with<T: Serialize>(
    common: &Common,
    cwd: PathBuf,
    run: impl FnOnce(&Session) -> Result<T, ToolError>,
    summary: impl FnOnce(&mut dyn Write, &T) -> std::io::Result<()>,
) -> ExitCode {
    let session = one_shot_session(common.base.root.clone(), cwd, common.no_fsync, &common.undo);
    // Stdout is line-buffered: without this, a diff of 100,000 lines is 100,000 write calls.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    match run(&session) {
        Ok(done) => {
            if common.base.json {
                let _ = serde_json::to_writer(&mut out, &done);
                let _ = out.write_all(b"\n");
            } else {
                let _ = summary(&mut out, &done);
            }
            let _ = out.flush();
            // A one-shot process: the OS frees the (possibly huge) result faster than dropping
            // it piece by piece would.
            std::mem::forget(done);
            ExitCode::SUCCESS
        }
        Err(e) => {
            if common.base.json {
                let _ = writeln!(out, "{}", json!({"ok": false, "error": e.to_json()}));
                let _ = out.flush();
            } else {
                eprintln!(
                    "editref: refused ({}): {}",
                    e.code,
                    common.words.apply(&e.message)
                );
            }
            ExitCode::from(1)
        }
    }
}

/// [`human`] with another working directory for the call's relative paths.
pub fn human_in<T: Serialize>(
    common: &Common,
    cwd: Option<PathBuf>,
    run: impl FnOnce(&Session) -> Result<T, ToolError>,
    summary: impl FnOnce(&mut dyn Write, &T) -> std::io::Result<()>,
) -> ExitCode {
    human_with(common, cwd.unwrap_or_else(current_dir), run, summary)
}

/// Read's human form: the numbered lines, or what kind of file it was. A read that shows no
/// line says why on stderr — the file is empty, or the range starts past its end — so that
/// stdout holds only the file's lines and an empty answer is never a puzzle.
pub fn print_read(out: &mut dyn Write, done: &ReadOutput) -> std::io::Result<()> {
    match done {
        ReadOutput::Text { file } if file.num_lines == 0 => {
            if file.total_lines == 0 {
                eprintln!("editref: {} is empty", file.file_path);
            } else {
                let n = file.total_lines;
                eprintln!(
                    "editref: {} has {n} line{}; line {} is past the end (give --offset 1 to {n})",
                    file.file_path,
                    if n == 1 { "" } else { "s" },
                    file.start_line,
                );
            }
            Ok(())
        }
        ReadOutput::Text { file } => writeln!(out, "{}", file.content),
        ReadOutput::FileUnchanged { .. } => writeln!(out, "file_unchanged"),
        ReadOutput::Image { original_size, .. } => writeln!(out, "image: {original_size} bytes"),
        ReadOutput::Pdf { original_size, .. } => writeln!(out, "pdf: {original_size} bytes"),
        ReadOutput::Notebook { cells, .. } => writeln!(out, "notebook: {} cells", cells.len()),
    }
}

/// Write's human form: the diff, then `created` for a new file or `changed` for one that
/// was there.
pub fn print_write(out: &mut dyn Write, done: &WriteOutput) -> std::io::Result<()> {
    print_diff(out, done.structured_patch.diff())?;
    let verb = match done.kind {
        WriteKind::Create => "created",
        WriteKind::Update => "changed",
    };
    writeln!(out, "{verb} {}", done.file_path)
}

/// The human form of a change: the diff, then what changed.
pub fn print_change(
    out: &mut dyn Write,
    diff: &str,
    dry_run: bool,
    path: &str,
    count: &str,
) -> std::io::Result<()> {
    print_diff(out, diff)?;
    let verb = if dry_run { "would change" } else { "changed" };
    writeln!(out, "{verb} {path}{count}")
}

pub fn print_diff(out: &mut dyn Write, diff: &str) -> std::io::Result<()> {
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

/// A usage error: the message on stderr, exit 2.
pub fn usage(message: &str) -> ExitCode {
    eprintln!("editref: {message}");
    ExitCode::from(2)
}

/// `@FILE`, `-` (stdin) or the text itself.
pub fn argument_text(arg: &str) -> std::io::Result<String> {
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
