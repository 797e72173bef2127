//! Fuzz target `edit_vs_model`: see `editref_fuzzing::edit_vs_model` for the invariants it checks and
//! `editref_fuzzing::EditCase` for the input framing.
#![no_main]

use editref_fuzzing::EditCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: EditCase| {
    if let Err(violation) = editref_fuzzing::edit_vs_model(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
