//! The conformance harness (`editref conform`): loads the YAML corpus, runs every case against
//! an implementation through adapter protocol v1, judges replies and final file trees, and
//! writes reports.
//!
//! The pieces, in the order a case flows through them:
//!
//! - [`load`] parses case files (panic-free YAML, unknown keys refused, every error located by
//!   file, line and field) into the checked types of [`case`];
//! - [`sandbox`] builds each case's file tree byte-exactly in a fresh directory, performs the
//!   harness actions (modify, touch, chmod, remove) and tracks what every entry should be;
//! - [`adapter`] is the implementation under test as a trait — [`subprocess`] for any program
//!   speaking the protocol, [`adapter::Builtin`] for editref's own library in process;
//! - [`check`] judges replies (subset match) and the final tree (expectations, unlisted files,
//!   residue);
//! - [`run`] runs a case and turns results into statuses, expectations (xfail/xpass), exit
//!   codes and certification;
//! - [`report`], [`manifest`] and [`matrix`] write what a run found; [`cli`] is the command line.

pub mod adapter;
pub mod case;
pub mod check;
pub mod cli;
pub mod load;
pub mod manifest;
pub mod matrix;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod subprocess;

pub use cli::run_cli;
