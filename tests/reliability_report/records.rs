//! The figures the reliability suites recorded, one JSON line per test, read back for the
//! document; a figure asked for and never recorded is remembered, so the render can fail.

use crate::reliability_support as rs;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use crate::{thousands, EXPECTED};

pub(crate) struct Records {
    pub(crate) by_test: BTreeMap<(String, String), Value>,
    /// Figures the document asked for that no test recorded (`suite/test.key`): shown as `?`,
    /// and the render fails, so the document never states a number nobody measured.
    pub(crate) absent: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Records {
    pub(crate) fn load() -> Records {
        let mut by_test = BTreeMap::new();
        let dir = rs::figures_dir();
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("no figures in {}: {e}", dir.display()));
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name == "run.json" {
                continue;
            }
            let text = std::fs::read_to_string(e.path()).expect("read figures");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).expect("a figures line");
                let key = (
                    v["suite"].as_str().unwrap_or("").to_string(),
                    v["test"].as_str().unwrap_or("").to_string(),
                );
                by_test.insert(key, v);
            }
        }
        Records {
            by_test,
            absent: Default::default(),
        }
    }

    pub(crate) fn figures(&self, suite: &str, test: &str) -> Map<String, Value> {
        self.by_test
            .get(&(suite.to_string(), test.to_string()))
            .and_then(|v| v["figures"].as_object().cloned())
            .unwrap_or_default()
    }

    /// A recorded figure; an absent one counts as 0 in sums and is remembered as absent.
    pub(crate) fn n(&self, suite: &str, test: &str, key: &str) -> u64 {
        self.get(suite, test, key).unwrap_or(0)
    }

    pub(crate) fn get(&self, suite: &str, test: &str, key: &str) -> Option<u64> {
        let v = self.figures(suite, test).get(key).and_then(Value::as_u64);
        if v.is_none() {
            self.absent
                .borrow_mut()
                .insert(format!("{suite}/{test}.{key}"));
        }
        v
    }

    /// A recorded figure for a table cell (thousands separated), `?` when none was recorded.
    pub(crate) fn cell(&self, suite: &str, test: &str, key: &str) -> String {
        self.get(suite, test, key)
            .map_or_else(|| "?".to_string(), thousands)
    }

    pub(crate) fn sum(&self, suite: &str, key: &str) -> u64 {
        self.by_test
            .iter()
            .filter(|((s, _), _)| s == suite)
            .filter_map(|(_, v)| v["figures"][key].as_u64())
            .sum()
    }

    /// The largest value of a fractional figure over the tests of `suite` (0 when none).
    pub(crate) fn max_f64(&self, suite: &str, key: &str) -> f64 {
        self.by_test
            .iter()
            .filter(|((s, _), _)| s == suite)
            .filter_map(|(_, v)| v["figures"][key].as_f64())
            .fold(0.0_f64, f64::max)
    }

    pub(crate) fn missing(&self) -> Vec<String> {
        EXPECTED
            .iter()
            .flat_map(|(suite, tests)| tests.iter().map(move |t| (*suite, *t)))
            .filter(|(s, t)| !self.by_test.contains_key(&(s.to_string(), t.to_string())))
            .map(|(s, t)| format!("{s}/{t}"))
            .collect()
    }

    pub(crate) fn lost_or_corrupted(&self) -> u64 {
        self.by_test
            .values()
            .map(|v| {
                [
                    "lost",
                    "corrupted",
                    "duplicated",
                    "landed_but_reported_failed",
                ]
                .iter()
                .filter_map(|k| v["figures"][*k].as_u64())
                .sum::<u64>()
            })
            .sum()
    }
}
