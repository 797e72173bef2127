//! Fuzz target `conform_gen`: see `editref_fuzzing::conform_gen` for the invariants it checks
//! of the differential fuzzer's case generator, and for the input framing.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = editref_fuzzing::conform_gen(data) {
        panic!("invariant violated: {violation}");
    }
});
