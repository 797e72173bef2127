//! Helpers shared by the harness's integration tests.

pub mod browser;
