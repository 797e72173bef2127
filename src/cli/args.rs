//! The command line as clap sees it: every subcommand, its arguments and their help. The
//! completions and the man pages are generated from these same definitions, so what `--help`
//! says, what a shell completes and what `man editref` documents can never disagree.
//!
//! Help texts speak to people; the rule IDs behind each behaviour live in SPEC.md.

use super::{Common, ReadFlags, UndoCmdFlags, UndoFlags};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// `editref`: the tools for people, the front ends for programs, the harness.
#[derive(Parser)]
#[command(
    name = "editref",
    version,
    about = "Reference file tools for coding agents: Read, Edit, MultiEdit, Write, NotebookEdit — edits that never corrupt a file",
    after_help = "Exit codes: 0 done, 1 refused (the error code is printed), 2 usage."
)]
pub struct Cli {
    #[command(subcommand)]
    /// What to do.
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Print a file with line numbers, as a model sees it.
    Read {
        /// The file.
        file: String,
        /// First line to show (1-based).
        #[arg(long)]
        offset: Option<u64>,
        /// How many lines to show (at least 1).
        #[arg(long, value_parser = at_least_one)]
        limit: Option<u64>,
        /// PDF page range (N or N-M).
        #[arg(long)]
        pages: Option<String>,
        #[command(flatten)]
        flags: ReadFlags,
    },
    /// Replace one exact occurrence of a string (or all with --replace-all).
    Edit {
        /// The file.
        file: String,
        /// The exact text to replace.
        #[arg(long, allow_hyphen_values = true)]
        old_string: String,
        /// The text to put in its place. An empty one deletes the old text, and when the old
        /// text does not end with a line break, the line break right after it goes too:
        /// deleting all the text of a line deletes the line itself.
        #[arg(long, allow_hyphen_values = true)]
        new_string: String,
        /// Replace every occurrence instead of requiring exactly one.
        #[arg(long)]
        replace_all: bool,
        /// Replace every occurrence, and refuse unless there are exactly N.
        #[arg(long, value_name = "N", value_parser = at_least_one)]
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
    ///
    /// Writes are recorded per root (--root, else the working directory) outside the working
    /// tree, so a write made by any subcommand, by `call` or through `mcp` on the same root
    /// can be taken back here.
    Undo {
        /// The file.
        file: String,
        /// How many writes to take back, newest first.
        #[arg(long, default_value_t = 1, value_parser = at_least_one)]
        steps: u64,
        #[command(flatten)]
        flags: UndoCmdFlags,
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
        /// Keep the read state in FILE between calls, so that a file must be read before it
        /// is written, and a file changed since its read is refused, across processes.
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
        /// Working directory for relative paths (default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Refuse paths whose final target (symlinks followed) lies outside DIR.
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
        /// dialects); `str_replace_editor` offers the text editor under that older name.
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
    /// Print a shell's completion script for editref (source it, or install it where the
    /// shell looks: see the README).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write the man pages (editref.1 and one per subcommand) into DIR, or print editref.1.
    Man {
        /// The directory to write every page into; without it, editref.1 goes to stdout.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Certify an implementation against the conformance corpus (see `editref conform --help`).
    #[command(disable_help_flag = true)]
    Conform {
        /// Arguments for the harness.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// A count that must be 1 or more (`--limit`, `--steps`, `--expected-replacements`), with a
/// message that says so in words rather than as a range up to 2^64.
fn at_least_one(arg: &str) -> Result<u64, String> {
    match arg.parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err("must be a whole number, at least 1".to_string()),
    }
}
