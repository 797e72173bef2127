//! Fuzz target `document_roundtrip`: see `editref_fuzzing::document_roundtrip` for the invariants it checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = editref_fuzzing::document_roundtrip(data) {
        panic!("invariant violated: {violation}");
    }
});
