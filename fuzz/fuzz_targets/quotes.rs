//! Fuzz target `quotes`: see `editref::fuzzing::quotes` for the invariants it checks and
//! `editref::fuzzing::QuoteCase` for the input framing.
#![no_main]

use editref::fuzzing::QuoteCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: QuoteCase| {
    if let Err(violation) = editref::fuzzing::quotes(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
