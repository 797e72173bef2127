//! MULTI-2 for a long run of edits: which earlier edit first wrote each `old_string`.
//!
//! The rule asks, for every edit, whether its `old_string` (trailing line breaks dropped: the
//! *probe*) is part of the `new_string` of an earlier edit, and names the first such edit.
//! Asking each earlier `new_string` in turn costs the number of edits squared. Here the probes
//! of all edits are known at the start, so each `new_string` is scanned once, when its edit
//! has run, by an automaton over all the probes, and the first edit to contain each probe is
//! noted. An edit later asks for its probe's note. A probe that is not known in advance (one a
//! repair produced) is asked the long way, as are all probes once a scan gave up.

use aho_corasick::{AhoCorasick, MatchKind};

/// The first earlier edit whose `new_string` holds each known probe.
pub(super) struct Conflicts {
    automaton: Option<AhoCorasick>,
    first: Vec<Option<usize>>,
    /// False once a scan gave up: the notes are then incomplete and no longer answer.
    complete: bool,
}

/// An answer about a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// The first earlier edit whose `new_string` holds the probe, if any.
    By(Option<usize>),
    /// Not known here: ask every earlier `new_string`.
    Unknown,
}

impl Conflicts {
    /// Notes for `probes` (distinct, none empty).
    pub(super) fn new(probes: &[&str]) -> Conflicts {
        let automaton = if probes.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(probes)
                .ok()
        };
        Conflicts {
            complete: automaton.is_some() || probes.is_empty(),
            automaton,
            first: vec![None; probes.len()],
        }
    }

    /// Notes what the `new_string` of edit `index` holds (edits are noted in order).
    ///
    /// Overlapping matches are all reported, so probes that overlap each other in a text made
    /// of them (`a`, `aa`, `aaa` in a run of `a`) could report far more matches than the text
    /// has bytes; past a bound proportional to the text the scan gives up.
    pub(super) fn note(&mut self, index: usize, new: &str) {
        let Some(automaton) = &self.automaton else {
            return;
        };
        if !self.complete {
            return;
        }
        let mut budget = 8 * new.len() + 4096;
        for m in automaton.find_overlapping_iter(new.as_bytes()) {
            if budget == 0 {
                self.complete = false;
                return;
            }
            budget -= 1;
            let first = &mut self.first[m.pattern().as_usize()];
            if first.is_none() {
                *first = Some(index);
            }
        }
    }

    /// The first noted edit whose `new_string` holds probe `id`.
    pub(super) fn written(&self, id: usize) -> Written {
        if self.complete {
            Written::By(self.first.get(id).copied().flatten())
        } else {
            Written::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_2_the_first_edit_that_wrote_a_probe_is_named() {
        let mut c = Conflicts::new(&["ab", "b", "zz"]);
        c.note(0, "xbx");
        c.note(1, "abab");
        assert_eq!(c.written(0), Written::By(Some(1)));
        assert_eq!(c.written(1), Written::By(Some(0)));
        assert_eq!(c.written(2), Written::By(None));
    }

    #[test]
    fn multi_2_a_scan_that_gives_up_leaves_every_probe_unknown() {
        // Twenty probes that all match at almost every byte of a run of `a`: more matches than
        // the bound allows, so the notes are incomplete and every answer is "ask the long way".
        let probes: Vec<String> = (1..=20).map(|n| "a".repeat(n)).collect();
        let probes: Vec<&str> = probes.iter().map(String::as_str).collect();
        let mut c = Conflicts::new(&probes);
        c.note(0, &"a".repeat(5000));
        assert_eq!(c.written(0), Written::Unknown);
        assert_eq!(Conflicts::new(&[]).written(0), Written::By(None));
    }
}
