//! `search_replace_parse`: Aider SEARCH/REPLACE replies (SPEC §15.2, BLOCK-1..8, PATH-4).
//!
//! Three things are checked on every input:
//! - any text: [`parse`] never panics, its blocks and errors are well formed, and reading the
//!   reply with CRLF line breaks gives the same answer as with LF (BLOCK-3);
//! - rendered blocks: a list of blocks written into a reply by an independent renderer, with
//!   prose, fences and every file-name form around them, parses back exactly (BLOCK-1..4);
//! - the fallback: [`find_flexible`] never panics, its span lies in the view on character
//!   boundaries, and it agrees with a naive window-by-window model (BLOCK-6..8).

use crate::framing::{self, Writer};
use crate::search_replace_model::{flex_model, render, ExpectedBlock, ModelFlex, RenderSpec};
use crate::{ensure, Check};
use arbitrary::{Arbitrary, Result, Unstructured};
use editref::dialects::search_replace::{find_flexible, parse, Flex};

/// One block for the renderer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockSpec {
    /// Layout bits (see `search_replace_model::render`).
    pub style: u16,
    /// The file name, cleaned to a safe alphabet by the renderer.
    pub path: String,
    /// The SEARCH lines.
    pub search: String,
    /// The REPLACE lines.
    pub replace: String,
    /// Prose before the block.
    pub prose: String,
}

crate::framed!(BlockSpec {
    style: framing::u16_le,
    path: framing::text,
    search: framing::text,
    replace: framing::text,
    prose: framing::text
});

/// Input of `search_replace_parse`.
///
/// Framing: the raw reply text; the line-break byte; a block-count byte (b % 9 blocks), then
/// per block its style u16, path, SEARCH, REPLACE and prose texts; the trailing prose; then the
/// fallback's view text, plant byte, plant-position u16, SEARCH and REPLACE texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchReplaceCase {
    /// A reply parsed as it is.
    pub raw: String,
    /// Line breaks of the rendered reply: LF, CRLF, or alternating (b % 3).
    pub eol: u8,
    /// Blocks to render into a reply.
    pub blocks: Vec<BlockSpec>,
    /// Prose after the last block.
    pub tail: String,
    /// The file's LF view for the fallback.
    pub view: String,
    /// Bit 0: plant the SEARCH lines into the view; bits 1–2: the indentation they get there
    /// (none, two spaces, a tab, four spaces); bit 3: plant them twice.
    pub plant: u8,
    /// The view line the SEARCH lines are planted before (modulo the line count + 1).
    pub at: u16,
    /// The fallback's SEARCH text.
    pub search: String,
    /// The fallback's REPLACE text.
    pub replace: String,
}

crate::framed!(SearchReplaceCase {
    raw: framing::text,
    eol: framing::byte,
    blocks: read_blocks,
    tail: framing::text,
    view: framing::text,
    plant: framing::byte,
    at: framing::u16_le,
    search: framing::text,
    replace: framing::text
});

/// Most blocks one input renders.
const MAX_BLOCKS: usize = 8;

fn read_blocks(u: &mut Unstructured<'_>) -> Result<Vec<BlockSpec>> {
    let n = usize::from(framing::byte(u)?) % (MAX_BLOCKS + 1);
    (0..n).map(|_| BlockSpec::arbitrary(u)).collect()
}

impl SearchReplaceCase {
    /// The input bytes that decode to this case (seed writing); `None` when a text is too long
    /// for the framing or there are more than eight blocks.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        if self.blocks.len() > MAX_BLOCKS {
            return None;
        }
        let mut w = Writer::new();
        w.text(&self.raw)?;
        w.byte(self.eol).byte(self.blocks.len() as u8);
        for b in &self.blocks {
            w.u16_le(b.style);
            w.text(&b.path)?
                .text(&b.search)?
                .text(&b.replace)?
                .text(&b.prose)?;
        }
        w.text(&self.tail)?.text(&self.view)?;
        w.byte(self.plant).u16_le(self.at);
        w.text(&self.search)?.text(&self.replace)?;
        Some(w.finish())
    }

    /// The view with the SEARCH lines planted as `plant` says.
    pub fn planted_view(&self) -> String {
        if self.plant & 1 == 0 {
            return self.view.clone();
        }
        let indent = ["", "  ", "\t", "    "][usize::from(self.plant >> 1) & 3];
        let planted: Vec<String> = self
            .search
            .split_inclusive('\n')
            .map(|l| {
                let l = l.strip_suffix('\n').unwrap_or(l);
                if l.trim_matches([' ', '\t']).is_empty() {
                    l.to_string()
                } else {
                    format!("{indent}{l}")
                }
            })
            .collect();
        let mut lines: Vec<String> = self
            .view
            .split_inclusive('\n')
            .map(|l| l.strip_suffix('\n').unwrap_or(l).to_string())
            .collect();
        let at = usize::from(self.at) % (lines.len() + 1);
        let copies = if self.plant & 8 != 0 { 2 } else { 1 };
        for _ in 0..copies {
            lines.splice(at..at, planted.iter().cloned());
        }
        let mut view = lines.join("\n");
        if self.view.ends_with('\n') || self.view.is_empty() {
            view.push('\n');
        }
        view
    }
}

/// Runs the three checks of the module documentation.
pub fn search_replace_parse(case: &SearchReplaceCase) -> Check {
    any_text(&case.raw)?;
    rendered(case)?;
    fallback(&case.planted_view(), &case.search, &case.replace)
}

/// Whatever the text, the parse is well formed, and CRLF reads like LF.
fn any_text(raw: &str) -> Check {
    let breaks = raw.matches('\n').count();
    let result = parse(raw);
    match &result {
        Ok(blocks) => {
            let mut last = 0;
            for b in blocks {
                ensure!(
                    b.line > last && b.line <= breaks + 1,
                    "block on line {} (previous {last}, {} lines)",
                    b.line,
                    breaks + 1
                );
                last = b.line;
                for text in [&b.search, &b.replace] {
                    ensure!(
                        text.is_empty() || text.ends_with('\n'),
                        "block text {text:?} does not end with a line break"
                    );
                }
                ensure!(
                    !b.path.is_empty() && !b.path.contains('\n'),
                    "bad path {:?}",
                    b.path
                );
            }
        }
        Err(e) => {
            ensure!(
                (1..=breaks + 1).contains(&e.line),
                "error on line {} of {}",
                e.line,
                breaks + 1
            );
            ensure!(
                !e.expected.is_empty() && !e.found.is_empty(),
                "empty error parts: {e:?}"
            );
            ensure!(
                e.to_string()
                    .starts_with(&format!("line {}: expected ", e.line)),
                "message {:?}",
                e.to_string()
            );
        }
    }
    if !raw.contains("\r\n") {
        let crlf = raw.replace('\n', "\r\n");
        ensure!(
            parse(&crlf) == result,
            "CRLF reply parses differently: {:?} vs {result:?}",
            parse(&crlf)
        );
    }
    Ok(())
}

/// Rendered blocks parse back exactly.
fn rendered(case: &SearchReplaceCase) -> Check {
    let specs: Vec<RenderSpec<'_>> = case
        .blocks
        .iter()
        .map(|b| RenderSpec {
            style: b.style,
            path: &b.path,
            search: &b.search,
            replace: &b.replace,
            prose: &b.prose,
        })
        .collect();
    let (reply, expected) = render(&specs, &case.tail, case.eol);
    let got = parse(&reply).map_err(|e| format!("rendered reply refused: {e}\n{reply}"))?;
    let got: Vec<ExpectedBlock> = got
        .into_iter()
        .map(|b| ExpectedBlock {
            path: b.path,
            search: b.search,
            replace: b.replace,
            line: b.line,
        })
        .collect();
    ensure!(
        got == expected,
        "rendered reply parsed as {got:#?}, rendered from {expected:#?}\n{reply}"
    );
    Ok(())
}

/// Largest view × SEARCH line product the naive model is run on.
const MODEL_WORK: usize = 4_000_000;

/// The fallback is safe on any input and agrees with the model.
fn fallback(view: &str, search: &str, replace: &str) -> Check {
    let got = find_flexible(view, search, replace);
    match &got {
        Flex::Unique(r) => {
            ensure!(
                r.start <= r.end && r.end <= view.len(),
                "span {}..{} outside a view of {} bytes",
                r.start,
                r.end,
                view.len()
            );
            ensure!(
                view.is_char_boundary(r.start) && view.is_char_boundary(r.end),
                "span {}..{} splits a character",
                r.start,
                r.end
            );
        }
        Flex::Ambiguous { lines } => {
            ensure!(lines.len() >= 2, "ambiguous with {lines:?}");
            ensure!(
                lines.windows(2).all(|w| w[0] < w[1]) && lines[0] >= 1,
                "candidate lines not ascending from 1: {lines:?}"
            );
        }
        Flex::NotFound => {}
    }
    let work = (view.matches('\n').count() + 1) * (search.matches('\n').count() + 1);
    if work > MODEL_WORK {
        return Ok(());
    }
    let want = flex_model(view, search, replace);
    let same = match (&got, &want) {
        (Flex::Unique(r), ModelFlex::Unique(s, e, t)) => (r.start, r.end, &r.text) == (*s, *e, t),
        (Flex::Ambiguous { lines }, ModelFlex::Ambiguous(m)) => lines == m,
        (Flex::NotFound, ModelFlex::NotFound) => true,
        _ => false,
    };
    ensure!(
        same,
        "find_flexible gave {got:?}, the model {want:?}\nview {view:?}\nsearch {search:?}\nreplace {replace:?}"
    );
    Ok(())
}
