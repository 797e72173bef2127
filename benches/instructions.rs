//! Instruction-count benches (gungraun, under Valgrind Callgrind) of the pure core: decode,
//! match, engine and patch. Counts are deterministic — the same on a busy shared runner as on a
//! quiet laptop — which makes them the regression gate (`scripts/bench-compare BASE_REV`).
//! Input generation happens in setup functions, outside the counted region.
//!
//! Inputs are 1 MB (about 34,000 lines), large enough that per-byte costs dominate and small
//! enough that the whole run under Valgrind takes well under a minute.
//!
//! Run: `cargo bench --bench instructions` (needs valgrind and `gungraun-runner` of the same
//! version as the `gungraun` dev-dependency).

mod common;

use common::Form;
use editref::engine::{self, EditRequest};
use editref::matching::{closest_region, Haystack};
use editref::patch;
use editref::text::{Document, Replacement};
use gungraun::prelude::*;
use std::hint::black_box;

const SIZE: usize = 1 << 20;

fn bytes_needle(form: Form) -> Vec<u8> {
    form.encode(&common::source_with_needle(SIZE))
}

fn view_needle() -> String {
    common::source_with_needle(SIZE)
}

fn view_tokens() -> String {
    common::source_with_tokens(SIZE).0
}

fn view_multi() -> String {
    common::source_with(
        SIZE,
        7,
        &[
            (0.25, "    let first_marker_a = 1;"),
            (0.5, "    let second_marker_a = 2;"),
            (0.75, "    let third_marker_a = 3;"),
        ],
    )
}

fn view_curly() -> String {
    common::source_with_curly_quotes(SIZE)
}

fn req(old: &str, new: &str, replace_all: bool) -> EditRequest {
    EditRequest::new(old, new, replace_all)
}

// ---- decode: bytes -> LF view (TEXT-1..5) ----

#[library_benchmark]
#[bench::lf(setup = bytes_needle, args = (Form::Lf))]
#[bench::crlf(setup = bytes_needle, args = (Form::Crlf))]
#[bench::utf16le(setup = bytes_needle, args = (Form::Utf16Le))]
fn decode(bytes: Vec<u8>) -> usize {
    let doc = Document::decode(black_box(&bytes)).expect("decodes");
    black_box(doc.view().len())
}

// Decode, then render one replacement back into output chunks (TEXT-6).
#[library_benchmark]
#[bench::lf(setup = bytes_needle, args = (Form::Lf))]
#[bench::crlf(setup = bytes_needle, args = (Form::Crlf))]
#[bench::utf16le(setup = bytes_needle, args = (Form::Utf16Le))]
fn decode_render(bytes: Vec<u8>) -> usize {
    let doc = Document::decode(black_box(&bytes)).expect("decodes");
    let start = doc.view().find(common::NEEDLE_A).expect("needle");
    let reps = [Replacement {
        start,
        end: start + common::NEEDLE_A.len(),
        text: common::NEEDLE_B.into(),
    }];
    let chunks = doc.render(&reps).expect("renders");
    black_box(chunks.iter().map(|c| c.bytes().len()).sum())
}

library_benchmark_group!(name = decode_group, benchmarks = [decode, decode_render]);

// ---- match: MATCH-1/2/6 ----

#[library_benchmark]
#[bench::unique(setup = view_needle)]
fn find_unique(text: String) -> usize {
    black_box(
        Haystack::new(&text)
            .find(black_box(common::NEEDLE_A))
            .spans
            .len(),
    )
}

#[library_benchmark]
#[bench::tokens(setup = view_tokens)]
fn find_all(text: String) -> usize {
    black_box(
        Haystack::new(&text)
            .find(black_box(common::TOKEN_A))
            .spans
            .len(),
    )
}

#[library_benchmark]
#[bench::curly(setup = view_curly)]
fn find_quote_fallback(text: String) -> usize {
    black_box(
        Haystack::new(&text)
            .find(black_box(common::CURLY_OLD_A))
            .spans
            .len(),
    )
}

#[library_benchmark]
#[bench::near_miss(setup = view_needle)]
fn not_found_hint(text: String) -> usize {
    let hint = closest_region(&text, black_box("let  needle_unique_target = 41 ;"));
    black_box(hint.map_or(0, |h| h.start_line))
}

library_benchmark_group!(
    name = match_group,
    benchmarks = [find_unique, find_all, find_quote_fallback, not_found_hint]
);

// ---- engine: EDIT-2, MATCH-3..5, MULTI-1..4 ----

#[library_benchmark]
#[bench::unique(setup = view_needle)]
fn engine_edit(text: String) -> usize {
    let applied = engine::apply(&text, &[req(common::NEEDLE_A, common::NEEDLE_B, false)]);
    black_box(applied.expect("applies").replacements.len())
}

#[library_benchmark]
#[bench::tokens(setup = view_tokens)]
fn engine_replace_all(text: String) -> usize {
    let applied = engine::apply(&text, &[req(common::TOKEN_A, common::TOKEN_B, true)]);
    black_box(applied.expect("applies").replacements.len())
}

#[library_benchmark]
#[bench::three(setup = view_multi)]
fn engine_multi_edit(text: String) -> usize {
    let edits = [
        req("first_marker_a", "first_marker_b", false),
        req("second_marker_a", "second_marker_b", false),
        req("third_marker_a", "third_marker_b", false),
    ];
    black_box(
        engine::apply(&text, &edits)
            .expect("applies")
            .replacements
            .len(),
    )
}

/// 1,000 unique markers spread over the text, and the edits that rename each.
fn multi_thousand() -> (String, Vec<EditRequest>) {
    let mut lines = common::source_lines(SIZE, 5);
    let step = lines.len() / 1000;
    for j in 0..1000 {
        lines[j * step] = format!("    let marker_{j:04}_unique = {j};");
    }
    let edits = (0..1000)
        .map(|j| {
            req(
                &format!("marker_{j:04}_unique = {j};"),
                &format!("marker_{j:04}_renamed = {j};"),
                false,
            )
        })
        .collect();
    (common::join(&lines), edits)
}

// MULTI-1: a MultiEdit of 1,000 edits, the case whose cost once grew with edits × file size.
#[library_benchmark]
#[bench::thousand(setup = multi_thousand)]
fn engine_multi_edit_many(input: (String, Vec<EditRequest>)) -> usize {
    let (text, edits) = input;
    black_box(
        engine::apply(&text, &edits)
            .expect("applies")
            .replacements
            .len(),
    )
}

#[library_benchmark]
#[bench::curly(setup = view_curly)]
fn engine_quote_fallback(text: String) -> usize {
    let applied = engine::apply(
        &text,
        &[req(common::CURLY_OLD_A, common::CURLY_OLD_B, false)],
    );
    black_box(applied.expect("applies").replacements.len())
}

library_benchmark_group!(
    name = engine_group,
    benchmarks = [
        engine_edit,
        engine_replace_all,
        engine_multi_edit,
        engine_multi_edit_many,
        engine_quote_fallback
    ]
);

// ---- patch: EDIT-6 hunks and the unified diff ----

fn spans_needle() -> (String, Vec<Replacement>) {
    let text = view_needle();
    let reps = engine::apply(&text, &[req(common::NEEDLE_A, common::NEEDLE_B, false)])
        .expect("applies")
        .replacements;
    (text, reps)
}

fn spans_tokens() -> (String, Vec<Replacement>) {
    let text = view_tokens();
    let reps = engine::apply(&text, &[req(common::TOKEN_A, common::TOKEN_B, true)])
        .expect("applies")
        .replacements;
    (text, reps)
}

fn write_pair() -> (String, String) {
    let old = common::source_with_needle(64 << 10);
    let new = old.replace(common::NEEDLE_A, common::NEEDLE_B);
    (old, new)
}

#[library_benchmark]
#[bench::one_hit(setup = spans_needle)]
#[bench::tokens(setup = spans_tokens)]
fn structured_patch(input: (String, Vec<Replacement>)) -> usize {
    // What Edit runs: the diff with its hunks, and structuredPatch as JSON.
    let (text, reps) = input;
    let patch = patch::Patch::new("file.rs", &text, &reps);
    let json = patch.to_json();
    black_box(patch.diff().len() + usize::from(json.is_array()))
}

#[library_benchmark]
#[bench::one_hit(setup = spans_needle)]
#[bench::tokens(setup = spans_tokens)]
fn structured_patch_written(input: (String, Vec<Replacement>)) -> usize {
    // What `call` and `serve` write: structuredPatch serialized straight from the diff text.
    let (text, reps) = input;
    let patch = editref::api::StructuredPatch(patch::Patch::new("file.rs", &text, &reps));
    let mut out = Vec::new();
    serde_json::to_writer(&mut out, &patch).expect("serializes");
    black_box(out.len())
}

#[library_benchmark]
#[bench::one_line_64k(setup = write_pair)]
fn whole_text_patch(input: (String, String)) -> usize {
    black_box(
        patch::Patch::whole_text("file.rs", &input.0, &input.1)
            .diff()
            .len(),
    )
}

library_benchmark_group!(
    name = patch_group,
    benchmarks = [structured_patch, structured_patch_written, whole_text_patch]
);

main!(
    library_benchmark_groups = decode_group,
    match_group,
    engine_group,
    patch_group
);
