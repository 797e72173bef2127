//! Running cases: one case through an adapter ([`run_case`]), case selection, the expectations
//! file (xfail / xpass), and what a set of results certifies.
//!
//! The parts are split by the question each answers: `record` defines the outcome of a case
//! ([`Status`], [`CaseRecord`]); `runner` runs one case against an adapter; `select` decides
//! which cases run; `expectations` applies the list of known failures; `verdict` turns records
//! into totals, an exit code and certification. The public items are re-exported here.

mod expectations;
mod record;
mod runner;
mod select;
#[cfg(test)]
mod tests_support;
mod verdict;

pub use expectations::{apply_expectations, Expectations};
pub use record::{CaseRecord, Status};
pub use runner::{absolutize, missing_features, run_case};
pub use select::{glob_match, selected};
pub use verdict::{certification, exit_code, highest, totals};
