//! Fuzz target `inputs`: see `editref_fuzzing::inputs` for the invariants it checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = editref_fuzzing::inputs(data) {
        panic!("invariant violated: {violation}");
    }
});
