//! What the property suites (`tests/properties*.rs`) share: their models, written from
//! SPEC.md and sharing no code with the library — the matching rules (`matching.rs`: MATCH-1, the
//! quote folding of MATCH-2 and the restyling of MATCH-4) and a check of a structuredPatch and
//! diff that applies the hunks to the old lines itself (`patch.rs`: EDIT-6).

#![allow(dead_code)]

pub mod matching;
pub mod patch;

/// `text` with each span replaced; `spans` sorted, disjoint, in byte offsets.
pub fn splice(text: &str, spans: &[(usize, usize, String)]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (s, e, t) in spans {
        out.push_str(&text[at..*s]);
        out.push_str(t);
        at = *e;
    }
    out.push_str(&text[at..]);
    out
}
