//! Tests of the SEARCH/REPLACE dialect through its public entry points, named by the SPEC
//! §15.2 rule they pin: `parse.rs` for BLOCK-1..5, `flex.rs` for BLOCK-6..8.

mod flex;
mod parse;
