//! Fuzz target `apply_patch_seek`: see `editref_fuzzing::apply_patch_seek` for the invariants it
//! checks and `editref_fuzzing::SeekCase` for the input framing.
#![no_main]

use editref_fuzzing::SeekCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: SeekCase| {
    if let Err(violation) = editref_fuzzing::apply_patch_seek(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
