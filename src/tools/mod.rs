//! The five tools, each one file: Read, Edit (with the pipeline MultiEdit shares), MultiEdit,
//! Write and NotebookEdit — typed input → checks in spec order → engine → disk → typed output.
//!
//! A tool takes its typed input from [`crate::api`] (the JSON entry has already parsed and
//! checked it) and runs the steps in the order the spec fixes (EDIT-1 for the writers), so the
//! first failing check decides and nothing on disk changes on any error. The tools use the
//! session and the layers below it; they never route calls — that is the entry layer above them ([`Session::call`](crate::Session::call) and the typed methods).

mod checks;
pub mod edit;
mod edit_window;
pub mod line_edit;
pub mod multi_edit;
pub mod notebook;
pub mod open;
pub mod read;
pub mod undo;
pub mod write;

pub(crate) use checks::*;
