//! How many characters two texts have in common, in order — the length of their longest common
//! subsequence — counted with a fixed amount of work, so that a `not_found` hint (MATCH-6) is a
//! function of its inputs alone (D33).
//!
//! The count is what a minimal diff keeps: `similar`'s ratio is twice it over the characters of
//! both. It is found by the greedy forward search of Myers' O((N+M)·D) algorithm, which needs
//! only the edit distance D (insertions and deletions), never the edit script: N + M - D
//! characters take part in no edit, and half of them are each side's common ones. The search
//! counts its work — one unit per diagonal visited and one per character its snakes step over
//! — and ends in one of three ways:
//!
//! - it reaches the end: the count is exact;
//! - D grows past the distance at which the count would fall below the least that matters to
//!   the caller: the count is known to be too small, which is as exact as the caller needs;
//! - the work runs out first ([`WORK`] units): the count is estimated from whole lines instead,
//!   by [`lower_bound_by_lines`], and is then a lower bound, never more than the truth.
//!
//! Nothing here looks at a clock: the same texts give the same answer on any machine, under
//! any load.

use std::collections::HashMap;

/// Work units one stage of a comparison may spend: the character search, then each of the two
/// line estimates of [`lower_bound_by_lines`]. A unit costs a few nanoseconds in a release
/// build, so a comparison costs at most a few milliseconds plus passes over both texts. The
/// search finishes within it whenever D stays below about 1,000 (D²/2 diagonal steps), which
/// covers an old string with a few typos, whatever its length.
pub(super) const WORK: u64 = 500_000;

/// The characters two texts have in common, as far as a bounded comparison establishes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Common {
    /// Exactly this many: the longest common subsequence.
    Exact(usize),
    /// Fewer than the least the caller asked about; how many was not worked out.
    Fewer,
    /// At least this many: the work ran out and whole lines gave this lower bound.
    AtLeast(usize),
}

/// How the greedy search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Distance {
    /// The edit distance (insertions plus deletions).
    Exact(usize),
    /// More than the limit it was given.
    Beyond,
    /// The work ran out before either was known.
    OutOfWork,
}

/// The common characters of `a` and `b`, when there are at least `least`; [`Common::Fewer`]
/// when there are provably fewer. Each stage spends at most [`WORK`] units, plus linear passes
/// over both texts.
pub(super) fn common_chars(a: &[char], b: &[char], least: usize) -> Common {
    let total = a.len() + b.len();
    if least > a.len().min(b.len()) {
        return Common::Fewer;
    }
    // m common characters leave D = N + M - 2m edits: at least `least` of them means D at most
    // N + M - 2·least.
    let limit = total - 2 * least;
    let mut work = WORK;
    match distance(a, b, limit, &mut work) {
        Distance::Exact(d) => Common::Exact((total - d) / 2),
        Distance::Beyond => Common::Fewer,
        Distance::OutOfWork => Common::AtLeast(lower_bound_by_lines(a, b)),
    }
}

/// Myers' greedy forward search for the edit distance of `a` and `b`, given up past `limit` or
/// once `work` is spent (it is decremented by the units used).
///
/// `v[k + offset]` is the furthest `x` reached on diagonal `k = x - y` with the current number
/// of edits. Points beyond the ends of either text may be visited, as in the original
/// algorithm; they cost at least as many edits as the end itself, so the first round to reach
/// `(N, M)` or beyond is the distance.
fn distance(a: &[char], b: &[char], limit: usize, work: &mut u64) -> Distance {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > limit {
        return Distance::Beyond;
    }
    // Round d visits d + 1 diagonals, so the work reaches no round past √(2·work).
    let reachable = usize::try_from((2 * *work).isqrt() + 1).unwrap_or(usize::MAX);
    let rounds = limit.min(reachable);
    let offset = rounds as isize + 1;
    let mut v = vec![0usize; 2 * rounds + 3];
    for d in 0..=rounds as isize {
        let mut k = -d;
        while k <= d {
            let at = (k + offset) as usize;
            let (left, right) = (v[at - 1], v[at + 1]);
            let mut x = if k == -d || (k != d && left < right) {
                right
            } else {
                left + 1
            };
            // Never negative: every point is reached from (0, 0) by steps right and down.
            let mut y = (x as isize - k) as usize;
            let from = x;
            while x < n && y < m && a[x] == b[y] {
                x += 1;
                y += 1;
            }
            v[at] = x;
            if x >= n && y >= m {
                return Distance::Exact(d as usize);
            }
            let spent = 1 + (x - from) as u64;
            if *work <= spent {
                *work = 0;
                return Distance::OutOfWork;
            }
            *work -= spent;
            k += 2;
        }
    }
    if rounds < limit {
        Distance::OutOfWork
    } else {
        Distance::Beyond
    }
}

/// A lower bound on the common characters of `a` and `b`, from their lines (split at `\n`),
/// each of two estimates with [`WORK`] units of its own; the larger is returned.
///
/// - **Equal lines, wherever they are.** The common subsequence of whole equal lines that keeps
///   the most characters, by dynamic programming over pairs of lines (one unit per pair; not
///   tried when there are more pairs than units). Its lines' characters are common, and so is
///   the line break after each of them but the last.
/// - **Line by line.** Line `i` of `a` against line `i` of `b` by the character search, in
///   order, while the units last, and the line breaks between them. A pair the units do not
///   reach counts none. Not tried when both texts are one line: that is the search that
///   already ran out.
///
/// Both are common subsequences of the two texts, so neither overstates; the first finds a
/// region whose lines moved, the second one whose every line differs a little.
pub(super) fn lower_bound_by_lines(a: &[char], b: &[char]) -> usize {
    let la: Vec<&[char]> = a.split(|c| *c == '\n').collect();
    let lb: Vec<&[char]> = b.split(|c| *c == '\n').collect();
    // One line each: line by line would be the character search again.
    let paired = if la.len() == 1 && lb.len() == 1 {
        0
    } else {
        line_by_line(&la, &lb)
    };
    equal_lines(&la, &lb).max(paired)
}

/// The most characters a common subsequence of equal whole lines keeps, plus the line breaks
/// between its lines; 0 when the pairs of lines outnumber [`WORK`].
fn equal_lines<'a>(la: &[&'a [char]], lb: &[&'a [char]]) -> usize {
    if (la.len() as u64).saturating_mul(lb.len() as u64) > WORK {
        return 0;
    }
    let mut ids: HashMap<&[char], usize> = HashMap::new();
    let mut id = |line: &'a [char]| {
        let next = ids.len();
        *ids.entry(line).or_insert(next)
    };
    let ia: Vec<usize> = la.iter().map(|l| id(l)).collect();
    let ib: Vec<usize> = lb.iter().map(|l| id(l)).collect();
    // Each matched line weighs its characters and one line break; the last break is taken off
    // at the end.
    let mut prev = vec![0usize; lb.len() + 1];
    let mut row = vec![0usize; lb.len() + 1];
    for (i, line) in la.iter().enumerate() {
        for j in 0..lb.len() {
            row[j + 1] = if ia[i] == ib[j] {
                prev[j] + line.len() + 1
            } else {
                row[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[lb.len()].saturating_sub(1)
}

/// The common characters of line `i` of one text and line `i` of the other, summed over the
/// pairs the work reaches, plus the line breaks between the pairs.
fn line_by_line(la: &[&[char]], lb: &[&[char]]) -> usize {
    let mut work = WORK;
    let mut common = 0;
    for (i, (x, y)) in la.iter().zip(lb).enumerate() {
        if work == 0 {
            break;
        }
        if i > 0 {
            common += 1;
        }
        if let Distance::Exact(d) = distance(x, y, x.len() + y.len(), &mut work) {
            common += (x.len() + y.len() - d) / 2;
        }
    }
    common
}

#[cfg(test)]
#[path = "lcs_tests.rs"]
mod tests;
