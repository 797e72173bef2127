//! Fuzz target `quotes`: see `editref_fuzzing::quotes` for the invariants it checks and
//! `editref_fuzzing::QuoteCase` for the input framing.
#![no_main]

use editref_fuzzing::QuoteCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: QuoteCase| {
    if let Err(violation) = editref_fuzzing::quotes(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
