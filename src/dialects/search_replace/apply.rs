//! Applying a reply's SEARCH/REPLACE blocks (BLOCK-9..17): every block of every file is
//! located and applied in memory first, in order, each to the text the blocks before it left;
//! only when all of them apply are the files written, as one unit (BATCH-1).
//!
//! A block's SEARCH text is found by the core's matching (exact, then the curly-quote
//! fallback, MATCH-1..3), counting only hits that start a line ([`super::lines`]), and must
//! occur once; only when it does not occur at all is the whitespace-flexible fallback tried
//! ([`super::flex`]). Where Aider would edit the first of
//! several matches, editref refuses with `ambiguous` and the candidates' lines.

use super::flex::{find_flexible, Flex};
use super::lines::find_lines;
use super::parse::{parse, Block};
use crate::api::{Change, FileAction, FileChange, FilesOutput, SearchReplaceInput};
use crate::dialects::stage::{commit, After, Staged};
use crate::engine::Splicer;
use crate::error::{Code, ToolError, ToolResult};
use crate::matching::closest_region;
use crate::patch::Patch;
use crate::session::Session;
use crate::text::{quotes, Fingerprint, Replacement};
use crate::tools::open::{open_text, ReadRule};
use std::path::PathBuf;

/// The tool's name in the undo journal and in messages.
const TOOL: &str = "search_replace";

/// Runs search_replace.
pub fn run(session: &Session, input: SearchReplaceInput) -> ToolResult<FilesOutput> {
    let blocks = parse(&input.text).map_err(|e| {
        ToolError::new(
            Code::InvalidPatch,
            format!("The reply could not be read as SEARCH/REPLACE blocks: {e}. Nothing was written; send the blocks again, well-formed."),
        )
        .with("line", e.line)
        .with("expected", e.expected.clone())
    })?;
    if blocks.is_empty() {
        return Err(ToolError::new(
            Code::InvalidPatch,
            "The reply holds no SEARCH/REPLACE block. Each block is the file's path on its own line, then <<<<<<< SEARCH, the exact lines to find, =======, the new lines, and >>>>>>> REPLACE.",
        ));
    }
    // The files in the order first named; blocks of one file stay in reply order.
    let mut files: Vec<(PathBuf, String, Vec<&Block>)> = Vec::new();
    for block in &blocks {
        let r = session
            .resolve(&block.path)
            .map_err(|e| at_block(e, block))?;
        match files.iter_mut().find(|(t, _, _)| *t == r.target) {
            Some((_, _, list)) => list.push(block),
            None => files.push((r.target, block.path.clone(), vec![block])),
        }
    }
    // SESSION-6: every file's turn, taken together, from before the first load to the write.
    let targets: Vec<&std::path::Path> = files.iter().map(|(t, _, _)| t.as_path()).collect();
    let _turn = session.turn(&targets);
    let mut staged = Vec::with_capacity(files.len());
    let mut out = Vec::with_capacity(files.len());
    for (target, given, list) in &files {
        let (s, change) = stage_file(session, target, given, list)?;
        staged.push(s);
        out.push(change);
    }
    let durable = if input.dry_run {
        true
    } else {
        commit(session, TOOL, &staged)?
    };
    Ok(FilesOutput {
        files: out,
        dry_run: input.dry_run,
        durable,
    })
}

/// Applies one file's blocks in memory.
fn stage_file(
    session: &Session,
    target: &std::path::Path,
    given: &str,
    blocks: &[&Block],
) -> ToolResult<(Staged, FileChange)> {
    let exists = session.resolve(given).map(|r| r.exists).unwrap_or(false);
    let Some(first) = blocks.first() else {
        return Err(ToolError::invalid_input("A file with no blocks."));
    };
    if !exists {
        // BLOCK-11: a new file comes from a first block with an empty SEARCH; later blocks edit
        // the text it gave.
        if !first.search.is_empty() {
            return Err(at_block(
                ToolError::new(
                    Code::FileNotFound,
                    format!(
                        "'{given}' does not exist. To create it, leave the SEARCH part of its first block empty."
                    ),
                ),
                first,
            ));
        }
        let mut splicer = Splicer::new("");
        apply_blocks(&mut splicer, blocks, given)?;
        let text = splicer.text().into_owned();
        let patch = Patch::new(
            given,
            "",
            &[Replacement {
                start: 0,
                end: 0,
                text: text.clone(),
            }],
        );
        let staged = Staged {
            given: given.to_string(),
            target: target.to_path_buf(),
            before: None,
            after: After::Bytes {
                bytes: text.clone().into_bytes(),
                fingerprint: Fingerprint::of(&text),
            },
            mode: None,
        };
        return Ok((staged, file_change(given, FileAction::Created, patch)));
    }
    let opened = open_text(session, given, ReadRule::IfRead).map_err(|e| at_block(e, first))?;
    let doc = opened.document().map_err(|e| at_block(e, first))?;
    let view = doc.view();
    let mut splicer = Splicer::new(view);
    apply_blocks(&mut splicer, blocks, given)?;
    let mut replacements = splicer.into_replacements();
    // BLOCK-14: blocks that undo one another leave spans that equal the original; they are
    // not written, so that no byte of them changes (their line endings included).
    replacements.retain(|r| view.get(r.start..r.end) != Some(r.text.as_str()));
    if replacements.is_empty() {
        return Err(ToolError::new(
            Code::NoChange,
            format!("The blocks for '{given}' change nothing: each REPLACE equals its SEARCH. Nothing was written."),
        )
        .with("block_line", first.line));
    }
    let patch = Patch::new(given, view, &replacements);
    let chunks = doc
        .render(&replacements)
        .map_err(|c| at_block(ToolError::new(Code::Encoding, format!("The new text has '{}', which the file's encoding ({}) cannot hold. Nothing was written.", c.0, doc.encoding().name())), first))?;
    let bytes = crate::text::concat(&chunks);
    let fingerprint = doc.fingerprint_after(&replacements);
    drop(chunks);
    drop(doc);
    let staged = Staged {
        given: given.to_string(),
        target: target.to_path_buf(),
        before: Some(opened),
        after: After::Bytes { bytes, fingerprint },
        mode: None,
    };
    Ok((staged, file_change(given, FileAction::Updated, patch)))
}

/// BLOCK-9: applies a file's blocks in reply order, each to the text the blocks before it
/// left.
fn apply_blocks(splicer: &mut Splicer<'_>, blocks: &[&Block], given: &str) -> ToolResult<()> {
    for block in blocks {
        let current = splicer.text();
        let (start, end, text) = if block.search.is_empty() {
            // BLOCK-12: an empty SEARCH fills a blank text, and nothing else.
            if !current.trim().is_empty() {
                return Err(at_block(
                    ToolError::new(
                        Code::FileExists,
                        format!(
                            "'{given}' is not empty (it exists, or an earlier block of this reply gave it its text), so a block with an empty SEARCH cannot create it. Quote the lines to change in SEARCH."
                        ),
                    ),
                    block,
                ));
            }
            (0, current.len(), block.replace.clone())
        } else {
            locate(&current, block, given)?
        };
        // BLOCK-14: a block whose REPLACE is the text it replaces is not spliced in, so it
        // cannot change a byte of the lines it names.
        if current.get(start..end) == Some(text.as_str()) {
            continue;
        }
        drop(current);
        if splicer.replace(start, end, text).is_none() {
            return Err(at_block(
                ToolError::invalid_input("A block's place could not be used."),
                block,
            ));
        }
    }
    Ok(())
}

/// Most candidate lines an `ambiguous` refusal lists (D21).
const MAX_LINES: usize = 10;

/// BLOCK-10: where a block's SEARCH text is in `text` and what replaces it.
fn locate(text: &str, block: &Block, given: &str) -> ToolResult<(usize, usize, String)> {
    let hits = find_lines(text, &block.search);
    match hits.spans.as_slice() {
        [(s, e)] => {
            let actual = text.get(*s..*e).unwrap_or("");
            let new = if hits.via_quotes {
                quotes::restyle(&block.replace, actual, quotes::Around::of(text, *s, *e))
                    .into_owned()
            } else {
                block.replace.clone()
            };
            Ok((*s, *e, new))
        }
        [] => match find_flexible(text, &block.search, &block.replace) {
            Flex::Unique(r) => Ok((r.start, r.end, r.text)),
            Flex::Ambiguous { lines } => {
                let count = lines.len();
                Err(ambiguous(
                    block,
                    given,
                    count,
                    &lines[..count.min(MAX_LINES)],
                ))
            }
            Flex::NotFound => Err(not_found(text, block, given)),
        },
        spans => {
            let mut lines = Vec::with_capacity(MAX_LINES);
            let (mut line, mut at) = (1, 0);
            for &(s, _) in spans.iter().take(MAX_LINES) {
                line +=
                    memchr::memchr_iter(b'\n', text.as_bytes().get(at..s).unwrap_or(b"")).count();
                at = s;
                lines.push(line);
            }
            Err(ambiguous(block, given, spans.len(), &lines))
        }
    }
}

/// `not_found`, with the closest text of the file as a hint (MATCH-6).
fn not_found(text: &str, block: &Block, given: &str) -> ToolError {
    let mut message = format!(
        "The SEARCH text of the block on line {} was not found in '{given}'. It must match the file exactly (indentation may differ as a whole). Nothing was written.",
        block.line
    );
    let hint = match closest_region(text, &block.search) {
        Some(h) => {
            message.push_str(&format!(
                "\nThe closest text is at lines {}-{}:\n{}",
                h.start_line, h.end_line, h.text
            ));
            serde_json::json!({"startLine": h.start_line, "endLine": h.end_line, "text": h.text})
        }
        None => serde_json::Value::Null,
    };
    ToolError::new(Code::NotFound, message)
        .with("block_line", block.line)
        .with("file", given)
        .with("hint", hint)
}

fn ambiguous(block: &Block, given: &str, count: usize, lines: &[usize]) -> ToolError {
    ToolError::new(
        Code::Ambiguous,
        format!(
            "The SEARCH text of the block on line {} occurs {count} times in '{given}' (at lines {}{}). Nothing was written; add lines around it to SEARCH so that it occurs once.",
            block.line,
            lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            if count > lines.len() { ", …" } else { "" }
        ),
    )
    .with("block_line", block.line)
    .with("count", count)
    .with("lines", lines.to_vec())
}

/// A refusal about one block names the block's line in the reply.
fn at_block(e: ToolError, block: &Block) -> ToolError {
    e.with("block_line", block.line)
}

fn file_change(given: &str, action: FileAction, patch: Patch) -> FileChange {
    FileChange {
        file_path: given.to_string(),
        action,
        moved_to: None,
        change: Change::new(patch),
    }
}
