//! The depth gate: the committed seeds (`fuzz/seeds/<target>/`, written by `scripts/fuzz-seeds`)
//! must bring each target's inputs to its real check as often as `depth::GOALS` says — half of
//! `edit_vs_model` inputs compare bytes with the model (EDIT-2, MATCH-1..5, TEXT-1..6), half of
//! `atomic_write` runs have a clean call that succeeds (DISK-1/5), and every REPAIR-2/3/4/6 and
//! MATCH-1/2 branch of `repair` is taken by at least 1 % of its inputs. A framing change that
//! makes the seeds shallow, or a seed that breaks an invariant, fails here, on stable.

use editref_fuzzing::depth::{self, GOALS};
use std::path::{Path, PathBuf};

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../seeds")
}

#[test]
fn committed_seeds_reach_every_depth_goal() {
    let mut problems = Vec::new();
    for goal in GOALS {
        let (tally, _) = depth::replay_dir(goal.target, &seeds_dir().join(goal.target));
        assert!(
            tally.inputs >= 100,
            "fuzz/seeds/{} holds {} inputs; regenerate with scripts/fuzz-seeds",
            goal.target,
            tally.inputs
        );
        problems.extend(tally.shortfalls(&goal));
        problems.extend(tally.violations.iter().cloned());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_target_has_committed_seeds_and_they_pass() {
    for t in editref_fuzzing::TARGETS {
        let (tally, _) = depth::replay_dir(t, &seeds_dir().join(t));
        assert!(tally.inputs > 0, "fuzz/seeds/{t} is empty");
        assert!(
            tally.violations.is_empty(),
            "{t}: {}",
            tally.violations.join("\n")
        );
    }
}

/// The gate itself can fail: a corpus of a file that is binary (TEXT-7) — raw form, one NUL
/// byte — reaches no byte comparison and no successful call, and a corpus of one repair input
/// takes one branch only.
#[test]
fn shallow_corpora_miss_the_goals() {
    let binary_edit: &[u8] = &[0, 1, 0];
    let binary_atomic: &[u8] = &[0, 0, 0, 0, 0, 0, 1, 0];
    for goal in GOALS {
        let input = match goal.target {
            "edit_vs_model" => binary_edit,
            "atomic_write" => binary_atomic,
            _ => b"",
        };
        let mut tally = depth::Tally::default();
        for _ in 0..100 {
            tally.add(editref_fuzzing::reach(goal.target, input).expect("a target"));
        }
        assert!(tally.violations.is_empty(), "{:?}", tally.violations);
        assert!(
            !tally.shortfalls(&goal).is_empty(),
            "{}: {:?} meets the goal",
            goal.target,
            tally.places
        );
    }
}
