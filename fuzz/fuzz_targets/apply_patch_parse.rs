//! Fuzz target `apply_patch_parse`: see `editref_fuzzing::apply_patch_parse` for the invariants
//! it checks and the input framing.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = editref_fuzzing::apply_patch_parse(data) {
        panic!("invariant violated: {violation}");
    }
});
