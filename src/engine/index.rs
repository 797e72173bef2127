//! Where the needles of a MultiEdit may be: for each distinct `old_string`, the blocks of the
//! current text in which an occurrence of it may start — so that an edit searches a few
//! blocks instead of the whole text, and the file is scanned once for all the edits together.
//!
//! One Aho-Corasick pass over the original finds every occurrence of every needle, overlapping
//! ones included (a later edit may break the hit that hid one). After that, text changes only
//! where an edit puts its text, and an occurrence that did not exist before must overlap such a
//! place, so each splice is followed by a pass over the text it put in and `context` bytes on
//! either side (`context` is the longest needle less one byte). Together these keep the
//! invariant the search relies on: every occurrence of a needle starts in a block listed for it
//! (or in a block one listed was cut into). A listed block may hold nothing any more; a search
//! that finds nothing in it drops it.
//!
//! The search gives the hits MATCH-1 defines: leftmost first, each next one starting at or after
//! the end of the one before — the hits of `memmem::find_iter` on the whole text.

use super::blocks::{BlockId, Blocks, Pos};
use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem;

/// The blocks that may hold each needle, and the automaton that finds them all.
pub(super) struct Index<'e> {
    automaton: AhoCorasick,
    needles: Vec<&'e str>,
    blocks_of: Vec<Vec<BlockId>>,
    context: usize,
    /// Matches the automaton may still report before the index gives up (see [`Index::new`]).
    budget: usize,
}

impl<'e> Index<'e> {
    /// The index of `needles` (distinct, none empty) over `original`, cut into `blocks`.
    ///
    /// `budget` bounds the matches reported in all, here and by every later
    /// [`Index::after_splice`]: needles that overlap themselves or each other in a text made of
    /// them (`aaaa` in a run of `a`) have far more occurrences than hits. `None` when the
    /// automaton cannot be built or the budget runs out; the caller then searches the whole
    /// text instead, which gives the same hits.
    pub(super) fn new(
        original: &str,
        needles: Vec<&'e str>,
        blocks: &Blocks<'_>,
        budget: usize,
    ) -> Option<Index<'e>> {
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(&needles)
            .ok()?;
        let context = needles.iter().map(|n| n.len()).max().unwrap_or(1) - 1;
        let mut index = Index {
            automaton,
            blocks_of: vec![Vec::new(); needles.len()],
            needles,
            context,
            budget,
        };
        for m in index.automaton.find_overlapping_iter(original.as_bytes()) {
            index.budget = index.budget.checked_sub(1)?;
            let block = blocks.first_block_of(m.start());
            let list = &mut index.blocks_of[m.pattern().as_usize()];
            // Matches of one needle come in order of their ends, so of their starts too.
            if list.last() != Some(&block) {
                list.push(block);
            }
        }
        Some(index)
    }

    /// Every hit of needle `id` in the current text, as MATCH-1 counts them: start and end.
    pub(super) fn find(&mut self, blocks: &Blocks<'_>, id: usize) -> Vec<(Pos, Pos)> {
        let needle = self.needles[id].as_bytes();
        let finder = memmem::Finder::new(needle);
        let mut listed = Vec::new();
        for &b in &self.blocks_of[id] {
            blocks.descendants(b, &mut listed);
        }
        let mut ranks: Vec<usize> = listed.iter().map(|&b| blocks.rank_of(b)).collect();
        ranks.sort_unstable();
        ranks.dedup();
        let mut hits = Vec::new();
        let mut kept = Vec::with_capacity(ranks.len());
        let mut cursor = blocks.start();
        let mut buf = Vec::new();
        for rank in ranks {
            let len = blocks.len_at(rank);
            let from = match rank.cmp(&cursor.rank) {
                // Whatever starts in it starts before the end of a hit already taken.
                std::cmp::Ordering::Less => {
                    kept.push(rank);
                    continue;
                }
                std::cmp::Ordering::Equal => cursor.off,
                std::cmp::Ordering::Greater => 0,
            };
            if from >= len {
                if len > 0 {
                    kept.push(rank);
                }
                continue;
            }
            buf.clear();
            blocks.block_bytes(rank, from, len, &mut buf);
            let own = buf.len();
            blocks.copy_after(rank, needle.len() - 1, &mut buf);
            let mut found = false;
            for at in finder.find_iter(&buf) {
                if at >= own {
                    break;
                }
                found = true;
                let start = Pos {
                    rank,
                    off: from + at,
                };
                let end = blocks.forward(start, needle.len());
                hits.push((start, end));
                cursor = end;
            }
            // A search from the middle of the block says nothing of what starts before it.
            if found || from > 0 {
                kept.push(rank);
            }
        }
        self.blocks_of[id] = kept.into_iter().map(|r| blocks.id(r)).collect();
        hits
    }

    /// Lists the blocks where a needle now starts that overlaps text a splice put in: each
    /// `(start, length)` from [`Blocks::splice`], before the blocks are rebalanced. An empty
    /// text is a place where text was taken out, which a needle overlaps by spanning it.
    /// `false` when the budget ran out: the index no longer knows every occurrence.
    pub(super) fn after_splice(&mut self, blocks: &Blocks<'_>, put: &[(Pos, usize)]) -> bool {
        let mut buf = Vec::new();
        let mut starts = Vec::new();
        for &(at, len) in put {
            let (from, before) = blocks.back_clamped(at, self.context);
            let (end, _) = blocks.forward_clamped(at, len);
            let (to, _) = blocks.forward_clamped(end, self.context);
            buf.clear();
            starts.clear();
            blocks.copy(from, to, &mut buf, Some(&mut starts));
            let (a, b) = (before, before + len);
            for m in self.automaton.find_overlapping_iter(&buf) {
                let Some(left) = self.budget.checked_sub(1) else {
                    return false;
                };
                self.budget = left;
                let (s, e) = (m.start(), m.end());
                let overlaps = if b > a {
                    s < b && e > a
                } else {
                    s < a && e > a
                };
                if !overlaps {
                    continue;
                }
                let i = starts.partition_point(|&(o, _)| o <= s).saturating_sub(1);
                let Some(&(_, rank)) = starts.get(i) else {
                    continue;
                };
                let block = blocks.id(rank);
                let list = &mut self.blocks_of[m.pattern().as_usize()];
                if list.last() != Some(&block) {
                    list.push(block);
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_1_needles_that_overlap_without_end_exhaust_the_budget() {
        // `a`, `aa`, … `a`×50 in a run of 1,000 `a`: about 50,000 overlapping matches. Within a
        // budget the index lists every block; past it there is no index (the caller searches the
        // whole text instead).
        let text = "a".repeat(1000);
        let needles: Vec<String> = (1..=50).map(|n| "a".repeat(n)).collect();
        let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
        let blocks = Blocks::new(&text, 100);
        assert!(Index::new(&text, needles.clone(), &blocks, 10_000).is_none());
        let mut index = Index::new(&text, needles, &blocks, 100_000).expect("within budget");
        assert_eq!(index.find(&blocks, 49).len(), 20);
        assert_eq!(index.find(&blocks, 0).len(), 1000);
    }
}
