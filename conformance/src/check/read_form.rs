//! Read's line prefixes judged in the tool's own terms: a tool declares the form its Read and
//! text editor `view` number lines in (`read_format` in `hello`, `--mcp-read-format`), and the
//! harness compares `file.content` in that light.
//!
//! The spec numbers lines as `N\t` (READ-1) and names two other forms a model meets (REPAIR-3):
//! the arrow, `{N:>6}→`, which Claude Code shows, and none at all. The corpus writes expected
//! content in the spec's form. For a tool that declared another form, the comparison takes the
//! declared prefixes off the actual content and the spec's prefixes off the expected content —
//! keeping the line numbers where the declared form has them — and compares what is left. The
//! tool's reply itself is never changed: reports show it as it came.

use serde_json::Value;
use std::fmt;

/// How a tool numbers the lines of a file it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadFormat {
    /// `N\t` before each line: the spec's form, and the default.
    #[default]
    Tab,
    /// `{N:>6}→` before each line (U+2192), as Claude Code shows files.
    Arrow,
    /// No prefixes: the lines as they are.
    Plain,
}

impl ReadFormat {
    /// Every form, the default first.
    pub const ALL: [ReadFormat; 3] = [ReadFormat::Tab, ReadFormat::Arrow, ReadFormat::Plain];

    /// The spelling of `hello` and `--mcp-read-format`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadFormat::Tab => "tab",
            ReadFormat::Arrow => "arrow",
            ReadFormat::Plain => "plain",
        }
    }

    /// Parses the spelling of [`ReadFormat::as_str`].
    pub fn parse(s: &str) -> Option<ReadFormat> {
        ReadFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

impl fmt::Display for ReadFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line in the spec's form split into its number and text, when it has the prefix.
fn split_tab(line: &str) -> Option<(&str, &str)> {
    let (n, text) = line.split_once('\t')?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some((n, text))
}

/// One line in the arrow form split into its number and text, when it has the prefix.
fn split_arrow(line: &str) -> Option<(&str, &str)> {
    let (n, text) = line.split_once('→')?;
    let n = n.trim_start_matches(' ');
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some((n, text))
}

/// Expected content (spec form) as it is compared under `format`: unchanged for `tab` and
/// `arrow` (the numbers stay), the prefixes taken off for `plain`.
pub fn expected_for(content: &str, format: ReadFormat) -> String {
    match format {
        ReadFormat::Tab | ReadFormat::Arrow => content.to_string(),
        ReadFormat::Plain => map_lines(content, |l| split_tab(l).map_or(l, |(_, t)| t).into()),
    }
}

/// Actual content in the declared `format`, as it is compared: the arrow prefixes become the
/// spec's (so numbers are compared too), `tab` and `plain` are compared as they are. A line
/// without the declared prefix is left alone, so it does not match.
pub fn actual_for(content: &str, format: ReadFormat) -> String {
    match format {
        ReadFormat::Tab | ReadFormat::Plain => content.to_string(),
        ReadFormat::Arrow => map_lines(content, |l| match split_arrow(l) {
            Some((n, t)) => format!("{n}\t{t}"),
            None => l.to_string(),
        }),
    }
}

/// `content` with `f` applied to each line, the line breaks kept.
fn map_lines(content: &str, f: impl Fn(&str) -> String) -> String {
    content.split('\n').map(f).collect::<Vec<_>>().join("\n")
}

/// The expected and actual outputs of a call as they are compared: when the call shows a file
/// (`file` is where its `content` sits) and the tool declared a form other than the spec's,
/// the content strings of both are put in comparable form; otherwise both as they are.
pub fn comparable(
    want: &Value,
    got: &Value,
    file: Option<&str>,
    format: ReadFormat,
) -> (Value, Value) {
    let (mut want, mut got) = (want.clone(), got.clone());
    if let (Some(file), false) = (file, format == ReadFormat::Tab) {
        let pointer = format!("/{}/content", file.replace('.', "/"));
        if let Some(Value::String(s)) = want.pointer_mut(&pointer) {
            *s = expected_for(s, format);
        }
        if let Some(Value::String(s)) = got.pointer_mut(&pointer) {
            *s = actual_for(s, format);
        }
    }
    (want, got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_form_is_compared_in_its_own_terms() {
        let spec = "1\tone\n2\t\ttwo\n3\t";
        assert_eq!(expected_for(spec, ReadFormat::Plain), "one\n\ttwo\n");
        assert_eq!(expected_for(spec, ReadFormat::Arrow), spec);
        assert_eq!(
            actual_for("     1→one\n     2→\ttwo\n     3→", ReadFormat::Arrow),
            spec
        );
        assert_eq!(actual_for("1234567→x", ReadFormat::Arrow), "1234567\tx");
        // A line without the declared prefix stays as it is, so it cannot match.
        assert_eq!(actual_for("one", ReadFormat::Arrow), "one");
        assert_eq!(actual_for("1\tone", ReadFormat::Plain), "1\tone");
        assert_eq!(expected_for("", ReadFormat::Plain), "");

        let want = json!({"file": {"content": "1\ta\n2\tb", "numLines": 2}});
        let got = json!({"file": {"content": "a\nb", "numLines": 2}});
        let (w, g) = comparable(&want, &got, Some("file"), ReadFormat::Plain);
        assert_eq!(w, g);
        let (w, g) = comparable(&want, &got, Some("file"), ReadFormat::Tab);
        assert_ne!(w, g, "the spec's form is compared as it is");
        let (w, g) = comparable(&want, &got, None, ReadFormat::Plain);
        assert_ne!(w, g, "only a call that shows a file");
        let editor = json!({"result": {"file": {"content": "1\tx"}}});
        let (w, _) = comparable(&editor, &editor, Some("result.file"), ReadFormat::Plain);
        assert_eq!(w["result"]["file"]["content"], "x");
        assert_eq!(ReadFormat::parse("arrow"), Some(ReadFormat::Arrow));
        assert_eq!(ReadFormat::parse("Arrow"), None);
    }
}
