//! Fuzz target `atomic_write`: see `editref_fuzzing::atomic_write` for the invariants it checks and
//! `editref_fuzzing::AtomicCase` for the input framing.
#![no_main]

use editref_fuzzing::AtomicCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: AtomicCase| {
    if let Err(violation) = editref_fuzzing::atomic_write(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
