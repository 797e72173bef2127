//! MultiEdit against a deliberately naive model (MULTI-1..4): every edit applied in turn to the
//! whole text held in one `String`, found by trying every offset, with the spec's rules written
//! out again in the plainest way — MATCH-1/3, the curly-quote fallback of MATCH-2 and the
//! restyling of MATCH-4 (`property_support/matching.rs`), the REPAIR-1/2 desanitizing with
//! REPAIR-4's "only when the text as given is absent", MULTI-2, EDIT-2 and ALIAS-5's expected
//! count.
//!
//! The engine keeps the text of a MultiEdit in blocks and finds most needles through an index
//! built once; a needle may start in one block and end in another, across text an earlier
//! edit put in, inside hits that overlap, or only through a repair or the quote fallback. The
//! texts and strings here are made of a handful of pieces so that all of that happens often,
//! and every run is checked in several layouts (blocks of 1 to 64 bytes, every needle indexed,
//! none, or only the short ones) as well as through `apply` itself. Many edits are cut from
//! the text as it stands at their turn, so that runs of edits get far; others from the
//! `new_string` of an earlier edit, near or far back, so that MULTI-2 is asked about every
//! earlier edit, not only the last.
//!
//! Pi's list of edits (ALIAS-6) has a model of its own, every edit matched against the original:
//! `apply_to_original` gives its answers, and where the list applied in order succeeds too, the
//! two write the same text.

#[path = "property_support/mod.rs"]
mod property_support;

use editref::engine::{apply, apply_to_original, apply_with_layout, Applied, EditRequest};
use editref::Code;
use property_support::matching::{find, fold, restyle};
use proptest::prelude::*;

/// One edit as the model takes it.
#[derive(Debug, Clone)]
struct Edit {
    old: String,
    new: String,
    all: bool,
    expected: Option<usize>,
}

/// What the model reports per edit: old_string, new_string, replacements, repairs.
type Report = (String, String, usize, Vec<&'static str>);

/// REPAIR-1/2/4 for the one abbreviation the generators use (`<n>` for `<name>`): it fires only
/// when old_string does not occur and its long form does, and then applies to new_string too.
fn repair(text: &str, old: &str, new: &str) -> (String, String, Vec<&'static str>) {
    let occurs = |s: &str| !s.is_empty() && !find(text, s).0.is_empty();
    if old.is_empty() || occurs(old) || !old.contains("<n>") {
        return (old.to_string(), new.to_string(), Vec::new());
    }
    let long = old.replace("<n>", "<name>");
    if occurs(&long) {
        return (long, new.replace("<n>", "<name>"), vec!["desanitize"]);
    }
    (old.to_string(), new.to_string(), Vec::new())
}

/// The model: the final text and the reports, or the failing edit and its code.
fn model(original: &str, edits: &[Edit]) -> Result<(String, Vec<Report>), (usize, Code)> {
    let mut text = original.to_string();
    let mut written: Vec<String> = Vec::new();
    let mut reports = Vec::new();
    for (k, e) in edits.iter().enumerate() {
        let (old, new, repairs) = repair(&text, &e.old, &e.new);
        if old == new {
            return Err((k, Code::NoChange));
        }
        let probe = old.trim_end_matches('\n');
        if !probe.is_empty() && written.iter().any(|w| w.contains(probe)) {
            return Err((k, Code::EditConflict));
        }
        if old.is_empty() {
            if !text.chars().all(char::is_whitespace) {
                return Err((k, Code::FileExists));
            }
            reports.push((text.clone(), new.clone(), 1, repairs));
            text = new.clone();
        } else {
            let (hits, folded) = find(&text, &old);
            if hits.is_empty() {
                return Err((k, Code::NotFound));
            }
            if e.expected.is_some_and(|n| n != hits.len()) {
                return Err((k, Code::ReplacementCount));
            }
            if hits.len() > 1 && !e.all {
                return Err((k, Code::Ambiguous));
            }
            // MATCH-4: at a hit found through the folding, each hit's own text and neighbours
            // decide the quotes written.
            let styled = |(s, e): (usize, usize)| {
                if folded {
                    let before = text[..s].chars().next_back();
                    restyle(&new, &text[s..e], before, text[e..].chars().next())
                } else {
                    new.clone()
                }
            };
            // EDIT-2: a deletion of text that does not end a line takes the break after it.
            let eat = new.is_empty() && !old.ends_with('\n');
            let first = &text[hits[0].0..hits[0].1];
            reports.push((first.to_string(), styled(hits[0]), hits.len(), repairs));
            let mut out = String::new();
            let mut at = 0;
            for &(s, e) in &hits {
                let w = styled((s, e));
                let s = s.max(at);
                out.push_str(&text[at..s]);
                out.push_str(&w);
                at = if eat && text[e..].starts_with('\n') {
                    e + 1
                } else {
                    e
                };
            }
            out.push_str(&text[at..]);
            text = out;
        }
        if !(k == 0 && old.is_empty()) {
            written.push(new);
        }
    }
    Ok((text, reports))
}

/// The text `applied` makes of `original`, and its reports in the model's shape.
fn outcome(original: &str, applied: Applied) -> (String, Vec<Report>) {
    let mut out = String::new();
    let mut at = 0;
    for r in &applied.replacements {
        assert!(at <= r.start && r.start <= r.end, "sorted, disjoint spans");
        out.push_str(&original[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&original[at..]);
    let reports = applied
        .edits
        .into_iter()
        .map(|e| (e.old_string, e.new_string, e.replacements, e.repairs))
        .collect();
    (out, reports)
}

/// Pieces of file text: repeats, line breaks, a two-byte letter, straight and curly quotes,
/// what opens a quote (`(`), and the long form of the abbreviation a repair expands.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => Just("a"),
            3 => Just("b"),
            2 => Just("ab"),
            2 => Just(" "),
            3 => Just("\n"),
            1 => Just("é"),
            1 => Just("("),
            1 => Just("'"),
            1 => Just("\""),
            1 => Just("\u{2018}"),
            1 => Just("\u{2019}"),
            1 => Just("\u{201C}"),
            1 => Just("\u{201D}"),
            1 => Just("<name>"),
            1 => Just("x"),
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}

/// Needles: mostly short, from the same pieces, with line breaks, both kinds of quotes, the
/// abbreviation `<n>`, and `Z`, which only an earlier edit can have written.
fn old() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => Just("a"),
            3 => Just("b"),
            3 => Just("\n"),
            1 => Just(" "),
            1 => Just("é"),
            1 => Just("'"),
            1 => Just("\""),
            1 => Just("\u{2019}"),
            1 => Just("\u{201C}"),
            1 => Just("<n>"),
            1 => Just("x"),
            1 => Just("Z"),
        ],
        0..5,
    )
    .prop_map(|v| v.concat())
}

/// Replacements: often empty (EDIT-2), with straight quotes for MATCH-4 to curl after the
/// file, often pieces that complete a needle across the place they are put.
fn new() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => Just("Z"),
            3 => Just("a"),
            2 => Just("b"),
            2 => Just("\n"),
            1 => Just(" "),
            1 => Just("é"),
            1 => Just("<n>"),
            1 => Just("'"),
            1 => Just("\""),
            1 => Just("\u{201C}"),
        ],
        0..4,
    )
    .prop_map(|v| v.concat())
}

fn edit() -> impl Strategy<Value = Edit> {
    (
        old(),
        new(),
        any::<bool>(),
        prop::option::weighted(0.1, 0usize..4),
    )
        .prop_map(|(old, new, all, expected)| Edit {
            old,
            new,
            all: all || expected.is_some(),
            expected,
        })
}

/// Where an edit's `old_string` comes from.
#[derive(Debug, Clone)]
enum Source {
    /// As generated.
    Drawn,
    /// Up to `len` characters of the text as it stands at the edit's turn, from `at`; with
    /// `retype`, its curly quotes straightened, which only MATCH-2 finds again.
    Text {
        at: prop::sample::Index,
        len: usize,
        retype: bool,
    },
    /// Up to `len` characters of an earlier edit's `new_string` (`back` picks which: the one
    /// just before or any further back), from `at`.
    Earlier {
        back: prop::sample::Index,
        at: prop::sample::Index,
        len: usize,
    },
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        2 => Just(Source::Drawn),
        3 => (any::<prop::sample::Index>(), 1usize..8, any::<bool>())
            .prop_map(|(at, len, retype)| Source::Text { at, len, retype }),
        2 => (any::<prop::sample::Index>(), any::<prop::sample::Index>(), 1usize..5)
            .prop_map(|(back, at, len)| Source::Earlier { back, at, len }),
    ]
}

/// Up to `len` characters of `s` from the character `at` picks.
fn cut(s: &str, at: prop::sample::Index, len: usize) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return None;
    }
    let from = at.index(chars.len());
    Some(chars[from..(from + len).min(chars.len())].iter().collect())
}

/// A text and a run of edits on it: each edit's `old_string` as drawn, cut from the text the
/// edits before it leave (by the model; when they fail, as drawn), or cut from an earlier
/// edit's `new_string`.
fn case() -> impl Strategy<Value = (String, Vec<Edit>)> {
    (text(), proptest::collection::vec((edit(), source()), 1..9)).prop_map(|(original, drawn)| {
        let mut edits: Vec<Edit> = Vec::with_capacity(drawn.len());
        for (mut e, src) in drawn {
            let k = edits.len();
            let old = match src {
                Source::Drawn => None,
                Source::Text { at, len, retype } => model(&original, &edits)
                    .ok()
                    .and_then(|(now, _)| cut(&now, at, len))
                    .map(|c| {
                        if retype {
                            c.chars().map(fold).collect()
                        } else {
                            c
                        }
                    }),
                Source::Earlier { back, at, len } if k > 0 => {
                    cut(&edits[k - 1 - back.index(k)].new, at, len)
                }
                Source::Earlier { .. } => None,
            };
            if let Some(old) = old {
                e.old = old;
            }
            edits.push(e);
        }
        (original, edits)
    })
}

fn requests(edits: &[Edit]) -> Vec<EditRequest> {
    edits
        .iter()
        .map(|e| {
            let r = EditRequest::new(&e.old, &e.new, e.all);
            match e.expected {
                Some(n) => r.with_expected_count(n),
                None => r,
            }
        })
        .collect()
}

/// Every layout a run can take: block sizes, and which needles go through the index.
const LAYOUTS: [(usize, usize); 9] = [
    (1, usize::MAX),
    (2, usize::MAX),
    (3, usize::MAX),
    (5, 2),
    (7, usize::MAX),
    (64, usize::MAX),
    (1, 0),
    (4, 1),
    (16, 0),
];

/// Checks `edits` on `original` against the model, through `apply` and in every layout.
fn check(original: &str, edits: &[Edit]) -> Result<(), TestCaseError> {
    let want = model(original, edits);
    let reqs = requests(edits);
    let got = apply(original, &reqs)
        .map(|a| outcome(original, a))
        .map_err(|f| (f.index, f.error.code));
    prop_assert_eq!(&got, &want, "apply");
    if reqs.len() > 1 {
        for (block, longest) in LAYOUTS {
            let got = apply_with_layout(original, &reqs, block, longest)
                .map(|a| outcome(original, a))
                .map_err(|f| (f.index, f.error.code));
            prop_assert_eq!(
                &got,
                &want,
                "blocks of {}, needles up to {}",
                block,
                longest
            );
        }
    }
    Ok(())
}

fn unique(old: &str, new: &str) -> Edit {
    Edit {
        old: old.into(),
        new: new.into(),
        all: false,
        expected: None,
    }
}

fn every(old: &str, new: &str) -> Edit {
    Edit {
        all: true,
        ..unique(old, new)
    }
}

/// A needle made by an earlier edit at the very edge of what the index looks at again: the
/// longest needle overlapping the text put in by one byte at either end, or spanning a place
/// where text was taken out. Each must be found beside the hit that was there before.
#[test]
fn multi_1_needles_made_at_the_edges_of_an_earlier_edit() {
    let cases: &[(&str, &[Edit])] = &[
        ("abQ abc", &[unique("Q", "c"), every("abc", "_")]),
        ("Qbc abc", &[unique("Q", "a"), every("abc", "_")]),
        ("abXc abc", &[unique("X", ""), every("abc", "_")]),
        ("aXbc abc", &[unique("X", ""), every("abc", "_")]),
        (
            "a\nQ\nc a\nb\nc",
            &[unique("Q", "b"), every("a\nb\nc", "_")],
        ),
        (
            "abcQ abcd",
            &[unique("Q", "d"), every("abcd", "_"), unique("_", "-")],
        ),
        (
            "Qbcd abcd bc",
            &[unique("Q", "a"), every("abcd", "_"), unique("bc", "c")],
        ),
        ("aQd abcd", &[unique("Q", "bc"), every("abcd", "_")]),
        ("abcabQ", &[unique("Q", "c"), every("abcabc", "_")]),
        ("aaQaa", &[unique("Q", "a"), every("aa", "b")]),
        ("aaQaa", &[unique("Q", "a"), every("aaa", "b")]),
    ];
    for (original, edits) in cases {
        if let Err(e) = check(original, edits) {
            panic!("{original:?} {edits:?}: {e}");
        }
    }
}

/// MULTI-2 looks at the `new_string` of every earlier edit, not only the one just before:
/// conflicts with an edit two or more places back, past edits that wrote something else, a
/// replace_all and a deletion, in every layout.
#[test]
fn multi_2_conflicts_with_an_edit_further_back() {
    let cases: &[(&str, &[Edit])] = &[
        (
            "a b c",
            &[unique("a", "XY"), unique("b", "Q"), unique("XY", "Z")],
        ),
        (
            "a b c",
            &[
                unique("a", "A"),
                unique("b", "<b>"),
                unique("c", "C"),
                every(" ", "_"),
                unique("<b", "{b"),
            ],
        ),
        (
            "ab\nab\nx",
            &[
                every("a", "Qa"),
                unique("x", ""),
                every("b\n", "B\n"),
                unique("Qa", "q"),
            ],
        ),
    ];
    for (original, edits) in cases {
        let want = model(original, edits);
        prop_assert_conflict(&want, edits.len() - 1);
        if let Err(e) = check(original, edits) {
            panic!("{original:?} {edits:?}: {e}");
        }
    }
}

/// The model itself must refuse the last edit with `edit_conflict`, or the example above
/// checks nothing.
fn prop_assert_conflict(want: &Result<(String, Vec<Report>), (usize, Code)>, index: usize) {
    assert_eq!(want.as_ref().err(), Some(&(index, Code::EditConflict)));
}

/// ALIAS-6's model: every edit repaired and found in `original` itself (exactly one hit), the
/// spans of all of them, with EDIT-2's break, sorted; a break a deletion takes that another
/// hit begins with is that hit's; overlapping spans are `edit_conflict` for the later edit.
fn model_on_original(original: &str, edits: &[Edit]) -> Result<String, (usize, Code)> {
    // (start, end, new text, edit, took the break after its hit)
    let mut spans: Vec<(usize, usize, String, usize, bool)> = Vec::new();
    for (k, e) in edits.iter().enumerate() {
        let (old, new, _) = repair(original, &e.old, &e.new);
        if old == new {
            return Err((k, Code::NoChange));
        }
        let (hits, _) = find(original, &old);
        match hits.len() {
            0 => return Err((k, Code::NotFound)),
            1 => {}
            _ => return Err((k, Code::Ambiguous)),
        }
        let (s, e) = hits[0];
        let took = new.is_empty() && !old.ends_with('\n') && original[e..].starts_with('\n');
        spans.push((s, if took { e + 1 } else { e }, new, k, took));
    }
    spans.sort_by_key(|&(s, e, _, k, _)| (s, e, k));
    for i in 1..spans.len() {
        if spans[i - 1].4 && spans[i - 1].1 == spans[i].0 + 1 {
            spans[i - 1].1 -= 1;
            spans[i - 1].4 = false;
        }
        if spans[i - 1].1 > spans[i].0 {
            return Err((spans[i - 1].3.max(spans[i].3), Code::EditConflict));
        }
    }
    let mut out = String::new();
    let mut at = 0;
    for (s, e, new, _, _) in &spans {
        out.push_str(&original[at..*s]);
        out.push_str(new);
        at = *e;
    }
    out.push_str(&original[at..]);
    Ok(out)
}

/// A list of Pi's edits: each replaces one text, which is never empty.
fn pi_edit() -> impl Strategy<Value = Edit> {
    (old(), new()).prop_map(|(old, new)| Edit {
        old: if old.is_empty() { "a".into() } else { old },
        new,
        all: false,
        expected: None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// ALIAS-6: Pi's list is the model matched against the original; and where the same list
    /// applied in order (MULTI-1) succeeds as well, on exact text (no repair, no quote
    /// fallback) and without deletions (EDIT-2's break, which in order goes to whichever edit
    /// runs first), both write the same text.
    #[test]
    fn pis_list_is_matched_against_the_original(
        original in text(),
        edits in proptest::collection::vec(pi_edit(), 1..6),
    ) {
        let reqs = requests(&edits);
        let together = apply_to_original(&original, &reqs);
        let got = together
            .clone()
            .map(|a| outcome(&original, a).0)
            .map_err(|f| (f.index, f.error.code));
        prop_assert_eq!(&got, &model_on_original(&original, &edits));
        let exact = |a: &Applied| {
            a.edits.iter().zip(&edits).all(|(r, e)| {
                r.repairs.is_empty() && r.old_string == e.old && !e.new.is_empty()
            })
        };
        if let (Ok(together), Ok(in_order)) = (together, apply(&original, &reqs)) {
            if exact(&together) && exact(&in_order) {
                prop_assert_eq!(outcome(&original, together).0, outcome(&original, in_order).0);
            }
        }
    }

    /// MULTI-1..4 with MATCH-1..4, REPAIR-1/2/4, EDIT-2 and ALIAS-5: the final text, every
    /// edit's report, or the failing edit and its code, are the model's — in every layout.
    #[test]
    fn multi_edit_is_the_naive_model((original, edits) in case()) {
        check(&original, &edits)?;
    }

    /// The same with long runs of unique markers, as a large MultiEdit is: every edit renames
    /// one marker, some right next to others, so that each splice lands beside the last.
    #[test]
    fn many_unique_edits_are_the_naive_model(
        gaps in proptest::collection::vec(0usize..6, 1..80),
        order in proptest::collection::vec(any::<prop::sample::Index>(), 1..80),
    ) {
        let mut original = String::new();
        for (i, g) in gaps.iter().enumerate() {
            original.push_str(&"ab\n"[..*g % 4]);
            original.push_str(&format!("<m{i}>"));
        }
        let edits: Vec<Edit> = order
            .iter()
            .map(|ix| {
                let i = ix.index(gaps.len());
                Edit { old: format!("<m{i}>"), new: format!("[{i}]"), all: false, expected: None }
            })
            .collect();
        check(&original, &edits)?;
    }
}
