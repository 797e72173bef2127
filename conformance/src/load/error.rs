//! Located errors: [`LoadError`], what every problem with a case file becomes, and the
//! collector that records them while a case is validated.
//!
//! A case author fixes a file from the message alone, so every error names the file, the line,
//! the column and the dotted field it is about. Two sources feed it: the YAML parser's own
//! errors, whose wording is adapted for case authors here, and the semantic checks of the other
//! loading modules, which report through [`Errors`] with the span of the offending node. Keeping
//! both in one place keeps the `file:line:column: field: message` shape the same for either.

use serde_saphyr::Spanned as S;
use std::fmt;

/// A problem with one case file, located as precisely as the YAML allows.
///
/// Displayed as `file:line:column: field: message`, the form editors and CI logs turn into links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The case file (a path, or `embedded:<path>`).
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The field the problem is about (a dotted path such as `steps[2].call.tool`), or empty.
    pub field: String,
    /// What is wrong, and when possible what is expected instead.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Collects validation errors for one file, each with the location of the offending node.
pub(super) struct Errors<'a> {
    pub(super) file: &'a str,
    pub(super) list: Vec<LoadError>,
}

impl Errors<'_> {
    pub(super) fn at<T>(
        &mut self,
        node: &S<T>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.list.push(LoadError {
            file: self.file.to_string(),
            line: node.referenced.line(),
            column: node.referenced.column(),
            field: field.into(),
            message: message.into(),
        });
    }
}

/// Turns a serde-saphyr error into a located [`LoadError`], naming the field when the message
/// or the source line makes it clear.
pub(super) fn yaml_error(source: &str, text: &str, e: &serde_saphyr::Error) -> LoadError {
    let (line, column) = e
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((0, 0));
    let mut message = e.to_string();
    // The rendered message may repeat the location; keep the first line, which says what.
    if let Some(first) = message.lines().next() {
        message = first.trim().to_string();
    }
    if let Some(i) = message.rfind(" at line ") {
        if message[i..].contains(", column ") {
            message.truncate(i);
        }
    }
    // Advice meant for programmers using the YAML library, not for case authors.
    if let Some(i) = message.find(", set DuplicateKeyPolicy") {
        message.truncate(i);
    }
    message = message
        .replace(
            "expected mapping start",
            "expected a mapping ({key: value})",
        )
        .replace("expected sequence start", "expected a list ([a, b])");
    let field = quoted_field(&message)
        .or_else(|| key_on_line(text, line))
        .unwrap_or_default();
    LoadError {
        file: source.to_string(),
        line,
        column,
        field,
        message,
    }
}

/// The field named by serde's "unknown field `x`" / "missing field `x`" messages.
fn quoted_field(message: &str) -> Option<String> {
    for marker in ["unknown field `", "missing field `", "duplicate field `"] {
        if let Some(rest) = message.split(marker).nth(1) {
            return rest.split('`').next().map(str::to_string);
        }
    }
    None
}

/// The mapping key written on a source line (`  mode: 7` → `mode`), if any.
fn key_on_line(text: &str, line: u64) -> Option<String> {
    let l = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let l = l
        .trim_start()
        .trim_start_matches("- ")
        .trim_start_matches('{');
    let (key, _) = l.split_once(':')?;
    let key = key.trim().trim_matches('"').trim_matches('\'');
    (!key.is_empty() && !key.contains(' ')).then(|| key.to_string())
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
