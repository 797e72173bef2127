//! Running cases: one case through an adapter ([`run_case`]), case selection, the expectations
//! file (xfail / xpass), and what a set of results certifies.
//!
//! The parts are split by the question each answers: `record` defines the outcome of a case
//! ([`Status`], [`CaseRecord`]); `runner` runs one case against an adapter (and once more, patiently,
//! after a timeout); `pool` runs many at once, one adapter per worker, and runs the cases that
//! timed out again alone; `select` decides which cases run; `expectations` applies the
//! list of known failures; `verdict` turns records into totals, an exit code and
//! certification, and `classes` does the same per failure class (data, contract,
//! presentation). The public items are re-exported here.

mod classes;
mod expectations;
mod pool;
mod record;
mod runner;
mod select;
#[cfg(test)]
mod tests_support;
mod verdict;

pub use classes::{class_results, holds, ClassCertification, ClassCounts, ClassResult};
pub use expectations::{apply_expectations, known_failures, Expectations};
pub use pool::{BoxedAdapter, Flow, Pool};
pub use record::{About, CaseRecord, Status};
pub use runner::{
    absolutize, missing_features, rerun_after_timeout, run_case, run_case_with, CaseOptions, Keep,
    RERUN_PATIENCE,
};
pub use select::{glob_match, selected};
pub use verdict::{certification, exit_code, exit_code_for, fails_gate, highest, totals, Gate};
