//! The conformance harness (`editref conform`): loads the YAML corpus, runs every case against
//! an implementation through adapter protocol v1, judges replies and final file trees, and
//! writes reports.
//!
//! The pieces, in the order a case flows through them:
//!
//! - [`load`] parses case files (panic-free YAML, unknown keys refused, every error located by
//!   file, line and field) into the checked types of [`case`]: the raw schema, file forms,
//!   steps and actions, expectations and located errors each have a file, and the corpus comes
//!   from a directory ([`load::load_dir`]) or from the binary ([`load::load_embedded`]);
//! - [`sandbox`] builds each case's file tree byte-exactly in a fresh directory, performs the
//!   harness actions (modify, touch, chmod, remove), keeps what every entry should be and
//!   observes what it is;
//! - [`adapter`] is the implementation under test as a trait — [`subprocess`] for any program
//!   speaking the protocol, [`mcp`] for any MCP server offering the tools (the harness is its
//!   client), [`adapter::Builtin`] for editref's own library in process; [`surrogates`] lets
//!   both decode the valid JSON serde_json refuses (lone surrogate escapes);
//! - [`check`] judges replies (subset match) and the final tree (expectations, unlisted files,
//!   residue), each check with the [`class`] of what it judges (data, capability, contract,
//!   presentation), error codes by the families of [`codes`] and result fields only where the
//!   tool declares them;
//! - [`run`] runs a case and turns results into statuses, expectations (xfail/xpass), exit
//!   codes and certification for the tool [`surface`] the implementation declares;
//! - [`rejudge`] states an earlier run's report under today's rules, from the evidence it
//!   kept;
//! - [`report`] writes what a run found (JSON, JUnit XML, TAP, a Markdown summary),
//!   [`manifest`] pins the corpus a run used and [`matrix`] sets several runs side by side;
//!   [`cli`] is the command line: the run command and the `manifest` and `matrix` subcommands.
//!
//! Each module holds one concern, and the larger ones are directories of files holding one
//! part each. A directory module re-exports its public items from its root, so a path such as
//! `load::parse_case` or `run::run_case` does not depend on the file that holds the item.

pub mod adapter;
pub mod bench;
pub mod case;
pub mod check;
pub mod class;
pub mod cli;
pub mod codes;
pub mod fuzz;
pub mod load;
pub mod manifest;
pub mod matrix;
pub mod mcp;
pub mod rejudge;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod subprocess;
pub mod surface;
pub mod surrogates;

pub use cli::{help_text, run_cli, EXIT_NO_CASES};
