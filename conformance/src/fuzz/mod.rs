//! Differential fuzzing of any edit tool (`editref conform --fuzz`): the corpus is finite, the
//! ways to corrupt a file are not, so generated cases run against the implementation *and* the
//! reference, and every disagreement becomes a minimal corpus case that replays it.
//!
//! The flow, top to bottom:
//!
//! ```text
//! seed ─► gen (parts) ─► GenCase ─► yaml ─► load ─► Case
//!                                                   │
//!             observe(reference) ◄──────────────────┼──────────► observe(implementation)
//!                     │                                                  │
//!                     └──────────────► compare ◄─────────────────────────┘
//!                                         │ a disagreement of a new kind (known: accepted ones)
//!                                         ▼
//!                      shrink (same kind) ─► yaml with the reference's outcome ─► DIR/fuzz/*.yaml
//! ```
//!
//! `parts` holds the hard parts files are made of, `gen` the generator (seeded or driven by
//! `arbitrary` bytes) with `edits` (an edit's strings), `dialects` (the dialects' steps) and
//! `notebook` (notebooks and NotebookEdit calls),
//! `yaml` the corpus writer and `requires` the features a case needs, `observe` one run without
//! judgement, `compare` the kinds of disagreement (every one of a case) with `bytes` (how two
//! trees differ) and `shape` (what in a result the protocol does not define), `shrink` and `shrink_steps` the reducer, `known` accepted divergences and
//! `campaign` the loop that ties them together.

pub mod bytes;
pub mod campaign;
pub mod compare;
pub mod dialects;
mod edits;
mod finding;
pub mod gen;
mod gen_edit;
pub mod known;
pub mod notebook;
pub mod observe;
pub mod parts;
pub mod requires;
mod seed;
pub mod shape;
pub mod shrink;
mod shrink_steps;
pub mod yaml;

pub use campaign::{campaign, Finding, Outcome, Settings, Tick};
pub use gen::{from_seed, generate, GenCase};
pub use known::Known;
