//! Argument definitions: the flags of a run and the subcommands, as clap derives them.
//!
//! The definitions are the help text (clap turns their doc comments into `--help`), so they are
//! kept on their own, free of the code that acts on them: changing what a flag does never
//! changes what the help says by accident, and the other way round.

use crate::case::Level;
use crate::run::Gate;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "editref conform",
    about = "Certify an implementation of the file tools against the conformance corpus",
    long_about = "Runs every corpus case against an implementation that speaks adapter protocol v1 \
                  (--impl), against an MCP server offering the tools (--mcp) or against editref \
                  itself (--builtin), judges replies and final file trees, and reports per case. \
                  Cases run in parallel (--jobs), each in a sandbox of its own.",
    after_help = EXIT_STATUS,
    args_conflicts_with_subcommands = true,
    version = editref::VERSION
)]
pub(super) struct ConformCli {
    #[command(subcommand)]
    pub(super) command: Option<Sub>,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

/// The exit statuses, shown under `--help`; the README's table says the same.
const EXIT_STATUS: &str = "Exit status:
  0  no core case failed, crashed or timed out, and nothing is an xpass or a harness error
     (with --require [CLASS:]LEVEL: each gate holds for the cases that ran)
  1  otherwise
  2  usage error: a bad flag or gate, an unreadable file, an unknown id in --expectations, an
     adapter that fails the handshake, declares no writing tool, or answers that it has no tool
     it declared
  4  no case was selected (--only, --level or --rerun-failed matched nothing in the corpus)

Examples:
  editref conform --builtin --report out/
  editref conform --impl \"python3 my_adapter.py\" --only 'eol/*' --keep-sandboxes kept/
  editref conform --impl \"python3 my_adapter.py\" --rerun-failed out/report.json
  editref conform --impl \"python3 my_adapter.py\" --require data:core --write-expectations known.txt
  editref conform list --only stale
  editref conform --fuzz --time 600 --findings found/ --mcp \"my-server\"
  editref conform --bench --impl \"python3 my_adapter.py\" --report bench/ --baseline old/bench.json
  editref conform show unique/ambiguous-two-hits";

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
    /// The server's arguments for a corpus tool, as a JSON template in which "$name" stands
    /// for the call's field `name` (repeatable; with --mcp), e.g.
    /// `Write={"path":"$file_path","content":"$content"}`. Fields the template does not name
    /// are not sent; `{"$each":"$edits","as":{...}}` maps a list element by element.
    #[arg(long, value_name = "TOOL=JSON", requires = "mcp")]
    pub(super) mcp_input: Vec<String>,
    /// The SPEC.md error code of error results whose text contains TEXT (repeatable; with
    /// --mcp), e.g. `not_found=Could not find exact match`, for servers whose errors are text.
    #[arg(long, value_name = "CODE=TEXT", requires = "mcp")]
    pub(super) mcp_error: Vec<String>,
    /// The features the server declares, comma-separated (with --mcp); `all` is the whole
    /// vocabulary. Default: the vocabulary of the five tools when it lists all five, else the
    /// tool features of those it lists, plus those of the other tools it lists.
    #[arg(long, value_name = "FEATURE,...", requires = "mcp", conflicts_with_all = ["implementation", "builtin"])]
    pub(super) mcp_features: Option<String>,
    /// How the server's Read numbers lines: tab (`N<TAB>`, the spec's form, the default), arrow
    /// (`     N→`) or plain (no numbers); Read content is compared in that form (with --mcp).
    #[arg(long, value_name = "FORMAT", requires = "mcp", conflicts_with_all = ["implementation", "builtin"])]
    pub(super) mcp_read_format: Option<String>,
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
    /// Run only the cases that did not pass in an earlier run: those whose status in REPORT
    /// (a report.json) is fail, crash, timeout, xfail, xpass or harness_error.
    #[arg(long, value_name = "REPORT")]
    pub(super) rerun_failed: Option<PathBuf>,
    /// Known failures: one case id per line, `#` comments. Listed failures become xfail,
    /// listed passes xpass (an error); an id that is not in the corpus is a usage error.
    #[arg(long, value_name = "FILE")]
    pub(super) expectations: Option<PathBuf>,
    /// Exit 1 unless the run certifies LEVEL for the tools it offers: every case of LEVEL and
    /// below that ran passed (no fail, skip, xfail, crash or timeout; cases needing a tool not
    /// offered aside). CLASS:LEVEL (`data:core`, `capability:extended`, …) asks it of one class
    /// only: every such case held that class. Repeatable; each gate must hold. Without it, only
    /// a core case that fails, crashes or times out fails the run.
    #[arg(long, value_name = "[CLASS:]LEVEL", value_parser = parse_gate)]
    pub(super) require: Vec<Gate>,
    /// After the run, write the cases that failed (fail, crash, timeout, xfail) to FILE as a
    /// known-failures list, each with its classes and reason as a comment: the file
    /// --expectations reads, so the next run turns exactly these into xfail.
    #[arg(long, value_name = "FILE")]
    pub(super) write_expectations: Option<PathBuf>,
    /// The implementation's name in reports and matrices, instead of the name and version it
    /// reports itself (e.g. "Claude Code 2.1.331" for a server that calls itself "claude").
    #[arg(long, value_name = "NAME")]
    pub(super) label: Option<String>,
    /// Write summary.md, report.html, report.json, junit.xml and report.tap into DIR.
    #[arg(long, value_name = "DIR")]
    pub(super) report: Option<PathBuf>,
    /// Cases run at once, each with its own adapter process (or MCP server, or in-process
    /// session). Default: the number of CPUs.
    #[arg(long, short = 'j', value_name = "N")]
    pub(super) jobs: Option<usize>,
    /// Per-call timeout in seconds. Cases meant to hang a careless tool (FIFOs, devices) set
    /// a shorter one of their own in the corpus. A case that times out is run again once the
    /// others are done, alone and with every limit five times longer, and is a timeout only if
    /// it times out again, so a busy machine never turns a slow tool's answer into a timeout;
    /// the summary lists the cases that needed the second run.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub(super) timeout: f64,
    /// Start no further case once one has failed the run (see the exit status); cases already
    /// running finish, and the report holds the cases that ran.
    #[arg(long)]
    pub(super) fail_fast: bool,
    /// Print only the summary (no progress bar, no list of failing cases).
    #[arg(long, short)]
    pub(super) quiet: bool,
    /// Let the adapter's stderr through to the terminal instead of capturing it per case.
    #[arg(long)]
    pub(super) show_stderr: bool,
    /// Keep the sandbox of every case that does not pass — fail (xfail included), differs,
    /// crash, timeout, harness_error — as DIR/<area>/<name>/sandbox, replacing what an earlier
    /// run kept there; passing cases leave nothing. DIR defaults to editref-conform-kept in the
    /// temp directory.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "")]
    pub(super) keep_sandboxes: Option<PathBuf>,
    #[command(flatten)]
    pub(super) fuzz: FuzzArgs,
    #[command(flatten)]
    pub(super) bench: BenchArgs,
}

/// The flags of a benchmark run (`--bench`).
#[derive(Args, Debug)]
#[command(next_help_heading = "Benchmark")]
pub(super) struct BenchArgs {
    /// Instead of the corpus, time the implementation on a fixed, versioned workload set (Read
    /// and Edit of 1 KB and 1 MB files, CRLF and UTF-16LE edits, a replace_all of 10,000 hits,
    /// a MultiEdit of 100 edits; --large adds 100 MB). Each result is checked byte for byte
    /// before it counts; a wrong one is reported, never timed. With --report DIR, writes
    /// bench.json and bench.md; --only selects workloads by name.
    #[arg(long, conflicts_with_all = ["fuzz", "level", "rerun_failed", "expectations", "require", "write_expectations"])]
    pub(super) bench: bool,
    /// Timed repetitions per workload, after one warm-up round.
    #[arg(long, value_name = "N", default_value_t = 5, requires = "bench")]
    pub(super) repetitions: usize,
    /// Add the 100 MB Read and Edit.
    #[arg(long, requires = "bench")]
    pub(super) large: bool,
    /// An earlier bench.json to compare with: exit 1 when a workload's median is more than
    /// --max-regression percent slower.
    #[arg(long, value_name = "FILE", requires = "bench")]
    pub(super) baseline: Option<PathBuf>,
    /// The growth of a median, in percent, that counts as a regression.
    #[arg(long, value_name = "PCT", default_value_t = 10.0, requires = "bench")]
    pub(super) max_regression: f64,
}

/// The flags of a differential fuzzing run (`--fuzz`).
#[derive(Args, Debug)]
#[command(next_help_heading = "Differential fuzzing")]
pub(super) struct FuzzArgs {
    /// Instead of the corpus, run generated cases against the implementation and the reference
    /// and report where they disagree; each new kind of disagreement is shrunk and, with
    /// --findings, written as a corpus case. Stops after --cases or --time (default: 1000
    /// cases).
    #[arg(long, conflicts_with_all = ["only", "level", "rerun_failed", "expectations", "require", "report", "write_expectations"])]
    pub(super) fuzz: bool,
    /// Generate this many cases. With the same --seed, the same cases are generated and
    /// judged, and the same findings shrunk, on every machine and at any speed.
    #[arg(long, value_name = "N", requires = "fuzz", conflicts_with = "time")]
    pub(super) cases: Option<u64>,
    /// Generate cases for this many seconds (how many depends on the machine's speed; give
    /// --cases instead for a run that can be repeated or compared).
    #[arg(long, value_name = "SECS", requires = "fuzz")]
    pub(super) time: Option<f64>,
    /// The first case's seed (case i uses SEED + i). Default: taken from the clock and printed,
    /// so a run can be repeated.
    #[arg(long, value_name = "SEED", requires = "fuzz")]
    pub(super) seed: Option<u64>,
    /// Write each new kind of disagreement, shrunk, as DIR/fuzz/<kind>-<seed>.yaml, a corpus
    /// case with the reference's outcome as its expectations (replay it with --corpus DIR).
    #[arg(long, value_name = "DIR", requires = "fuzz")]
    pub(super) findings: Option<PathBuf>,
    /// Kinds of disagreement you accept, one pattern per line (`*` and `?`, `#` comments):
    /// they are counted, not reported as new, and not written.
    #[arg(long, value_name = "FILE", requires = "fuzz")]
    pub(super) expect_divergences: Option<PathBuf>,
    /// The most smaller cases tried while shrinking one finding.
    #[arg(long, value_name = "N", default_value_t = 300, requires = "fuzz")]
    pub(super) shrink_budget: usize,
}

/// `--require`'s value: a level, or a class and a level (an unknown one is a usage error).
fn parse_gate(s: &str) -> Result<Gate, String> {
    Gate::parse(s)
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
    /// List the corpus's cases: id, level, rules and title, one per line.
    List {
        /// Only the cases whose id matches (repeatable; `*` and `?`; an area name matches the
        /// whole area).
        #[arg(long, value_name = "GLOB")]
        only: Vec<String>,
        /// Only the cases that count at this level (the level and the ones below it).
        #[arg(long, value_enum, value_name = "LEVEL")]
        level: Option<LevelArg>,
        /// The corpus directory. Default: ./conformance/cases if present, else the corpus
        /// built into this binary.
        #[arg(long, value_name = "DIR")]
        corpus: Option<PathBuf>,
    },
    /// Print one case's YAML file, as the corpus holds it.
    Show {
        /// The case id, e.g. unique/ambiguous-two-hits.
        #[arg(value_name = "ID")]
        id: String,
        /// The corpus directory. Default: ./conformance/cases if present, else the corpus
        /// built into this binary.
        #[arg(long, value_name = "DIR")]
        corpus: Option<PathBuf>,
    },
    /// Judge report.json files again under this harness's rules, from the evidence they kept,
    /// without running the tool again; each file is rewritten in place, with `rejudged` saying
    /// what changed and what the evidence could not settle.
    Rejudge {
        /// report.json files.
        #[arg(value_name = "REPORT.json", required = true)]
        reports: Vec<PathBuf>,
        /// The corpus whose cases the reports ran (their steps and files are read from it, by
        /// id). Default: ./conformance/cases if present, else the corpus built into this binary.
        #[arg(long, value_name = "DIR")]
        corpus: Option<PathBuf>,
    },
    /// Combine report.json files into matrix.md, matrix.html, matrix.svg and
    /// readme-section.md (per-area table, chart and the most telling failures).
    Matrix {
        /// report.json files (one column each).
        #[arg(value_name = "REPORT.json")]
        reports: Vec<PathBuf>,
        /// An implementation that could not be run, as "NAME: reason" (repeatable): shown as
        /// not run, with the reason.
        #[arg(long, value_name = "NAME: REASON")]
        not_run: Vec<String>,
        /// Output directory.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}
