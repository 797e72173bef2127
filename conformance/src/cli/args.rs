//! Argument definitions: the flags of a run and the subcommands, as clap derives them.
//!
//! The definitions are the help text (clap turns their doc comments into `--help`), so they are
//! kept on their own, free of the code that acts on them: changing what a flag does never
//! changes what the help says by accident, and the other way round.

use crate::case::Level;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "editref conform",
    about = "Certify an implementation of the file tools against the conformance corpus",
    long_about = "Runs every corpus case against an implementation that speaks adapter protocol v1 \
                  (--impl), against an MCP server offering the tools (--mcp) or against editref \
                  itself (--builtin), judges replies and final file \
                  trees, and reports per case.",
    after_help = "Exit status: 0 when no core case failed, crashed or timed out and nothing is an \
                  xpass or a harness error; 1 otherwise; 2 on usage errors.",
    args_conflicts_with_subcommands = true,
    disable_version_flag = true
)]
pub(super) struct ConformCli {
    #[command(subcommand)]
    pub(super) command: Option<Sub>,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[derive(Args, Debug)]
pub(super) struct RunArgs {
    /// The command that starts the adapter (run with `sh -c`, kept running across cases).
    #[arg(long = "impl", value_name = "COMMAND", conflicts_with = "builtin")]
    pub(super) implementation: Option<String>,
    /// Run against editref's own implementation, in process.
    #[arg(long)]
    pub(super) builtin: bool,
    /// The command that starts an MCP server offering the tools (run with `sh -c` in each
    /// case's sandbox, one server per case, spoken to over stdio; no adapter needed).
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["implementation", "builtin"])]
    pub(super) mcp: Option<String>,
    /// The server's names for the corpus tools, e.g. `Edit=edit_file,Read=read_text_file`
    /// (with --mcp; a tool not named keeps its corpus name).
    #[arg(long, value_name = "TOOL=NAME,...", requires = "mcp", conflicts_with_all = ["implementation", "builtin"])]
    pub(super) mcp_tools: Option<String>,
    /// The features the server declares, comma-separated (with --mcp). Default: the whole
    /// vocabulary when it lists all five tools, else the tool features of those it lists.
    #[arg(long, value_name = "FEATURE,...", requires = "mcp", conflicts_with_all = ["implementation", "builtin"])]
    pub(super) mcp_features: Option<String>,
    /// The corpus directory (`conformance/cases`, or the `conformance` directory above it).
    /// Default: ./conformance/cases if present, else the corpus built into this binary.
    #[arg(long, value_name = "DIR")]
    pub(super) corpus: Option<PathBuf>,
    /// Run only the cases whose id matches (repeatable; `*` and `?`; a bare area name matches
    /// the whole area).
    #[arg(long, value_name = "GLOB")]
    pub(super) only: Vec<String>,
    /// Run only the cases that count at this level (the level and the ones below it).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub(super) level: Option<LevelArg>,
    /// Known failures: one case id per line, `#` comments. Listed failures become xfail,
    /// listed passes xpass (an error).
    #[arg(long, value_name = "FILE")]
    pub(super) expectations: Option<PathBuf>,
    /// Write report.json, junit.xml, report.tap and summary.md into DIR.
    #[arg(long, value_name = "DIR")]
    pub(super) report: Option<PathBuf>,
    /// Per-call timeout in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub(super) timeout: f64,
    /// Print only the summary (no progress bar, no list of failing cases).
    #[arg(long, short)]
    pub(super) quiet: bool,
    /// Let the adapter's stderr through to the terminal instead of capturing it per case.
    #[arg(long)]
    pub(super) show_stderr: bool,
    /// Keep the sandbox of every case that does not pass, and print where it is.
    #[arg(long)]
    pub(super) keep_sandboxes: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum LevelArg {
    Core,
    Extended,
    ImplementationDefined,
}

impl From<LevelArg> for Level {
    fn from(l: LevelArg) -> Level {
        match l {
            LevelArg::Core => Level::Core,
            LevelArg::Extended => Level::Extended,
            LevelArg::ImplementationDefined => Level::ImplementationDefined,
        }
    }
}

#[derive(Subcommand, Debug)]
pub(super) enum Sub {
    /// Write conformance/manifest.json (or check that it is up to date).
    Manifest {
        /// The corpus directory (default ./conformance/cases).
        #[arg(long, value_name = "DIR")]
        corpus: Option<PathBuf>,
        /// Do not write; exit 1 if the manifest on disk is stale.
        #[arg(long)]
        check: bool,
    },
    /// Combine report.json files into matrix.md and matrix.html.
    Matrix {
        /// report.json files (one column each).
        #[arg(required = true, value_name = "REPORT.json")]
        reports: Vec<PathBuf>,
        /// Output directory.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}
