//! A MultiEdit's edits in order (MULTI-1..4), at a cost that grows with the file once plus the
//! work of each edit, instead of with the file once per edit.
//!
//! The current text lives in [`Blocks`]; [`Index`] knows which blocks may hold each needle and
//! [`Conflicts`] which earlier edit wrote each one (MULTI-2). An edit whose `old_string` occurs
//! exactly (MATCH-1), and that passes every check, is settled there: its hits come from the
//! blocks, and no repair can fire, since a repair fires only for text that does not occur
//! (REPAIR-4). Every other edit — an empty `old_string`, a needle too long to index, one with no
//! exact hit (repairs, the curly-quote fallback, `not_found`), and any refusal — runs
//! [`step`] on the whole current text, exactly as if no blocks existed. Both ways give the same
//! spans, so the result and every error are those of running [`step`] edit by edit.

use super::blocks::{Blocks, Pos};
use super::conflicts::{Conflicts, Written};
use super::index::Index;
use super::step::{step, Earlier};
use super::{Applied, EditReport, EditRequest, Failure};
use std::borrow::Cow;
use std::collections::HashMap;

/// Texts up to this size index every needle (see [`Plan::new`]).
const SMALL: usize = 64 * 1024;

/// How the run is laid out: the block size and the longest needle worth indexing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Plan {
    /// Bytes per block.
    pub(super) block: usize,
    /// Needles up to this length are indexed; longer ones (and all, when 0) are searched in
    /// the whole text.
    pub(super) longest: usize,
}

impl Plan {
    /// The plan for `edits` on a text of `size` bytes.
    ///
    /// Blocks of 4 KiB (fewer and larger past 256 MiB, smaller for small texts, so that a few
    /// hundred bytes still make several blocks). The longest indexed needle is the one that
    /// makes the estimated cost least: every splice scans its text and the longest needle's
    /// length on either side, while an edit that is not indexed copies and scans the text.
    /// The index itself costs a scan of the text, worth it only for more than a few edits.
    /// Below 64 KiB every needle is indexed: the cost is small either way, and every small
    /// MultiEdit (every test of the rules, every case of the corpus) then takes the way a large
    /// one does.
    pub(super) fn new(size: usize, edits: &[EditRequest]) -> Plan {
        let block = (size / 256).clamp(8, 4096).max(size / 65536);
        let mut lens: Vec<usize> = edits
            .iter()
            .map(|e| e.old_string().len())
            .filter(|&n| n > 0)
            .collect();
        lens.sort_unstable();
        if size <= SMALL {
            return Plan {
                block,
                longest: lens.last().copied().unwrap_or(0),
            };
        }
        let edits = edits.len() as u128;
        let size = size as u128;
        // Costs in units of one byte copied; a scan by the automaton costs about three.
        let mut best = (edits * size, 0);
        let mut built = 0u128;
        for (i, &n) in lens.iter().enumerate() {
            built += n as u128;
            let unindexed = edits - (i as u128 + 1);
            let cost = 3 * size + 4 * n as u128 * edits + unindexed * size + 8 * built;
            if cost < best.0 {
                best = (cost, n);
            }
        }
        // With nothing indexed no search reads a block: one block holds the whole text, and a
        // run of a few edits costs what it did before blocks existed.
        Plan {
            block: if best.1 == 0 {
                size.max(1) as usize
            } else {
                block
            },
            longest: best.1,
        }
    }
}

/// Runs `edits` on `original` (more than one edit).
pub(super) fn run(original: &str, edits: &[EditRequest]) -> Result<Applied, Failure> {
    run_with(original, edits, Plan::new(original.len(), edits))
}

/// The needle and probe of each edit that the index settles.
struct Known<'e> {
    needle: Vec<Option<usize>>,
    probe: Vec<Option<usize>>,
    needles: Vec<&'e str>,
    probes: Vec<&'e str>,
}

impl<'e> Known<'e> {
    fn new(edits: &'e [EditRequest], longest: usize) -> Known<'e> {
        let mut known = Known {
            needle: vec![None; edits.len()],
            probe: vec![None; edits.len()],
            needles: Vec::new(),
            probes: Vec::new(),
        };
        let mut needle_ids: HashMap<&str, usize> = HashMap::new();
        let mut probe_ids: HashMap<&str, usize> = HashMap::new();
        for (k, edit) in edits.iter().enumerate() {
            let old = edit.old_string();
            if old.is_empty() || old.len() > longest {
                continue;
            }
            let next = known.needles.len();
            let id = *needle_ids.entry(old).or_insert(next);
            if id == next {
                known.needles.push(old);
            }
            known.needle[k] = Some(id);
            let probe = old.trim_end_matches('\n');
            if !probe.is_empty() {
                let next = known.probes.len();
                let id = *probe_ids.entry(probe).or_insert(next);
                if id == next {
                    known.probes.push(probe);
                }
                known.probe[k] = Some(id);
            }
        }
        known
    }
}

/// [`run`] with a given plan (tests force small blocks and every needle indexed).
pub(super) fn run_with(
    original: &str,
    edits: &[EditRequest],
    plan: Plan,
) -> Result<Applied, Failure> {
    let mut blocks = Blocks::new(original, plan.block);
    let known = Known::new(edits, plan.longest);
    let total_new: usize = edits.iter().map(|e| e.new_string().len()).sum();
    let budget = 8 * (original.len() + total_new) + (1 << 20);
    let mut index = match known.needles.is_empty() {
        true => None,
        false => Index::new(original, known.needles.clone(), &blocks, budget),
    };
    let mut conflicts = Conflicts::new(&known.probes);
    let mut earlier: Vec<(usize, Cow<'_, str>)> = Vec::new();
    let mut reports = Vec::with_capacity(edits.len());
    for (k, edit) in edits.iter().enumerate() {
        let settled = match (index.as_mut(), known.needle[k]) {
            (Some(index), Some(id)) => {
                let probe = known.probe[k].map(|q| (q, conflicts.written(q)));
                settle(&blocks, index, id, probe, edit, &earlier)
            }
            _ => None,
        };
        let (spans, report, new) = match settled {
            Some(s) => s,
            None => {
                let text = blocks.text();
                let stepped =
                    step(&text, edit, k, &earlier).map_err(|error| Failure { index: k, error })?;
                drop(text);
                let at = blocks.positions(stepped.spans.iter().flat_map(|&(s, e, _)| [s, e]));
                let spans = stepped
                    .spans
                    .into_iter()
                    .zip(at.chunks_exact(2))
                    .map(|((_, _, t), p)| (p[0], p[1], t))
                    .collect();
                (spans, stepped.report, stepped.new)
            }
        };
        let last = k + 1 == edits.len();
        // Only a later edit looks at what this one wrote (MULTI-2); a creating first edit's
        // text is the file's initial text (MULTI-4).
        let creating = k == 0 && edit.old_string().is_empty();
        if !creating && !last {
            conflicts.note(k, &new);
            earlier.push((k, new));
        }
        let put = blocks.splice(spans);
        if !last {
            if let Some(ix) = index.as_mut() {
                if !ix.after_splice(&blocks, &put) {
                    index = None;
                }
            }
            blocks.rebalance();
        }
        reports.push(report);
    }
    Ok(Applied {
        replacements: blocks.into_replacements(),
        edits: reports,
    })
}

/// Spans of the current text, each with the text to put there.
type PosSpans = Vec<(Pos, Pos, String)>;

/// Settles an edit from the index alone: `None` unless the needle occurs exactly and every
/// check passes — then [`step`] would find the same hits, fire no repair and refuse nothing,
/// and these are its spans and report.
fn settle<'e>(
    blocks: &Blocks<'_>,
    index: &mut Index<'_>,
    id: usize,
    probe: Option<(usize, Written)>,
    edit: &'e EditRequest,
    earlier: &Earlier<'e>,
) -> Option<(PosSpans, EditReport, Cow<'e, str>)> {
    let (old, new) = (edit.old_string(), edit.new_string());
    if old == new {
        return None;
    }
    let hits = index.find(blocks, id);
    if hits.is_empty() {
        return None;
    }
    if let Some((_, written)) = probe {
        let probe = old.trim_end_matches('\n');
        let conflict = match written {
            Written::By(first) => first.is_some(),
            Written::Unknown => earlier.iter().any(|(_, n)| n.contains(probe)),
        };
        if conflict {
            return None;
        }
    }
    if edit.expected_count().is_some_and(|n| n != hits.len()) {
        return None;
    }
    if hits.len() > 1 && !edit.replace_all() {
        return None;
    }
    // EDIT-2: deleting text that does not end with a line break takes the break after it
    // (not so for exact deletions, EDITOR-4).
    let eat_break = edit.takes_line_break() && new.is_empty() && !old.ends_with('\n');
    let replacements = hits.len();
    let starts: Vec<_> = hits.iter().map(|&(s, _)| s).collect();
    let spans = hits
        .into_iter()
        .enumerate()
        .map(|(k, (s, e))| {
            // As in `step`: a break the next hit begins with is that hit's to delete (EDIT-2).
            let next_starts_here = starts.get(k + 1) == Some(&e);
            let end = if eat_break && blocks.byte_at(e) == Some(b'\n') && !next_starts_here {
                blocks.forward(e, 1)
            } else {
                e
            };
            (s, end, new.to_string())
        })
        .collect();
    let report = EditReport {
        old_string: old.to_string(),
        new_string: new.to_string(),
        replace_all: edit.replace_all(),
        replacements,
        repairs: Vec::new(),
    };
    Some((spans, report, Cow::Borrowed(new)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edits(lens: &[usize]) -> Vec<EditRequest> {
        lens.iter()
            .enumerate()
            .map(|(i, &n)| {
                let mut old = i.to_string();
                old.push_str(&"y".repeat(n - old.len()));
                EditRequest::new(&old, "x", false)
            })
            .collect()
    }

    #[test]
    fn multi_1_an_index_that_ran_out_of_budget_after_a_splice_is_dropped() {
        // Edit 0 puts 40,000 `a`s before a `b`. The later edits' needles `aa` … `a`×50 overlap
        // there about 2 million times, past the index's budget (8 a byte of text, plus 1 Mi),
        // so the scan after that splice stops before it sees the `ab` at the run's end. Edit
        // 1's `ab` is then in the text twice: MATCH-1 counts both and EDIT-3 refuses it. An
        // index kept after giving up would know only the first, let edit 1 through, and fail
        // on edit 2 instead (MULTI-2: `aa` is in edit 0's new text).
        let mut reqs = vec![
            EditRequest::new("Y", &"a".repeat(40_000), false),
            EditRequest::new("ab", "c", false),
        ];
        for n in 2..=50 {
            reqs.push(EditRequest::new(&"a".repeat(n), "X", false));
        }
        let plan = Plan {
            block: 64,
            longest: 64,
        };
        // The first `ab` in a block of its own, far from the `Y`.
        let original = format!("ab{}Yb", "|".repeat(200));
        let err = run_with(&original, &reqs, plan).expect_err("`ab` occurs twice");
        assert_eq!(
            (err.index, err.error.code),
            (1, crate::error::Code::Ambiguous)
        );
    }

    #[test]
    fn the_plan_indexes_what_saves_scans() {
        let mb10 = 10 << 20;
        // A few edits: copying the text per edit is cheaper than the index, and one block
        // holds the whole text.
        assert_eq!(
            Plan::new(mb10, &edits(&[25, 25, 25])),
            Plan {
                block: mb10,
                longest: 0
            }
        );
        // A thousand: every needle indexed, blocks of 4 KiB.
        assert_eq!(
            Plan::new(mb10, &edits(&[25; 1000])),
            Plan {
                block: 4096,
                longest: 25
            }
        );
        // One needle of 100 KB among them would make every splice scan 200 KB around it: that
        // one edit copies the text instead.
        let mut lens = vec![25; 999];
        lens.push(100_000);
        assert_eq!(Plan::new(mb10, &edits(&lens)).longest, 25);
        // Small texts index everything, in blocks of a few bytes.
        assert_eq!(
            Plan::new(1000, &edits(&[3, 70_000])),
            Plan {
                block: 8,
                longest: 70_000
            }
        );
    }
}
