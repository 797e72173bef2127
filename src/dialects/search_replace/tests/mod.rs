//! Tests of the SEARCH/REPLACE dialect, named by the SPEC §15.6 rule they pin: `parse.rs` for
//! BLOCK-1..5, `flex.rs` for BLOCK-6..8, `lines.rs` and `apply.rs` for the applying side
//! (BLOCK-9..17).

mod apply;
mod flex;
mod lines;
mod parse;
