//! TAP 14, for streaming consumers: one line per case, and a YAML diagnostics block for each
//! failure.
//!
//! TAP has its own vocabulary for outcomes that are not plain passes (`# SKIP`, `# TODO`), and
//! its own escaping rules for descriptions; both are decided here, from the report alone.

use super::Report;
use crate::run::Status;
use std::fmt::Write as _;

impl Report {
    /// TAP 14. Skips are `ok … # SKIP`, xfails `not ok … # TODO`; a `differs` case is `ok`
    /// with a diagnostics block saying it differs (TAP has no directive for it, and it is no
    /// failure); failures carry a YAML diagnostics block (written as JSON scalars, which are
    /// valid YAML).
    pub fn tap(&self) -> String {
        let mut t = String::from("TAP version 14\n");
        let _ = writeln!(t, "1..{}", self.cases.len());
        let _ = writeln!(t, "# {}", self.headline().replace('\n', " "));
        let _ = writeln!(
            t,
            "# editref conform {} — {} {} — corpus {}, manifest {} — started {}",
            self.harness.version,
            self.implementation.name,
            self.implementation.version,
            self.corpus.version,
            self.corpus.manifest_sha256,
            self.started
        );
        for (i, c) in self.cases.iter().enumerate() {
            let n = i + 1;
            let desc = c.id.replace('#', "\\#");
            let one_line = |s: &str| s.replace(['\n', '\r'], " ").replace('#', "\\#");
            match c.status {
                Status::Pass => {
                    let _ = writeln!(t, "ok {n} - {desc}");
                }
                Status::Skip => {
                    let _ = writeln!(t, "ok {n} - {desc} # SKIP {}", one_line(&c.reason));
                }
                Status::Xfail => {
                    let _ = writeln!(t, "not ok {n} - {desc} # TODO {}", one_line(&c.reason));
                }
                Status::Differs => {
                    let js = |v: &str| serde_json::to_string(v).unwrap_or_default();
                    let _ = writeln!(t, "ok {n} - {desc}");
                    t.push_str("  ---\n");
                    let _ = writeln!(
                        t,
                        "  message: {}",
                        js(&format!("implementation-defined, differs: {}", c.reason))
                    );
                    t.push_str("  severity: differs\n  ...\n");
                }
                _ => {
                    let _ = writeln!(t, "not ok {n} - {desc}");
                    let js = |v: &str| serde_json::to_string(v).unwrap_or_default();
                    t.push_str("  ---\n");
                    let _ = writeln!(t, "  message: {}", js(&c.reason));
                    let _ = writeln!(t, "  severity: {}", c.status);
                    if let Some(l) = &c.level {
                        let _ = writeln!(t, "  level: {l}");
                    }
                    if let Some(a) = &c.about {
                        let _ = writeln!(t, "  title: {}", js(&a.title));
                        let spec: Vec<String> = a.spec.iter().map(|s| js(s)).collect();
                        let _ = writeln!(t, "  spec: [{}]", spec.join(", "));
                        let _ = writeln!(t, "  source: {}", js(&a.source));
                    }
                    if let Some(s) = c.step {
                        let _ = writeln!(t, "  step: {s}");
                    }
                    for (k, v) in [("expected", &c.expected), ("actual", &c.actual)] {
                        if let Some(v) = v {
                            let _ = writeln!(t, "  {k}: {v}");
                        }
                    }
                    if let Some(d) = &c.diff {
                        let _ = writeln!(t, "  diff: {}", js(d));
                    }
                    t.push_str("  ...\n");
                }
            }
        }
        t
    }
}
