//! Fuzz target `search_replace_parse`: see `editref_fuzzing::search_replace_parse` for the
//! invariants it checks and `editref_fuzzing::SearchReplaceCase` for the input framing.
#![no_main]

use editref_fuzzing::SearchReplaceCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: SearchReplaceCase| {
    if let Err(violation) = editref_fuzzing::search_replace_parse(&case) {
        panic!("invariant violated: {violation}\n{case:#?}");
    }
});
