//! Reports: the canonical `report.json` and the formats derived from it — JUnit XML for CI
//! dashboards, TAP 14 for streaming consumers, and for people a Markdown summary and an HTML
//! page with filters.
//!
//! Everything is written from a [`Report`] value, so the derived files can never say something
//! the JSON does not.
//!
//! The module is split by format: `model` holds the [`Report`] itself (its serde shape is the
//! JSON), `junit`, `tap`, `markdown` and `html` each derive one file from it, `classes` holds the
//! per-class wording they share, and `time` formats
//! the start timestamp. This file writes them all together, and its test checks the formats side by
//! side on one sample run. The public items are re-exported here.

mod classes;
mod html;
mod junit;
mod markdown;
mod model;
mod tap;
#[cfg(test)]
pub(crate) mod tests_support;
mod time;

pub use classes::counts_cell;
pub use html::esc as html_escape;
pub(crate) use html::CSS as HTML_CSS;
pub use junit::xml;
pub use markdown::md_cell;
pub use model::{
    Certification, CorpusInfo, HarnessInfo, ImplInfo, Platform, Rejudged, Report, Selection,
    OLDEST_SCHEMA_VERSION, SCHEMA_VERSION,
};
pub use time::rfc3339;

use std::path::Path;

impl Report {
    /// The files [`Report::write_all`] writes, people's first.
    pub const FILES: [&'static str; 5] = [
        "summary.md",
        "report.html",
        "report.json",
        "junit.xml",
        "report.tap",
    ];

    /// Writes summary.md, report.html, report.json, junit.xml and report.tap into `dir`
    /// (created if needed).
    pub fn write_all(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        json.push('\n');
        std::fs::write(dir.join("report.json"), json)?;
        std::fs::write(dir.join("junit.xml"), self.junit())?;
        std::fs::write(dir.join("report.tap"), self.tap())?;
        std::fs::write(dir.join("summary.md"), self.summary_md())?;
        std::fs::write(dir.join("report.html"), self.html())?;
        Ok(())
    }

    /// The text of one of [`Report::FILES`] (`None` for another name).
    pub fn render(&self, file: &str) -> Option<String> {
        Some(match file {
            "report.json" => {
                let mut json = serde_json::to_string_pretty(self).ok()?;
                json.push('\n');
                json
            }
            "junit.xml" => self.junit(),
            "report.tap" => self.tap(),
            "summary.md" => self.summary_md(),
            "report.html" => self.html(),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::sample;
    use super::*;

    #[test]
    fn derived_formats() {
        let r = sample();
        let j = r.junit();
        assert!(
            j.contains("<testsuite name=\"edit\" tests=\"2\" failures=\"1\""),
            "{j}"
        );
        assert!(j.contains("name=\"edit/b&lt;&amp;&gt;\""));
        assert!(j.contains("\\u{0001}"));
        // differs passes in JUnit, marked as such; the counts match the summary's.
        assert!(j.contains("<property name=\"editref.status\" value=\"differs\"/>"));
        assert!(
            j.contains("failures=\"1\" errors=\"0\" skipped=\"2\""),
            "{j}"
        );
        assert!(j.contains(
            "case: A &lt;sample&gt; case (EDIT-1, MATCH-3; cases/edit/b&lt;&amp;&gt;.yaml)"
        ));
        assert!(!j.contains('\u{1}'));
        let t = r.tap();
        assert!(t.starts_with("TAP version 14\n1..5\n"));
        assert!(t.contains("ok 1 - edit/a\n"));
        assert!(t.contains("not ok 2 - edit/b<&>\n  ---\n  message: \"a.txt: bytes"));
        assert!(t.contains("ok 3 - eol/c # SKIP requires crlf"));
        assert!(t.contains("not ok 4 - eol/d # TODO"));
        assert!(t.contains("ok 5 - path/e\n  ---\n  message: \"implementation-defined, differs"));
        assert!(t.contains("  title: \"A <sample> case\"\n  spec: [\"EDIT-1\", \"MATCH-3\"]"));
        let m = r.summary_md();
        assert!(m.contains("| fail | 1 | 0 | 0 | 1 |"), "{m}");
        assert!(m.contains("| differs | 0 | 0 | 1 | 1 |"), "{m}");
        assert!(
            m.contains("## Implementation-defined differences (1)"),
            "{m}"
        );
        assert!(
            m.contains("| `edit/b<&>` | core | fail | data, contract | EDIT-1, MATCH-3 |"),
            "{m}"
        );
        assert!(m.contains("\\| differ"));
        assert!(
            m.contains("| data | 1/2 | 1/1 (1 unjudged) | 1/1 | — |"),
            "{m}"
        );
        // The verdict leads, data first, and names the surface and what ran.
        assert!(
            m.starts_with(
                "# Conformance: t 1\n\n**Not certified** for no tool (not offered: Read,"
            ),
            "{m}"
        );
        assert!(
            m.contains("\n- **data: not certified** (1/2 core)\n- **capability: certified core**"),
            "{m}"
        );
        assert!(
            m.find("**data: not certified**") < m.find("| status |"),
            "{m}"
        );
        assert!(
            m.contains("manifest `abababababab`), t 1, editref conform"),
            "{m}"
        );
        assert!(j.contains("<testsuite name=\"verdict\" tests=\"0\""), "{j}");
        assert!(j.find("name=\"verdict\"") < j.find("name=\"edit\""), "{j}");
        assert!(
            j.contains("<property name=\"editref.class.data\" value=\"not certified\"/>"),
            "{j}"
        );
        assert!(
            j.contains("<property name=\"editref.manifest_sha256\" value=\"abab"),
            "{j}"
        );
        assert!(t.contains("\n# Not certified for no tool"), "{t}");
        assert!(t.contains("manifest abab"), "{t}");
        let h = r.html();
        assert!(
            h.find("id=\"classes\"") < h.find("<table class=\"totals\">"),
            "{h}"
        );
        assert!(h.contains("Not certified for no tool"), "{h}");
        let h = r.html();
        assert!(h.contains("<table class=\"totals\" id=\"classes\">"), "{h}");
        assert!(h.contains("data-classes=\"data contract\""), "{h}");
        assert!(j.contains("type=\"fail: data, contract\""), "{j}");
        assert!(
            j.contains("<property name=\"editref.classes\" value=\"data,contract\"/>"),
            "{j}"
        );
        let back: Report = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}
