//! Inputs for the benches, generated at run time (nothing large is committed).
//!
//! The text is deterministic pseudo-random Rust-like source: short indented lines, comments and
//! string literals with a sprinkling of non-ASCII, about 30 bytes per line, so that decoding,
//! line counting and searching see what they see in real code. Markers are placed at known
//! positions so that every bench knows exactly how many hits it will get.

#![allow(dead_code)] // each bench binary uses a different part

/// A unique line placed in the middle of generated files.
pub const NEEDLE: &str = "    let needle_unique_target = 41;";
/// Two interchangeable unique strings: benches edit A→B, then B→A, so the file never needs
/// restoring between iterations.
pub const NEEDLE_A: &str = "needle_unique_target = 41";
/// See [`NEEDLE_A`] (same length, so the file size never changes).
pub const NEEDLE_B: &str = "needle_renamed_target_42";
/// The replace_all token and its same-length replacement.
pub const TOKEN_A: &str = "TOKEN_ALPHA";
/// See [`TOKEN_A`].
pub const TOKEN_B: &str = "TOKEN_OMEGA";
/// A line written with curly quotes; old strings use straight quotes (MATCH-2 fallback).
pub const CURLY_LINE: &str = "    say(\u{201C}needle quoted target\u{201D});";
/// The straight-quoted old string that finds [`CURLY_LINE`] only through the fallback.
pub const CURLY_OLD_A: &str = "say(\"needle quoted target\")";
/// Same length as [`CURLY_OLD_A`], for toggling.
pub const CURLY_OLD_B: &str = "say(\"needle changed target\")";
/// One hit per this many bytes in replace_all inputs (10 MB -> about 100,000 hits).
pub const BYTES_PER_HIT: usize = 100;

const IDENTS: [&str; 20] = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "value",
    "count",
    "index",
    "buffer",
    "reader",
    "writer",
    "config",
    "state",
    "node",
    "edge",
    "token_list",
    "parser",
    "result",
    "offset",
    "length",
    "cursor",
];
const FUNCS: [&str; 10] = [
    "compute", "parse", "render", "update", "load", "store", "apply", "merge", "split", "check",
];
const WORDS: [&str; 20] = [
    "the", "value", "is", "kept", "for", "later", "use", "when", "a", "line", "ends", "café",
    "résumé", "naïve", "→", "returns", "none", "update", "all", "fields",
];

/// xorshift64*: small, fast and deterministic across platforms.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

fn words(r: &mut Rng, lo: usize, hi: usize) -> String {
    let n = lo + r.below(hi - lo);
    (0..n).map(|_| r.pick(&WORDS)).collect::<Vec<_>>().join(" ")
}

fn source_line(r: &mut Rng) -> String {
    let ind = " ".repeat(4 * r.below(4));
    let (a, b) = (r.pick(&IDENTS), r.pick(&IDENTS));
    let n = r.below(1000);
    match r.below(8) {
        0 => format!(
            "{ind}let {a}_{n} = {}({b}, {});",
            r.pick(&FUNCS),
            r.below(100)
        ),
        1 => format!("{ind}// {}", words(r, 3, 9)),
        2 => format!("{ind}if {a}.{b}() > {n} {{"),
        3 => format!("{ind}}}"),
        4 => format!("{ind}return {a}.{}_{b}({n});", r.pick(&FUNCS)),
        5 => format!("{ind}\"{}\",", words(r, 2, 6)),
        6 => String::new(),
        _ => format!("{ind}{a}[{n}] = {b}_{} + {};", r.below(50), r.below(9)),
    }
}

/// About `size` bytes of source-like lines (each ending in `\n`), drawn from a pool of random
/// lines so that generating 100 MB takes well under a second.
pub fn source_lines(size: usize, seed: u64) -> Vec<String> {
    let mut r = Rng::new(seed);
    let pool: Vec<String> = (0..20_000).map(|_| source_line(&mut r)).collect();
    let mut lines = Vec::new();
    let mut total = 0;
    while total < size {
        let l = pool[r.below(pool.len())].clone();
        total += l.len() + 1;
        lines.push(l);
    }
    lines
}

/// Joins lines with `\n` and a final `\n`.
pub fn join(lines: &[String]) -> String {
    let mut s = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// Source text of about `size` bytes with `line` inserted at each of the given fractions of
/// the file (e.g. `[0.5]` for the middle).
pub fn source_with(size: usize, seed: u64, at: &[(f64, &str)]) -> String {
    let mut lines = source_lines(size, seed);
    let n = lines.len();
    let mut places: Vec<(usize, &str)> = at
        .iter()
        .map(|&(f, l)| (((n as f64) * f) as usize, l))
        .collect();
    places.sort_by_key(|p| std::cmp::Reverse(p.0));
    for (i, l) in places {
        lines.insert(i.min(lines.len()), l.to_string());
    }
    join(&lines)
}

/// Source text with [`NEEDLE`] once, in the middle.
pub fn source_with_needle(size: usize) -> String {
    source_with(size, 1, &[(0.5, NEEDLE)])
}

/// Source text where [`TOKEN_A`] occurs `size / BYTES_PER_HIT` times, on evenly spaced lines.
pub fn source_with_tokens(size: usize) -> (String, usize) {
    let mut lines = source_lines(size, 3);
    let hits = (size / BYTES_PER_HIT).max(1).min(lines.len());
    let step = lines.len() as f64 / hits as f64;
    for j in 0..hits {
        let i = (j as f64 * step) as usize;
        lines[i] = format!("    use_token({TOKEN_A}, {});", j % 1000);
    }
    (join(&lines), hits)
}

/// Source text whose string literals use curly quotes, with [`CURLY_LINE`] in the middle.
pub fn source_with_curly_quotes(size: usize) -> String {
    let text = source_with(size, 5, &[(0.5, CURLY_LINE)]);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        match line.trim_start().strip_prefix('"') {
            Some(rest) if rest.trim_end().ends_with("\",") => {
                let indent = &line[..line.len() - line.trim_start().len()];
                let body = rest.trim_end().trim_end_matches("\",");
                out.push_str(&format!("{indent}\u{201C}{body}\u{201D},\n"));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// How a text is stored on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// UTF-8, LF endings.
    Lf,
    /// UTF-8, CRLF endings.
    Crlf,
    /// UTF-16LE with BOM, LF endings.
    Utf16Le,
}

impl Form {
    /// Short name used in bench ids.
    pub fn name(self) -> &'static str {
        match self {
            Form::Lf => "lf",
            Form::Crlf => "crlf",
            Form::Utf16Le => "utf16le",
        }
    }

    /// The bytes of `text` (LF endings) stored in this form.
    pub fn encode(self, text: &str) -> Vec<u8> {
        match self {
            Form::Lf => text.as_bytes().to_vec(),
            Form::Crlf => text.replace('\n', "\r\n").into_bytes(),
            Form::Utf16Le => {
                let mut out = Vec::with_capacity(2 + 2 * text.len());
                out.extend_from_slice(b"\xFF\xFE");
                for unit in text.encode_utf16() {
                    out.extend_from_slice(&unit.to_le_bytes());
                }
                out
            }
        }
    }
}

/// Human label of a size (1K, 1M, 10M, 100M).
pub fn size_label(size: usize) -> String {
    if size >= 1 << 20 {
        format!("{}M", size >> 20)
    } else {
        format!("{}K", size >> 10)
    }
}

/// Line count of an LF text (for Read's offset near the end).
pub fn line_count(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}
