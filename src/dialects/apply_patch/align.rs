//! The lines a chunk changes (APPLY-9): its old and new lines aligned by a longest common
//! subsequence, so that every line both share is kept as the file has it and only the runs
//! between them are rewritten.

use std::ops::Range;

/// One changed run of a chunk: `old` lines (indices into the chunk's old lines) become `new`.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Run {
    /// The chunk's old lines the run replaces.
    pub(super) old: Range<usize>,
    /// The chunk's new lines that take their place.
    pub(super) new: Range<usize>,
}

/// Largest old × new middle part aligned line by line; larger ones become a single run.
const ALIGN_CELLS: usize = 1 << 20;

/// The runs that differ between `old` and `new`: lines they share (a longest common
/// subsequence, leading and trailing ones first) are kept as the file has them (APPLY-9).
pub(super) fn align(old: &[String], new: &[String]) -> Vec<Run> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let a = &old[prefix..old.len() - suffix];
    let b = &new[prefix..new.len() - suffix];
    if a.is_empty() && b.is_empty() {
        return Vec::new();
    }
    let whole = || {
        vec![Run {
            old: prefix..prefix + a.len(),
            new: prefix..prefix + b.len(),
        }]
    };
    if a.is_empty() || b.is_empty() || (a.len() + 1).saturating_mul(b.len() + 1) > ALIGN_CELLS {
        return whole();
    }
    // lcs[i * w + j]: length of a longest common subsequence of a[i..] and b[j..].
    let w = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let mut runs = Vec::new();
    let (mut i, mut j) = (0, 0);
    let (mut run_i, mut run_j) = (0, 0);
    let close = |i: usize, j: usize, run_i: usize, run_j: usize, runs: &mut Vec<Run>| {
        if i > run_i || j > run_j {
            runs.push(Run {
                old: prefix + run_i..prefix + i,
                new: prefix + run_j..prefix + j,
            });
        }
    };
    while i < a.len() || j < b.len() {
        if i < a.len()
            && j < b.len()
            && a[i] == b[j]
            && lcs[i * w + j] == lcs[(i + 1) * w + j + 1] + 1
        {
            close(i, j, run_i, run_j, &mut runs);
            i += 1;
            j += 1;
            (run_i, run_j) = (i, j);
        } else if j == b.len() || (i < a.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            i += 1;
        } else {
            j += 1;
        }
    }
    close(i, j, run_i, run_j, &mut runs);
    runs
}
