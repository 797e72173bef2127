//! Steps of the dialects — the text editor's `view`, `str_replace` and `insert`, LineEdit,
//! `apply_patch` and `search_replace` — generated from what the file holds (as the generator
//! guesses it), and written back as the inputs those tools take.
//!
//! Each is generated only when the implementation declares its feature. Like an edit's
//! `old_string`, the text a dialect quotes is cut from the file most of the time: an update of
//! a patch is built from the file's own lines (context, removed and added lines, sometimes an
//! `@@` anchor), a SEARCH block quotes whole lines, a LineEdit names lines that exist — and then
//! sometimes perturbed the way a model perturbs it (trailing whitespace, straight quotes,
//! indentation, a line range one off).

use super::gen::{apply_guess, gen_edit, Guess};
use super::parts::{self, Allowed};
use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value};

/// One command of the text editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorCommand {
    /// `view`, of the whole file or of `view_range`.
    View {
        /// `[first, last]`, `-1` as last meaning to the end.
        range: Option<(i64, i64)>,
    },
    /// `str_replace`; `new_str` absent deletes.
    StrReplace {
        /// `old_str`.
        old: String,
        /// `new_str`, when sent.
        new: Option<String>,
    },
    /// `insert` of `insert_text` after line `insert_line`.
    Insert {
        /// `insert_line` (0: at the top).
        line: u64,
        /// `insert_text`.
        text: String,
    },
}

/// One line of an update chunk: `' '` context, `'-'` removed, `'+'` added.
pub type PatchLine = (char, String);

/// One chunk of an update: optional `@@ anchor`, then its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text after `@@ `; `None` writes a bare `@@`.
    pub anchor: Option<String>,
    /// The lines, in order.
    pub lines: Vec<PatchLine>,
}

/// One operation of a V4A patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// `*** Add File: path` with these lines.
    Add {
        /// Case path.
        path: String,
        /// The new file's lines.
        lines: Vec<String>,
    },
    /// `*** Delete File: path`.
    Delete {
        /// Case path.
        path: String,
    },
    /// `*** Update File: path` with chunks.
    Update {
        /// Case path.
        path: String,
        /// The chunks, in file order.
        chunks: Vec<Chunk>,
    },
}

impl PatchOp {
    /// The path the operation names.
    pub fn path(&self) -> &str {
        match self {
            PatchOp::Add { path, .. } | PatchOp::Delete { path } | PatchOp::Update { path, .. } => {
                path
            }
        }
    }

    /// The path, mutably (a removed link's uses are renamed).
    pub fn path_mut(&mut self) -> &mut String {
        match self {
            PatchOp::Add { path, .. } | PatchOp::Delete { path } | PatchOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// One SEARCH/REPLACE block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The file name line.
    pub path: String,
    /// The SEARCH text: whole lines, each with its `\n` (empty: create).
    pub search: String,
    /// The REPLACE text, the same way.
    pub replace: String,
}

/// The lines of an LF text as Read counts them (a final line break starts no line).
pub fn lines_of(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// `lines` joined with `\n`, with a final line break when `final_break`.
fn join(lines: &[String], final_break: bool) -> String {
    let mut s = lines.join("\n");
    if final_break && !lines.is_empty() {
        s.push('\n');
    }
    s
}

/// The guess after lines `start..end` (0-based) were replaced by `new` (LF text, no final
/// break needed).
fn replace_lines(text: &str, start: usize, end: usize, new: &str) -> String {
    let final_break = text.ends_with('\n') || text.is_empty();
    let mut lines: Vec<String> = lines_of(text).into_iter().map(String::from).collect();
    let end = end.min(lines.len());
    let start = start.min(end);
    let added: Vec<String> = if new.is_empty() {
        Vec::new()
    } else {
        lines_of(new).into_iter().map(String::from).collect()
    };
    lines.splice(start..end, added);
    join(&lines, final_break)
}

/// A text editor step on `path` (the file `g` guesses).
pub(crate) fn editor(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    g: &mut Guess,
    path: &str,
) -> Result<EditorCommand> {
    let n = lines_of(&g.text).len() as i64;
    Ok(match u.choose_index(5)? {
        0 => {
            let range = if allowed.has("partial_read") && u.ratio(1, 3)? {
                let first = u.int_in_range(1..=n.max(1))?;
                let last = if u.ratio(1, 3)? {
                    -1
                } else {
                    u.int_in_range(first..=first + 2)?
                };
                Some((first, last))
            } else {
                None
            };
            EditorCommand::View { range }
        }
        1 | 2 => {
            let mut e = gen_edit(u, allowed, &g.text, g.encoding)?;
            e.replace_all = false;
            if e.old.is_empty() {
                e.old = parts::word(u)?.to_string();
            }
            g.text = apply_guess(&g.text, &e);
            let new = if e.new.is_empty() && u.ratio(1, 2)? {
                None
            } else {
                Some(e.new)
            };
            let _ = path;
            EditorCommand::StrReplace { old: e.old, new }
        }
        _ => {
            // Past the end once in a while: `invalid_input` with `lines` (EDITOR-5).
            let past = u64::from(u.ratio(1, 8)?);
            let line = u.int_in_range(0..=(n as u64) + past)?;
            let mut text = parts::new_text(u, g.encoding.narrow(), allowed.has("crlf"))?;
            // A model rarely inserts nothing (`no_change`): mostly a line at least.
            if text.is_empty() && !u.ratio(1, 4)? {
                text = parts::line(u, g.encoding.narrow())?;
            }
            if line as i64 <= n {
                g.text = insert_guess(&g.text, line as usize, &text);
            }
            EditorCommand::Insert { line, text }
        }
    })
}

/// The guess after `text` was inserted after line `after` (LINES-3: lines stay lines).
fn insert_guess(file: &str, after: usize, text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let text = text.strip_suffix('\n').unwrap_or(&text);
    if file.is_empty() {
        return format!("{text}\n");
    }
    replace_lines_keep(file, after, text)
}

/// Inserts `text` as whole lines before 0-based line `at`.
fn replace_lines_keep(file: &str, at: usize, text: &str) -> String {
    let final_break = file.ends_with('\n');
    let mut lines: Vec<String> = lines_of(file).into_iter().map(String::from).collect();
    let at = at.min(lines.len());
    let last = at == lines.len();
    lines.splice(at..at, text.split('\n').map(String::from));
    join(&lines, final_break || last)
}

/// A LineEdit of the file `g` guesses: `(start, end, new_content, expected_text)`.
pub(crate) fn line_edit(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    g: &mut Guess,
) -> Result<(u64, u64, String, Option<String>)> {
    let lines = lines_of(&g.text);
    let n = lines.len() as u64;
    let start = u.int_in_range(1..=n + 1)?;
    let mut end = u.int_in_range(start - 1..=(start + 1).min(n).max(start - 1))?;
    // One off now and then: `invalid_input` with `lines` (LINES-2).
    let mut start_sent = start;
    match u.choose_index(16)? {
        0 => start_sent = 0,
        1 => end = n + 1,
        _ => {}
    }
    let content = parts::new_text(u, g.encoding.narrow(), allowed.has("crlf"))?;
    let held =
        lines[(start as usize - 1).min(lines.len())..(end as usize).min(lines.len())].join("\n");
    let expected = match u.choose_index(4)? {
        0 => Some(held.clone()),
        // The lines moved since the model saw them: `stale` with `actual` (LINES-4).
        1 if !held.is_empty() => Some(format!("{held}x")),
        _ => None,
    };
    if start_sent >= 1 && end <= n && expected.as_deref().is_none_or(|e| e == held) {
        g.text = replace_lines(&g.text, start as usize - 1, end as usize, &content);
    }
    Ok((start_sent, end, content, expected))
}

/// A patch: an update of `path` built from the lines `g` guesses, and sometimes an Add or a
/// Delete beside it.
pub(crate) fn patch(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    g: &mut Guess,
    path: &str,
    others: &[String],
) -> Result<Vec<PatchOp>> {
    let mut ops = Vec::new();
    let lines: Vec<String> = lines_of(&g.text).into_iter().map(String::from).collect();
    if !lines.is_empty() && u.ratio(7, 8)? {
        let mut chunks = Vec::new();
        let mut from = 0;
        let mut new_lines = lines.clone();
        let mut shift: isize = 0;
        for _ in 0..u.int_in_range(1..=2)? {
            if from >= lines.len() {
                break;
            }
            let start = u.int_in_range(from..=lines.len() - 1)?;
            let count = u.int_in_range(1..=3)?.min(lines.len() - start);
            let before = (start > 0 && u.ratio(2, 3)?).then(|| lines[start - 1].clone());
            let after = lines
                .get(start + count)
                .filter(|_| u.ratio(1, 2).unwrap_or(false));
            let anchor = match u.choose_index(6)? {
                0 if start > 1 => Some(lines[u.choose_index(start - 1)?].clone()),
                1 => Some(String::new()),
                _ => None,
            };
            let added = parts::new_text(u, g.encoding.narrow(), false)?;
            let added: Vec<String> = if added.is_empty() {
                Vec::new()
            } else {
                added.split('\n').map(String::from).collect()
            };
            let mut body: Vec<PatchLine> = Vec::new();
            if let Some(b) = &before {
                body.push((' ', b.clone()));
            }
            let keep_one = u.ratio(1, 4)?;
            for (i, l) in lines[start..start + count].iter().enumerate() {
                if keep_one && i == 0 && count > 1 {
                    body.push((' ', l.clone()));
                } else {
                    body.push(('-', l.clone()));
                }
            }
            body.extend(added.iter().map(|a| ('+', a.clone())));
            if let Some(a) = after {
                body.push((' ', a.clone()));
            }
            perturb_patch_lines(u, allowed, &mut body)?;
            let removed_from = start + usize::from(keep_one && count > 1);
            let at = (removed_from as isize + shift).max(0) as usize;
            let end = (start + count) as isize + shift;
            let end = (end.max(at as isize) as usize).min(new_lines.len());
            new_lines.splice(at..end, added.iter().cloned());
            shift += added.len() as isize - (start + count - removed_from) as isize;
            chunks.push(Chunk {
                anchor: anchor.map(|a| {
                    if a.is_empty() {
                        a
                    } else {
                        a.trim().to_string()
                    }
                }),
                lines: body,
            });
            from = start + count + 1;
        }
        g.text = join(&new_lines, g.text.ends_with('\n'));
        ops.push(PatchOp::Update {
            path: path.to_string(),
            chunks,
        });
    }
    if ops.is_empty() || u.ratio(1, 6)? {
        let count = u.int_in_range(0..=2)?;
        let lines = (0..count)
            .map(|_| parts::line(u, false))
            .collect::<Result<Vec<_>>>()?;
        let name = *u.choose(&["added.txt", "sub/added.txt", "new.txt"])?;
        ops.push(PatchOp::Add {
            path: name.to_string(),
            lines,
        });
    }
    if u.ratio(1, 8)? {
        let victim = match others.len() {
            0 => path.to_string(),
            n => others[u.choose_index(n)?].clone(),
        };
        if !ops.iter().any(|o| o.path() == victim) {
            ops.push(PatchOp::Delete { path: victim });
        }
    }
    Ok(ops)
}

/// Retypes a chunk's quoted lines the way models do, now and then: trailing whitespace
/// (APPLY-5's second pass), straight quotes for curly ones (its fourth), a typo (not found).
fn perturb_patch_lines(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    body: &mut [PatchLine],
) -> Result<()> {
    let quoted: Vec<usize> = (0..body.len()).filter(|&i| body[i].0 != '+').collect();
    if quoted.is_empty() {
        return Ok(());
    }
    let i = quoted[u.choose_index(quoted.len())?];
    match u.choose_index(10)? {
        0 => body[i].1.push_str("  "),
        1 if allowed.has("curly_quotes") => {
            body[i].1 = parts::straighten(&body[i].1);
        }
        2 => body[i].1 = format!("  {}", body[i].1.trim_start()),
        3 => body[i].1.push('x'),
        _ => {}
    }
    Ok(())
}

/// SEARCH/REPLACE blocks: whole lines of the file `g` guesses, or a new file.
pub(crate) fn blocks(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    g: &mut Guess,
    path: &str,
) -> Result<Vec<Block>> {
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(1..=2)? {
        let lines = lines_of(&g.text);
        if lines.is_empty() || u.ratio(1, 10)? {
            let name = *u.choose(&["new.txt", "sub/made.txt"])?;
            let replace = lines_text(&[parts::line(u, false)?]);
            out.push(Block {
                path: name.to_string(),
                search: String::new(),
                replace,
            });
            continue;
        }
        let start = u.choose_index(lines.len())?;
        let count = u.int_in_range(1..=2)?.min(lines.len() - start);
        let quoted: Vec<String> = lines[start..start + count]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut search = quoted.clone();
        let mut replace: Vec<String> = match u.choose_index(6)? {
            0 => Vec::new(),
            1 => quoted.clone(),
            _ => {
                let mut r = quoted.clone();
                let at = u.choose_index(r.len())?;
                let w = parts::word(u)?;
                r[at] = format!("{} {w}", r[at]);
                if u.ratio(1, 3)? {
                    r.push(parts::line(u, g.encoding.narrow())?);
                }
                r
            }
        };
        let exact = match u.choose_index(8)? {
            // Indentation the model got wrong (BLOCK-6), on both sides alike.
            0 => {
                for l in search.iter_mut().chain(replace.iter_mut()) {
                    *l = format!("  {l}");
                }
                false
            }
            // Trailing whitespace (BLOCK-7).
            1 => {
                for l in search.iter_mut() {
                    l.push(' ');
                }
                false
            }
            2 if allowed.has("curly_quotes") => {
                for l in search.iter_mut() {
                    *l = parts::straighten(l);
                }
                false
            }
            _ => true,
        };
        let (s, r) = (lines_text(&search), lines_text(&replace));
        if exact {
            let e = super::gen::GenEdit {
                old: s.clone(),
                new: r.clone(),
                replace_all: false,
            };
            g.text = apply_guess(&g.text, &e);
        }
        out.push(Block {
            path: path.to_string(),
            search: s,
            replace: r,
        });
    }
    Ok(out)
}

/// Lines as block text: each followed by `\n`.
fn lines_text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The V4A text of `ops`.
pub fn patch_text(ops: &[PatchOp]) -> String {
    let mut s = String::from("*** Begin Patch\n");
    for op in ops {
        match op {
            PatchOp::Add { path, lines } => {
                s.push_str(&format!("*** Add File: {path}\n"));
                for l in lines {
                    s.push_str(&format!("+{l}\n"));
                }
            }
            PatchOp::Delete { path } => s.push_str(&format!("*** Delete File: {path}\n")),
            PatchOp::Update { path, chunks } => {
                s.push_str(&format!("*** Update File: {path}\n"));
                for c in chunks {
                    match &c.anchor {
                        Some(a) if !a.is_empty() => s.push_str(&format!("@@ {a}\n")),
                        _ => s.push_str("@@\n"),
                    }
                    for (mark, text) in &c.lines {
                        s.push_str(&format!("{mark}{text}\n"));
                    }
                }
            }
        }
    }
    s.push_str("*** End Patch\n");
    s
}

/// The reply text of `blocks`: each block under its file name line.
pub fn blocks_text(blocks: &[Block]) -> String {
    let mut s = String::new();
    for b in blocks {
        s.push_str(&format!(
            "{}\n<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n\n",
            b.path, b.search, b.replace
        ));
    }
    s
}

/// The text editor's input for `command` on `path`.
pub fn editor_input(path: &str, command: &EditorCommand) -> Value {
    let mut m = Map::new();
    let name = match command {
        EditorCommand::View { .. } => "view",
        EditorCommand::StrReplace { .. } => "str_replace",
        EditorCommand::Insert { .. } => "insert",
    };
    m.insert("command".into(), json!(name));
    m.insert("path".into(), json!(path));
    match command {
        EditorCommand::View {
            range: Some((a, b)),
        } => {
            m.insert("view_range".into(), json!([a, b]));
        }
        EditorCommand::View { range: None } => {}
        EditorCommand::StrReplace { old, new } => {
            m.insert("old_str".into(), json!(old));
            if let Some(n) = new {
                m.insert("new_str".into(), json!(n));
            }
        }
        EditorCommand::Insert { line, text } => {
            m.insert("insert_line".into(), json!(line));
            m.insert("insert_text".into(), json!(text));
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_helpers_count_lines_as_read_does() {
        assert_eq!(lines_of("a\nb\n"), ["a", "b"]);
        assert_eq!(lines_of("a\nb"), ["a", "b"]);
        assert!(lines_of("").is_empty());
        assert_eq!(replace_lines("a\nb\nc\n", 1, 2, "X\nY"), "a\nX\nY\nc\n");
        assert_eq!(replace_lines("a\nb", 1, 2, ""), "a");
        assert_eq!(insert_guess("a\nb\n", 0, "x"), "x\na\nb\n");
        assert_eq!(insert_guess("a\nb\n", 2, "x\n"), "a\nb\nx\n");
        assert_eq!(insert_guess("", 0, "x"), "x\n");
    }

    #[test]
    fn patches_and_blocks_render_in_their_formats() {
        let ops = vec![
            PatchOp::Update {
                path: "a.txt".into(),
                chunks: vec![Chunk {
                    anchor: Some("fn x".into()),
                    lines: vec![(' ', "a".into()), ('-', "b".into()), ('+', "B".into())],
                }],
            },
            PatchOp::Add {
                path: "n.txt".into(),
                lines: vec!["x".into()],
            },
            PatchOp::Delete {
                path: "b.txt".into(),
            },
        ];
        assert_eq!(
            patch_text(&ops),
            "*** Begin Patch\n*** Update File: a.txt\n@@ fn x\n a\n-b\n+B\n\
             *** Add File: n.txt\n+x\n*** Delete File: b.txt\n*** End Patch\n"
        );
        let parsed = editref::dialects::apply_patch::parse(&patch_text(&ops));
        assert!(parsed.is_ok(), "{parsed:?}");
        let b = blocks_text(&[Block {
            path: "a.txt".into(),
            search: "b\n".into(),
            replace: String::new(),
        }]);
        assert_eq!(b, "a.txt\n<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE\n\n");
    }
}
