//! The matrix as a chart (`matrix.svg`): for each area a row, for each tool a bar showing the
//! share of the area's cases that kept the data class — the question a reader of a matrix of
//! shipping tools asks first: which of them may lose my files, and where.
//!
//! The file is self-contained SVG 1.1: no scripts, no external fonts or styles (text uses the
//! generic `sans-serif` family), every name escaped, so it can be opened on its own, embedded in
//! a page or attached to a release. A tool whose report has no classes (made before them) gets a
//! grey cell saying so, as does an area a tool ran no case of.

use super::Matrix;
use crate::report::html_escape as esc;
use std::fmt::Write as _;

/// Width of the area labels.
const LABEL_W: usize = 150;
/// Width of one tool's column.
const COL_W: usize = 150;
/// Height of one row.
const ROW_H: usize = 24;
/// Height of the header (title and tool names).
const HEAD_H: usize = 64;
/// Width of a full bar.
const BAR_W: usize = 100;

/// The fill of a bar: green when every case kept its data, amber above 90%, red below.
fn colour(held: usize, all: usize) -> &'static str {
    if held == all {
        "#4caf50"
    } else if held * 10 >= all * 9 {
        "#f0a030"
    } else {
        "#d9534f"
    }
}

impl Matrix<'_> {
    /// The chart as a standalone SVG document (also embedded inline by [`Matrix::html`]).
    pub fn svg(&self) -> String {
        let areas: Vec<&str> = self.areas().into_keys().collect();
        let width = LABEL_W + COL_W * self.columns.len().max(1) + 10;
        let height = HEAD_H + ROW_H * areas.len() + 10;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-labelledby=\"matrix-chart-title\">"
        );
        let _ = writeln!(
            s,
            "<title id=\"matrix-chart-title\">Data kept: the share of each area's cases that kept the data class, per tool</title>"
        );
        let _ = writeln!(
            s,
            "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"4\" y=\"18\" font-size=\"14\" font-weight=\"bold\">Data kept per area (cases that ran)</text>"
        );
        for (col, name) in self.columns.iter().enumerate() {
            let x = LABEL_W + col * COL_W;
            let _ = writeln!(
                s,
                "<text class=\"tool\" x=\"{x}\" y=\"{}\" font-weight=\"bold\">{}</text>",
                HEAD_H - 10,
                esc(name)
            );
        }
        for (row, area) in areas.iter().enumerate() {
            let y = HEAD_H + row * ROW_H;
            let _ = writeln!(
                s,
                "<text class=\"area\" x=\"4\" y=\"{}\">{}</text>",
                y + 16,
                esc(area)
            );
            for col in 0..self.columns.len() {
                let x = LABEL_W + col * COL_W;
                let _ = writeln!(
                    s,
                    "<rect x=\"{x}\" y=\"{}\" width=\"{BAR_W}\" height=\"14\" fill=\"#eeeeee\"/>",
                    y + 5
                );
                match self.data_rate(col, area) {
                    Some((held, all)) => {
                        let w = held * BAR_W / all.max(1);
                        let _ = writeln!(
                            s,
                            "<rect x=\"{x}\" y=\"{}\" width=\"{w}\" height=\"14\" fill=\"{}\"><title>{}: {held} of {all} {} cases kept their data</title></rect>",
                            y + 5,
                            colour(held, all),
                            esc(&self.columns[col]),
                            esc(area)
                        );
                        let _ = writeln!(
                            s,
                            "<text x=\"{}\" y=\"{}\">{}%</text>",
                            x + BAR_W + 4,
                            y + 16,
                            held * 100 / all.max(1)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "<text x=\"{}\" y=\"{}\" fill=\"#888888\">n/a</text>",
                            x + 4,
                            y + 16
                        );
                    }
                }
            }
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Class;
    use crate::report::tests_support::sample;

    /// Every text node of a well-formed XML document (panics on a malformed one).
    fn texts(xml: &str) -> Vec<String> {
        use quick_xml::events::Event;
        let mut reader = quick_xml::Reader::from_str(xml);
        let (mut out, mut depth, mut roots) = (Vec::new(), 0usize, 0usize);
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) => {
                    roots += usize::from(depth == 0);
                    depth += 1;
                    assert!(e.name().into_inner() != "script", "no scripts");
                }
                Ok(Event::End(_)) => depth -= 1,
                Ok(Event::Text(t)) => out.push(t.into_inner().into_owned()),
                Ok(Event::GeneralRef(r)) => out.push(format!("&{};", r.into_inner())),
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("not well-formed at {}: {e}\n{xml}", reader.error_position()),
            }
        }
        assert_eq!(
            (depth, roots),
            (0, 1),
            "one root element, every element closed"
        );
        out
    }

    #[test]
    fn the_chart_is_well_formed_and_names_every_tool_and_area() {
        let a = sample();
        let mut b = sample();
        b.implementation.name = "other <&> tool".into();
        b.cases[1].failed_classes = vec![Class::Presentation];
        let mut old = sample();
        old.implementation.name = "old".into();
        old.classes.clear();
        let reports = [a, b, old];
        let m = Matrix::new(&reports);
        let svg = m.svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(!svg.contains("href") && !svg.contains("@import") && !svg.contains("url("));
        let text = texts(&svg).concat();
        for tool in ["t 1", "other &lt;&amp;&gt; tool 1", "old 1"] {
            assert!(svg.contains(tool), "{tool} in {svg}");
        }
        assert!(text.contains("other") && text.contains("tool 1"));
        for area in ["edit", "eol", "path"] {
            assert!(
                svg.contains(&format!(">{area}</text>")) && text.contains(area),
                "{area}"
            );
        }
        // edit: the first report lost data in one of two cases, the second kept it in both;
        // the report without classes says it has none.
        assert!(
            svg.contains("t 1: 1 of 2 edit cases kept their data"),
            "{svg}"
        );
        assert!(svg.contains(">100%<"), "{svg}");
        assert!(svg.contains(">n/a<"), "{svg}");
    }
}
