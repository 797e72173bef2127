//! Where each input of a target ends, and how deep a corpus reaches.
//!
//! A fuzz target that passes on every input proves little if most inputs stop before the check
//! that matters (a refused file, an error code compared instead of bytes). So each target's check
//! reports an [`Ending`]: a short name of the place the input stopped and whether that place is
//! the target's real check. [`Tally`] counts the endings of a corpus, and [`GOALS`] says which
//! share of inputs each target must bring to its real check — the test `tests/depth.rs` holds the
//! committed seeds to it and `scripts/fuzz-depth` prints the table for any corpus.

use std::collections::BTreeMap;

/// Where one input stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ending {
    /// A short, stable name of the place (`bytes_compared`, `error:not_found`, …).
    pub place: String,
    /// Whether the input reached the check the target exists for.
    pub deep: bool,
}

impl Ending {
    /// An ending at the target's real check.
    pub fn deep(place: impl Into<String>) -> Ending {
        Ending {
            place: place.into(),
            deep: true,
        }
    }

    /// An ending before the target's real check.
    pub fn shallow(place: impl Into<String>) -> Ending {
        Ending {
            place: place.into(),
            deep: false,
        }
    }
}

/// The depth a target's inputs must reach: a share of all inputs at the real check, and a share
/// for each named place (every branch that must be exercised).
#[derive(Debug, Clone, Copy)]
pub struct Goal {
    /// The target.
    pub target: &'static str,
    /// Least percentage of inputs that must end deep.
    pub deep_percent: f64,
    /// Places each of which at least `each_percent` of the inputs must end in.
    pub each: &'static [&'static str],
    /// Least percentage for every place in `each`.
    pub each_percent: f64,
}

/// The depth goals of issue 18: half of `edit_vs_model` inputs compare bytes with the model,
/// half of `atomic_write` runs have a clean call that succeeds, and every REPAIR and MATCH branch
/// of `repair` is reached by at least 1 % of inputs.
pub const GOALS: [Goal; 3] = [
    Goal {
        target: "edit_vs_model",
        deep_percent: 50.0,
        each: &[],
        each_percent: 0.0,
    },
    Goal {
        target: "atomic_write",
        deep_percent: 50.0,
        each: &[],
        each_percent: 0.0,
    },
    Goal {
        target: "repair",
        deep_percent: 0.0,
        each: &REPAIR_BRANCHES,
        each_percent: 1.0,
    },
];

/// The places of `RepairEnd` (the `repair` target's outcome) that every corpus must reach: the
/// depth goal of `repair`.
pub const REPAIR_BRANCHES: [&str; 8] = [
    "occurs_exactly",
    "occurs_folded",
    "desanitized",
    "prefix_stripped",
    "desanitized_and_stripped",
    "escapes_decoded",
    "escaped_file_matched",
    "not_repaired",
];

/// The goal of a target, if it has one.
pub fn goal(target: &str) -> Option<&'static Goal> {
    GOALS.iter().find(|g| g.target == target)
}

/// The endings of one target's corpus.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Inputs replayed.
    pub inputs: usize,
    /// Inputs that ended deep.
    pub deep: usize,
    /// Inputs per place.
    pub places: BTreeMap<String, usize>,
    /// Inputs whose check failed (an invariant violation), with the description.
    pub violations: Vec<String>,
}

impl Tally {
    /// Counts one input's result.
    pub fn add(&mut self, result: Result<Ending, String>) {
        self.inputs += 1;
        match result {
            Ok(e) => {
                if e.deep {
                    self.deep += 1;
                }
                *self.places.entry(e.place).or_default() += 1;
            }
            Err(v) => {
                *self.places.entry("violation".into()).or_default() += 1;
                self.violations.push(v);
            }
        }
    }

    /// Percentage of inputs that ended deep (0 for no inputs).
    pub fn deep_percent(&self) -> f64 {
        self.percent(self.deep)
    }

    /// Percentage of the inputs that `n` is.
    pub fn percent(&self, n: usize) -> f64 {
        if self.inputs == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.inputs as f64
        }
    }

    /// The shortfalls against `goal`, one line each; empty when the goal is met.
    pub fn shortfalls(&self, goal: &Goal) -> Vec<String> {
        let mut out = Vec::new();
        if self.deep_percent() < goal.deep_percent {
            out.push(format!(
                "{}: {:.1} % of {} inputs reach the real check, goal {} %",
                goal.target,
                self.deep_percent(),
                self.inputs,
                goal.deep_percent
            ));
        }
        for place in goal.each {
            let n = self.places.get(*place).copied().unwrap_or(0);
            if self.percent(n) < goal.each_percent {
                out.push(format!(
                    "{}: {:.1} % of {} inputs end in {place}, goal {} %",
                    goal.target,
                    self.percent(n),
                    self.inputs,
                    goal.each_percent
                ));
            }
        }
        out
    }

    /// Where the inputs that did not end deep stopped, most frequent first: `name n, …`.
    pub fn shallow_places(&self, deep_places: &[String]) -> String {
        let mut rest: Vec<(&String, &usize)> = self
            .places
            .iter()
            .filter(|(p, _)| !deep_places.contains(p))
            .collect();
        rest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        rest.iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Replays every file of `dir` through `target` and tallies where each ended. Deep places are
/// returned too, so that the table can list only where the rest stopped.
pub fn replay_dir(target: &str, dir: &std::path::Path) -> (Tally, Vec<String>) {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.is_file()
            && !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    files.sort();
    let mut tally = Tally::default();
    let mut deep_places = Vec::new();
    for path in files {
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let result = match crate::reach(target, &data) {
            Some(r) => r,
            None => Err(format!("unknown target {target}")),
        };
        if let Ok(e) = &result {
            if e.deep && !deep_places.contains(&e.place) {
                deep_places.push(e.place.clone());
            }
        }
        tally.add(result.map_err(|v| format!("{}: {v}", path.display())));
    }
    (tally, deep_places)
}

/// `n` deterministic pseudo-random inputs of 0 to `max_len` bytes (xorshift64*, fixed seed):
/// the same inputs on every machine, for measuring how much of a framing random bytes reach.
pub fn random_inputs(n: usize, max_len: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    (0..n)
        .map(|_| {
            let len = (next() % (max_len as u64 + 1)) as usize;
            (0..len).map(|_| (next() >> 56) as u8).collect()
        })
        .collect()
}
