//! Fuzz target `repair`: see `editref_fuzzing::repair` for the invariants it checks and
//! `editref_fuzzing::RepairCase` for the input framing.
#![no_main]

use editref_fuzzing::RepairCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: RepairCase| {
    if let Err(violation) = editref_fuzzing::repair(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
