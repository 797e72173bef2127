//! Fuzz target `dialect_inputs`: see `editref_fuzzing::dialect_inputs` for the invariants it
//! checks and `editref_fuzzing::DialectCase` for the input framing.
#![no_main]

use editref_fuzzing::DialectCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: DialectCase| {
    if let Err(violation) = editref_fuzzing::dialect_inputs(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
