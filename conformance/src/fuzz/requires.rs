//! The features a generated case needs, read off its content: what a written finding lists in
//! `requires`, and what keeps the shrinker from proposing a case the implementation did not
//! declare it can run (a smaller case may need *fewer* features, never others).
//!
//! The generator used exactly these features, so a case generated for an implementation
//! requires only what the implementation declared. The kinds of file every tool meets
//! ([`GUARDS`]: CRLF, UTF-16, symlinked files, modes, …) are never required, as in the corpus's
//! `guard` cases; [`guards`] names those a case holds, and a written finding with any is tagged
//! `guard`. What a call asks of the tool is required: a CRLF `old_string` or new text needs
//! `crlf`, a link made between two calls `symlink`.

use super::dialects::{EditorCommand, PatchOp};
use super::gen::{GenCase, GenEdit, GenStep};
use super::parts::{straighten, CURLY, GUARDS, TAGS};

/// The features `case` needs, in the order of the protocol's vocabulary.
pub fn requires(case: &GenCase) -> Vec<String> {
    let mut out: Vec<&str> = Vec::new();
    let mut add = |f: &'static str| {
        if !out.contains(&f) {
            out.push(f);
        }
    };
    // The strings the calls send (a CR in one needs `crlf`; a CR in a file does not).
    let mut texts: Vec<&str> = Vec::new();
    let mut olds: Vec<&str> = Vec::new();
    // Text a file may hold at some step: the files as given and everything a step writes.
    let mut sources: Vec<&str> = case.files.iter().map(|f| f.text.as_str()).collect();
    let mut read_targets: Vec<String> = Vec::new();
    if !case.hardlinks.is_empty() {
        add("hard_link");
    }
    // The links as they are at each step (a `Link` step changes where a path leads), and the
    // other names of files.
    let mut links: Vec<(String, String)> =
        case.links.iter().chain(&case.hardlinks).cloned().collect();
    let target = |links: &[(String, String)], p: &str| -> String {
        links
            .iter()
            .find(|(l, _)| l == p)
            .map_or_else(|| p.to_string(), |(_, t)| t.clone())
    };
    let exists =
        |links: &[(String, String)], p: &str| case.files.iter().any(|f| f.path == target(links, p));
    let mut edits_before_read = false;
    for step in &case.steps {
        let mut edits: Vec<&GenEdit> = Vec::new();
        let unread = |links: &[(String, String)], p: &str, read: &[String]| {
            !read.iter().any(|r| *r == target(links, p))
        };
        match step {
            GenStep::Read { path, window } => {
                add("read");
                if window.is_some() {
                    add("partial_read");
                }
                read_targets.push(target(&links, path));
            }
            GenStep::Edit { path, edit } => {
                add("edit");
                edits.push(edit);
                edits_before_read |= unread(&links, path, &read_targets);
            }
            GenStep::MultiEdit { path, edits: e } => {
                add("multi_edit");
                edits.extend(e);
                edits_before_read |= unread(&links, path, &read_targets);
            }
            GenStep::Write { path, content } => {
                add("write");
                texts.push(content);
                sources.push(content);
                edits_before_read |= exists(&links, path) && unread(&links, path, &read_targets);
            }
            GenStep::Modify { text, .. } => {
                add("stale_detection");
                sources.push(text);
            }
            GenStep::Touch { .. } => add("stale_detection"),
            GenStep::Link { path, target: t } => {
                add("symlink");
                links.retain(|(l, _)| l != path);
                links.push((path.clone(), t.clone()));
            }
            GenStep::Editor { path, command } => {
                add("text_editor");
                match command {
                    EditorCommand::View { range } => {
                        if range.is_some() {
                            add("partial_read");
                        }
                        read_targets.push(target(&links, path));
                    }
                    EditorCommand::StrReplace { old, new } => {
                        olds.push(old);
                        texts.push(old);
                        if let Some(n) = new {
                            texts.push(n);
                            sources.push(n);
                        }
                    }
                    EditorCommand::Insert { text, .. } => {
                        texts.push(text);
                        sources.push(text);
                        edits_before_read |= unread(&links, path, &read_targets);
                    }
                }
            }
            GenStep::LineEdit {
                path,
                content,
                expected,
                ..
            } => {
                add("line_edit");
                texts.push(content);
                sources.push(content);
                if let Some(e) = expected {
                    texts.push(e);
                }
                edits_before_read |= unread(&links, path, &read_targets);
            }
            GenStep::Patch { ops } => {
                add("apply_patch");
                for op in ops {
                    match op {
                        PatchOp::Add { lines, .. } => {
                            texts.extend(lines.iter().map(String::as_str));
                            sources.extend(lines.iter().map(String::as_str));
                        }
                        PatchOp::Delete { .. } => {}
                        PatchOp::Update { chunks, .. } => {
                            for c in chunks {
                                texts.extend(c.anchor.as_deref());
                                for (mark, line) in &c.lines {
                                    texts.push(line);
                                    if *mark == '+' {
                                        sources.push(line);
                                    } else {
                                        olds.push(line);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            GenStep::NotebookEdit { path, call } => {
                add("notebook_edit");
                texts.push(&call.source);
                sources.push(&call.source);
                edits_before_read |= unread(&links, path, &read_targets);
            }
            GenStep::Blocks { blocks } => {
                add("search_replace");
                for b in blocks {
                    olds.push(&b.search);
                    texts.push(&b.search);
                    texts.push(&b.replace);
                    sources.push(&b.replace);
                }
            }
        }
        for e in edits {
            if e.replace_all {
                add("replace_all");
            }
            olds.push(&e.old);
            texts.push(&e.old);
            texts.push(&e.new);
            sources.push(&e.new);
        }
    }
    if edits_before_read {
        add("read_before_write");
    }
    // A CRLF a call sends is what `crlf` is about (TEXT-5); a lone CR is a file's own text,
    // copied from a file with mixed endings, which every tool meets.
    if texts.iter().any(|t| t.contains("\r\n")) {
        add("crlf");
    }
    // The texts that hold curly quotes, made straight once for every old string.
    let straightened: Vec<String> = sources
        .iter()
        .filter(|s| CURLY.iter().any(|(c, _)| s.contains(*c)))
        .map(|s| straighten(s))
        .collect();
    if olds
        .iter()
        .any(|o| needs_curly_quotes(o, &sources, &straightened))
    {
        add("curly_quotes");
    }
    if olds
        .iter()
        .any(|o| TAGS.iter().any(|(_, short)| o.contains(short)))
    {
        add("desanitize");
    }
    if olds.iter().any(|o| has_line_prefix(o)) {
        add("line_prefix_repair");
    }
    let mut out: Vec<String> = out.into_iter().map(String::from).collect();
    out.sort_by_key(|f| {
        editref_protocol::FEATURES
            .iter()
            .position(|x| x == f)
            .unwrap_or(usize::MAX)
    });
    out
}

/// The kinds of file every tool meets ([`GUARDS`]) that `case` holds, in the order of the
/// protocol's vocabulary: its files' line endings, encodings and modes, and the symlinks it
/// starts with.
pub fn guards(case: &GenCase) -> Vec<String> {
    let mut out: Vec<&str> = Vec::new();
    let mut texts: Vec<(&str, Option<&'static str>)> = case
        .files
        .iter()
        .map(|f| (f.text.as_str(), f.encoding.feature()))
        .collect();
    for s in &case.steps {
        if let GenStep::Modify { text, encoding, .. } = s {
            texts.push((text, encoding.feature()));
        }
    }
    for (text, encoding) in texts {
        out.extend(encoding);
        if text.contains('\r') {
            out.push("crlf");
        }
        if mixed(text) {
            out.push("mixed_eol");
        }
    }
    if !case.links.is_empty() {
        out.push("symlink");
    }
    if case.files.iter().any(|f| f.mode != 0o644) {
        out.push("posix_mode");
    }
    GUARDS
        .iter()
        .filter(|g| out.contains(g))
        .map(|g| g.to_string())
        .collect()
}

/// Whether finding `old` takes MATCH-2's quote normalisation: it holds a straight quote, no
/// text a file may hold (`sources`) has it as given, and some such text has it once its curly
/// quotes are made straight (`straightened`: those of `sources` that hold curly quotes). A line quoted verbatim that happens to hold a straight quote (`print('x')`
/// beside a `“quoted”` line) needs nothing, and neither does a typo that no quote changes
/// would mend.
///
/// Read off single texts, this misses an `old_string` made straight that also spans the seam
/// between an earlier `new_string` and the text around it; the generator draws such spans
/// rarely, and a miss only leaves `curly_quotes` out of a finding's `requires`.
fn needs_curly_quotes(old: &str, sources: &[&str], straightened: &[String]) -> bool {
    old.contains(['"', '\''])
        && !sources.iter().any(|s| s.contains(old))
        && straightened.iter().any(|s| s.contains(old))
}

/// Whether the text has more than one kind of line break.
fn mixed(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    let cr = text.matches('\r').count() - crlf;
    let lf = text.matches('\n').count() - crlf;
    [crlf, cr, lf].iter().filter(|n| **n > 0).count() > 1
}

/// Whether the first line starts like a Read line (`   12<TAB>`).
fn has_line_prefix(s: &str) -> bool {
    let first = s.split('\n').next().unwrap_or("");
    let t = first.trim_start_matches(' ');
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && t.as_bytes().get(digits) == Some(&b'\t')
}

#[cfg(test)]
#[path = "requires_tests.rs"]
mod tests;
