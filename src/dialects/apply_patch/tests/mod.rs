//! Unit tests of the V4A parser (`parse.rs`, APPLY-1..4) and seeker (`seek.rs`, APPLY-5..9),
//! named after the SPEC §15.5 rules they pin; the helpers they share are here.

use super::*;
use crate::text::Replacement;

mod parse;
mod seek;

// ---------------------------------------------------------------------------------------------
// helpers

fn chunk(anchors: &[&str], old: &[&str], new: &[&str], end_of_file: bool, line: usize) -> Chunk {
    let v = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    Chunk {
        anchors: v(anchors),
        old: v(old),
        new: v(new),
        end_of_file,
        line,
    }
}

fn apply(view: &str, reps: &[Replacement]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for r in reps {
        assert!(
            r.start >= at && r.start <= r.end && r.end <= view.len(),
            "{reps:?}"
        );
        out.push_str(&view[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&view[at..]);
    out
}

/// The chunks of the single Update in `patch`.
fn chunks_of(patch: &str) -> Vec<Chunk> {
    match parse(patch).unwrap().ops.into_iter().next() {
        Some(FileOp::Update { chunks, .. }) => chunks,
        other => panic!("not an update: {other:?}"),
    }
}

/// Applies an update body (the lines after `*** Update File: f`) to `view`.
fn update(view: &str, body: &str) -> Result<String, LocateError> {
    let patch = format!("*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch\n");
    let chunks = chunks_of(&patch);
    let reps = locate(view, &chunks)?;
    for w in reps.windows(2) {
        assert!(
            w[0].end < w[1].start,
            "sorted, disjoint, not touching: {reps:?}"
        );
    }
    Ok(apply(view, &reps))
}

fn err(text: &str) -> ParseError {
    parse(text).unwrap_err()
}
