//! Fuzz target `repair`: see `editref::fuzzing::repair` for the invariants it checks and
//! `editref::fuzzing::RepairCase` for the input framing.
#![no_main]

use editref::fuzzing::RepairCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: RepairCase| {
    if let Err(violation) = editref::fuzzing::repair(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
