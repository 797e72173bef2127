//! The hint of a `not_found` error (MATCH-6): the regions of the file most like the old string,
//! best first, each with its line range, its text and how similar it is.
//!
//! A region is a window of as many lines as the old string has. Windows are compared with the
//! old string after the same normalisation on both sides — quotes folded, each line's
//! whitespace runs collapsed to one space and its ends trimmed — by twice the characters they
//! have in common, in order, over the characters of both (the ratio of a minimal character
//! diff). A one-character typo or a renamed word thus scores high, an unrelated line low.
//!
//! Comparing every window character by character would be quadratic, so the search is in two
//! passes, both bounded by the sizes of the inputs, never by a clock: the hint is a function of
//! the file's text and the old string alone (D33). A linear pre-pass scores every window by how
//! many of its character pairs (whitespace skipped) occur in the old string — a table lookup
//! per byte — and keeps the best few windows; only those are compared for real, each with a
//! fixed amount of work ([`super::lcs`]): exactly when it suffices, else by a lower bound from
//! whole lines. Old strings too long for this, or that find nothing similar enough, fall back
//! to the line votes of [`super::votes`], which find whitespace- and quote-insensitive equal
//! lines in one pass.

use super::lcs::{common_chars, Common};
use super::votes::{closest_by_votes, is_ascii_space, split_lines};
use crate::text::quotes;
use std::collections::BinaryHeap;

/// One region of the file close to a string that was not found: a line range and its text, so
/// that the model can copy the exact text on its next try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// First line of the region (1-based).
    pub start_line: usize,
    /// Last line of the region (1-based, inclusive).
    pub end_line: usize,
    /// The region's text as it is in the file's LF view.
    pub text: String,
    /// How similar the region is to the old string, in percent (100: equal but for whitespace
    /// and quotes).
    pub similarity: u8,
}

/// Longest hint text returned, in bytes; longer regions are cut at a line boundary.
const HINT_MAX: usize = 4000;
/// Old strings longer than this (in bytes) are placed by line votes only.
const SIMILARITY_MAX_NEEDLE: usize = 16 * 1024;
/// Windows the pre-pass keeps for the real comparison.
const CANDIDATES: usize = 32;
/// The least similarity (percent) a region needs to be offered.
const MIN_SIMILARITY: u8 = 50;

/// The closest region to `needle` in `haystack`, if any is close enough.
pub fn closest_region(haystack: &str, needle: &str) -> Option<Hint> {
    closest_regions(haystack, needle, 1).into_iter().next()
}

/// Up to `max` regions of `haystack` close to `needle`, best first, none overlapping another.
pub fn closest_regions(haystack: &str, needle: &str, max: usize) -> Vec<Hint> {
    if max == 0 {
        return Vec::new();
    }
    let mut found = if needle.len() <= SIMILARITY_MAX_NEEDLE {
        by_similarity(haystack, needle, max)
    } else {
        Vec::new()
    };
    if found.is_empty() {
        if let Some((start, votes)) = closest_by_votes(haystack, needle) {
            let height = height(needle);
            let similarity = (votes * 100 / height).min(100) as u8;
            found.push(region(haystack, start, height, similarity));
        }
    }
    found
}

/// The number of lines of `needle`, a final line break not starting another.
fn height(needle: &str) -> usize {
    let trimmed = needle.strip_suffix('\n').unwrap_or(needle);
    trimmed.split('\n').count().max(1)
}

/// The window `start .. start + height` (0-based) of `haystack` as a hint, its text cut at
/// [`HINT_MAX`] on a line boundary.
fn region(haystack: &str, start: usize, height: usize, similarity: u8) -> Hint {
    let mut text = String::new();
    let mut last = start;
    for (i, line) in split_lines(haystack).skip(start).take(height).enumerate() {
        if !text.is_empty() && text.len() + line.len() + 1 > HINT_MAX {
            break;
        }
        if i > 0 {
            text.push('\n');
        }
        text.push_str(line);
        last = start + i;
    }
    Hint {
        start_line: start + 1,
        end_line: last + 1,
        text,
        similarity,
    }
}

/// `lines` as compared, joined by line breaks: quotes folded; in each line, whitespace runs made
/// one space and the ends trimmed. `None` once it grows past `cap` characters: a window that
/// much longer than the old string cannot be similar enough, and is not built whole.
fn normalise<'s>(lines: impl Iterator<Item = &'s str>, cap: usize) -> Option<Vec<char>> {
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            out.extend(w.chars().map(quotes::fold_char));
            if words.peek().is_some() {
                out.push(' ');
            }
            if out.len() > cap {
                return None;
            }
        }
        if out.len() > cap {
            return None;
        }
    }
    Some(out)
}

/// The similarity in percent of two normalised texts with `common` characters in common,
/// twice it over the characters of both, rounded half up in integers (so that no platform's
/// floating point can move a region across a boundary).
fn percent(common: usize, total: usize) -> u8 {
    if total == 0 {
        return 100;
    }
    let (c, t) = (common as u64, total as u64);
    ((400 * c + t) / (2 * t)).min(100) as u8
}

/// The fewest common characters that make two texts of `total` characters together
/// [`MIN_SIMILARITY`] similar: [`percent`] is at least `p` exactly when `400·c ≥ (2p - 1)·t`.
fn least_common(total: usize) -> usize {
    let need = (2 * u64::from(MIN_SIMILARITY) - 1) * total as u64;
    need.div_ceil(400) as usize
}

/// The most characters a normalised window can have and still be [`MIN_SIMILARITY`] similar to
/// an old string of `wanted` characters: past it, even all of the old string in common would
/// not be enough.
fn window_cap(wanted: usize) -> usize {
    let p = u64::from(MIN_SIMILARITY);
    ((401 - 2 * p) * wanted as u64 / (2 * p - 1)) as usize
}

/// The character pairs of a text (bytes, whitespace skipped, within a line) as a 64 Ki-bit set.
struct Pairs {
    bits: Vec<u64>,
    count: usize,
}

impl Pairs {
    fn of(s: &str) -> Pairs {
        let mut p = Pairs {
            bits: vec![0; 1024],
            count: 0,
        };
        for line in s.split('\n') {
            let mut prev: Option<u8> = None;
            for b in line.bytes().filter(|b| !is_ascii_space(*b)) {
                if let Some(a) = prev {
                    let i = usize::from(a) << 8 | usize::from(b);
                    p.bits[i >> 6] |= 1 << (i & 63);
                    p.count += 1;
                }
                prev = Some(b);
            }
        }
        p
    }

    /// For each line of `haystack` (split at LF, as [`split_lines`] does): (pairs of the line
    /// found in the set, pairs of the line). One tight pass over the bytes, long lines
    /// included: skipping them would save no pass, and scoring a line unread (as all misses,
    /// say) would sink a window whose long line is blank.
    fn per_line<'h>(&'h self, haystack: &'h str) -> impl Iterator<Item = (u32, u32)> + 'h {
        let bytes = haystack.as_bytes();
        let mut pos = 0;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
            let line = &bytes[pos..end];
            done = end == bytes.len();
            pos = end + 1;
            let (mut hit, mut all) = (0u32, 0u32);
            let mut prev: Option<u8> = None;
            for &b in line {
                if is_ascii_space(b) {
                    continue;
                }
                if let Some(a) = prev {
                    let i = usize::from(a) << 8 | usize::from(b);
                    all = all.saturating_add(1);
                    hit = hit.saturating_add((self.bits[i >> 6] >> (i & 63) & 1) as u32);
                }
                prev = Some(b);
            }
            Some((hit, all))
        })
    }
}

/// A window kept by the pre-pass: its score (ordered so the heap's top is the worst kept).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Kept {
    /// Negated Dice score in millionths, then the start line: the max-heap's top is the
    /// weakest window (and, among equals, the latest one).
    key: (i64, usize),
}

/// The similarity search: pre-pass over every window, then the real comparison of the best.
fn by_similarity(haystack: &str, needle: &str, max: usize) -> Vec<Hint> {
    let trimmed = needle.strip_suffix('\n').unwrap_or(needle);
    let Some(wanted) = normalise(trimmed.split('\n'), usize::MAX) else {
        return Vec::new();
    };
    if wanted.iter().all(|c| *c == '\n') {
        return Vec::new();
    }
    let height = height(needle);
    let pairs = Pairs::of(&wanted.iter().collect::<String>());
    let mut ring: Vec<(u32, u32)> = vec![(0, 0); height];
    let (mut hit, mut all) = (0u64, 0u64);
    let mut heap: BinaryHeap<Kept> = BinaryHeap::new();
    let mut lines = 0;
    for (n, s) in pairs.per_line(haystack).enumerate() {
        lines = n + 1;
        let old = std::mem::replace(&mut ring[n % height], s);
        hit = hit + u64::from(s.0) - u64::from(old.0);
        all = all + u64::from(s.1) - u64::from(old.1);
        if n + 1 >= height {
            keep(&mut heap, n + 1 - height, hit, all, pairs.count);
        }
    }
    if lines < height {
        keep(&mut heap, 0, hit, all, pairs.count);
    }
    let mut windows: Vec<(usize, Vec<&str>)> =
        heap.into_iter().map(|k| (k.key.1, Vec::new())).collect();
    windows.sort_unstable_by_key(|w| w.0);
    let end = windows.last().map_or(0, |w| w.0 + height);
    for (n, line) in split_lines(haystack).enumerate().take(end) {
        for (start, w) in windows.iter_mut() {
            if *start <= n && n < *start + height {
                w.push(line);
            }
        }
    }
    let cap = window_cap(wanted.len());
    let mut scored: Vec<(u8, usize)> = Vec::new();
    for (start, lines) in &windows {
        let Some(got) = normalise(lines.iter().copied(), cap) else {
            continue;
        };
        let total = got.len() + wanted.len();
        // Exact within the work of `lcs::WORK`, else a lower bound (D33); never a clock.
        let common = match common_chars(&got, &wanted, least_common(total)) {
            Common::Exact(n) | Common::AtLeast(n) => n,
            Common::Fewer => continue,
        };
        let pct = percent(common, total);
        if pct >= MIN_SIMILARITY {
            scored.push((pct, *start));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<Hint> = Vec::new();
    for (pct, start) in scored {
        let overlaps = chosen
            .iter()
            .any(|h| start < h.end_line && h.start_line - 1 < start + height);
        if !overlaps {
            chosen.push(region(haystack, start, height, pct));
            if chosen.len() == max {
                break;
            }
        }
    }
    chosen
}

/// Offers the window starting at `start` to the heap of the [`CANDIDATES`] best, by the Dice
/// coefficient of its character pairs and the old string's — without its factor 2, which
/// changes no order, and the score serves only to order windows.
fn keep(heap: &mut BinaryHeap<Kept>, start: usize, hit: u64, all: u64, wanted: usize) {
    let dice = (hit.min(wanted as u64) * 1_000_000)
        .checked_div(all + wanted as u64)
        .unwrap_or(0) as i64;
    let k = Kept {
        key: (-dice, start),
    };
    if heap.len() < CANDIDATES {
        heap.push(k);
    } else if heap.peek().is_some_and(|worst| k < *worst) {
        heap.pop();
        heap.push(k);
    }
}

#[cfg(test)]
#[path = "hint_tests.rs"]
mod tests;
