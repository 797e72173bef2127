//! Independent models for `search_replace_parse`, written from SPEC §15.2 and sharing no code
//! with `editref::dialects::search_replace`: a renderer that writes blocks into a reply the
//! way models do (BLOCK-1..4), and a naive window-by-window version of the flexible fallback
//! (BLOCK-6..8).

/// One block as the renderer writes it and the parser must give it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedBlock {
    /// The file name.
    pub path: String,
    /// SEARCH text (whole lines, LF, final LF when not empty).
    pub search: String,
    /// REPLACE text, formed the same way.
    pub replace: String,
    /// The 1-based line of the opening marker.
    pub line: usize,
}

/// What the renderer is told about one block.
pub struct RenderSpec<'a> {
    /// Layout choices, bit by bit (see [`render`]).
    pub style: u16,
    /// Raw fuzz text for the path; cleaned to a safe alphabet.
    pub path: &'a str,
    /// Raw fuzz text for the SEARCH lines.
    pub search: &'a str,
    /// Raw fuzz text for the REPLACE lines.
    pub replace: &'a str,
    /// Prose before the block.
    pub prose: &'a str,
}

/// Fence languages: none holds a `.` or a `/`, so none reads as a file name (BLOCK-2).
const LANGS: [&str; 6] = ["", "python", "rust", "c++", "diff", "sh"];
/// Fence openings.
const FENCES: [&str; 3] = ["```", "````", "~~~"];

/// Writes blocks into a reply with prose, fences and every name form of BLOCK-2, and returns
/// the reply with the blocks a correct parser reads from it.
///
/// Per block, `style` bits: 0–2 the name form (plain, `# `, `**…**`, `…:`, backticks, quotes,
/// fence info string, left out when the previous block has the same file); 3 a fence around
/// the block; 4–6, 7–9, 10–12 the opening, divider and closing run lengths (5 + n % 5), 4–6
/// also the fence language; 13 the `ORIGINAL`/`UPDATED` spelling; 14 whitespace around the
/// markers; 14–15 the fence flavour. `eol` picks LF, CRLF, or both alternating.
pub fn render(blocks: &[RenderSpec<'_>], tail: &str, eol: u8) -> (String, Vec<ExpectedBlock>) {
    let mut lines: Vec<String> = Vec::new();
    let mut expected: Vec<ExpectedBlock> = Vec::new();
    for b in blocks {
        lines.extend(prose_lines(b.prose));
        let path = clean_path(b.path);
        let s = b.style;
        let fenced = s & 8 != 0;
        let fence = FENCES[usize::from(s >> 14) % FENCES.len()];
        let lang = LANGS[usize::from(s >> 4) % LANGS.len()];
        let reuse = expected.last().is_some_and(|e| e.path == path);
        let form = s & 7;
        match form {
            6 if path.contains(['.', '/']) => lines.push(format!("{fence}{path}")),
            7 if reuse => {
                lines.push(String::new());
                if fenced {
                    lines.push(format!("{fence}{lang}"));
                }
            }
            _ => {
                lines.push(match form {
                    1 => format!("# {path}"),
                    2 => format!("**{path}**"),
                    3 => format!("{path}:"),
                    4 => format!("`{path}`"),
                    5 => format!("\"{path}\""),
                    _ => path.clone(),
                });
                if fenced {
                    lines.push(format!("{fence}{lang}"));
                }
            }
        }
        let fenced = fenced || (form == 6 && path.contains(['.', '/']));
        let run = |shift: u16| 5 + usize::from((s >> shift) & 7) % 5;
        let pad = if s & (1 << 14) != 0 { " \t" } else { "" };
        let (open_word, end_word) = if s & (1 << 13) != 0 {
            ("ORIGINAL", "UPDATED")
        } else {
            ("SEARCH", "REPLACE")
        };
        lines.push(format!("{pad}{} {open_word}{pad}", "<".repeat(run(4))));
        let line = lines.len();
        let search = content_lines(b.search);
        let replace = content_lines(b.replace);
        lines.extend(search.iter().cloned());
        lines.push(format!("{pad}{}", "=".repeat(run(7))));
        lines.extend(replace.iter().cloned());
        lines.push(format!("{}  {end_word}{pad}", ">".repeat(run(10))));
        if fenced {
            lines.push(fence.to_string());
        }
        expected.push(ExpectedBlock {
            path,
            search: joined(&search),
            replace: joined(&replace),
            line,
        });
    }
    lines.extend(prose_lines(tail));
    let mut reply = String::new();
    for (i, l) in lines.iter().enumerate() {
        reply.push_str(l);
        let crlf = match eol % 3 {
            0 => false,
            1 => true,
            _ => i % 2 == 1,
        };
        reply.push_str(if crlf { "\r\n" } else { "\n" });
    }
    (reply, expected)
}

/// A path from fuzz text: letters, digits and `._-/` only, and at least one letter or digit.
fn clean_path(raw: &str) -> String {
    let kept: String = raw
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'))
        .take(40)
        .collect();
    if kept.chars().any(char::is_alphanumeric) {
        kept
    } else {
        format!("f{kept}")
    }
}

/// Splits fuzz text into lines, a final `\n` ending the last line; CRs that would merge with
/// the reply's line break into a CRLF are dropped (BLOCK-3 makes them part of the break).
fn split(raw: &str) -> Vec<String> {
    if raw.is_empty() {
        return Vec::new();
    }
    raw.strip_suffix('\n')
        .unwrap_or(raw)
        .split('\n')
        .map(|l| l.trim_end_matches('\r').to_string())
        .collect()
}

/// Prose lines: anything, but no line that could open or close a block — a line starting with
/// `<` or `>` (after whitespace) gets an `x` in front.
fn prose_lines(raw: &str) -> Vec<String> {
    split(raw)
        .into_iter()
        .map(|l| {
            if l.trim_start().starts_with(['<', '>']) {
                format!("x{l}")
            } else {
                l
            }
        })
        .collect()
}

/// Block text lines: anything but a marker (BLOCK-4) — a line that begins, after whitespace,
/// with a run of 5 to 9 `<`, `=` or `>` gets an `x` in front. Longer runs are left alone: they
/// are text (BLOCK-1).
fn content_lines(raw: &str) -> Vec<String> {
    split(raw)
        .into_iter()
        .map(|l| {
            let t = l.trim_start();
            let run = t
                .chars()
                .next()
                .filter(|c| matches!(c, '<' | '=' | '>'))
                .map_or(0, |c| t.chars().take_while(|&d| d == c).count());
            if (5..=9).contains(&run) {
                format!("x{l}")
            } else {
                l
            }
        })
        .collect()
}

/// Lines joined as BLOCK-3 says: each followed by `\n`.
fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// What the naive fallback finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelFlex {
    /// One window: its replaced span and text.
    Unique(usize, usize, String),
    /// Several windows, by first line.
    Ambiguous(Vec<usize>),
    /// None.
    NotFound,
}

fn ws(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn blank(l: &str) -> bool {
    l.chars().all(ws)
}

/// A text's lines with their start offsets and whether a `\n` ends them.
fn model_lines(text: &str) -> Vec<(usize, &str, bool)> {
    let mut out = Vec::new();
    let mut pos = 0;
    for piece in text.split_inclusive('\n') {
        match piece.strip_suffix('\n') {
            Some(t) => out.push((pos, t, true)),
            None => out.push((pos, piece, false)),
        }
        pos += piece.len();
    }
    out
}

/// BLOCK-6..8 window by window: outdent both texts by their smallest indentation, try every
/// window of the view — first keeping, then ignoring trailing whitespace — and decide by the
/// first pass that finds any.
pub fn flex_model(view: &str, search: &str, replace: &str) -> ModelFlex {
    let v = model_lines(view);
    let s: Vec<&str> = model_lines(search).into_iter().map(|l| l.1).collect();
    let r: Vec<&str> = model_lines(replace).into_iter().map(|l| l.1).collect();
    if s.iter().all(|l| blank(l)) {
        return ModelFlex::NotFound;
    }
    let cut = s
        .iter()
        .chain(&r)
        .filter(|l| !blank(l))
        .map(|l| l.chars().take_while(|&c| ws(c)).count())
        .min()
        .unwrap_or(0);
    let out = |l: &str| -> String {
        if blank(l) {
            l.to_string()
        } else {
            l.chars().skip(cut).collect()
        }
    };
    let s: Vec<String> = s.iter().map(|l| out(l)).collect();
    let r: Vec<String> = r.iter().map(|l| out(l)).collect();
    let m = s.len();
    for trailing in [false, true] {
        let mut hits: Vec<(usize, String)> = Vec::new();
        for i in 0..v.len() {
            if i + m > v.len() {
                break;
            }
            if let Some(p) = window_prefix(&v[i..i + m], &s, trailing) {
                hits.push((i, p));
            }
        }
        match hits.len() {
            0 => continue,
            1 => {
                let (i, prefix) = &hits[0];
                let mut text = String::new();
                for l in &r {
                    if !blank(l) {
                        text.push_str(prefix);
                    }
                    text.push_str(l);
                    text.push('\n');
                }
                let mut start = v[*i].0;
                let last = v[i + m - 1];
                let mut end = last.0 + last.1.len();
                if last.2 {
                    end += 1;
                } else if text.is_empty() {
                    start = start.saturating_sub(1);
                } else {
                    text.pop();
                }
                return ModelFlex::Unique(start, end, text);
            }
            _ => return ModelFlex::Ambiguous(hits.iter().map(|h| h.0 + 1).collect()),
        }
    }
    ModelFlex::NotFound
}

/// The common prefix by which a window's lines exceed the SEARCH lines, if they do.
fn window_prefix(
    window: &[(usize, &str, bool)],
    search: &[String],
    trailing: bool,
) -> Option<String> {
    let mut prefix: Option<String> = None;
    for (&(_, f, _), s) in window.iter().zip(search) {
        if blank(s) {
            if !blank(f) {
                return None;
            }
            continue;
        }
        let (f, s) = if trailing {
            (f.trim_end_matches(ws), s.trim_end_matches(ws))
        } else {
            (f, s.as_str())
        };
        if !f.ends_with(s) {
            return None;
        }
        let p = &f[..f.len() - s.len()];
        if !blank(p) || prefix.as_deref().is_some_and(|q| q != p) {
            return None;
        }
        prefix = Some(p.to_string());
    }
    prefix
}
