//! Applying a reply's SEARCH/REPLACE blocks (BLOCK-9..14): every block of every file is
//! located and applied in memory first, in order, each to the text the blocks before it left;
//! only when all of them apply are the files written, as one unit (BATCH-1).
//!
//! A block's SEARCH text is found by the core's matching (exact, then the curly-quote
//! fallback, MATCH-1..3) and must occur once; only when it does not occur at all is the
//! whitespace-flexible fallback tried ([`super::flex`]). Where Aider would edit the first of
//! several matches, editref refuses with `ambiguous` and the candidates' lines.

use super::flex::{find_flexible, Flex};
use super::parse::{parse, Block};
use crate::api::{Change, FileAction, FileChange, FilesOutput, SearchReplaceInput};
use crate::dialects::stage::{commit, After, Staged};
use crate::engine::Splicer;
use crate::error::{Code, ToolError, ToolResult};
use crate::matching::{closest_region, Haystack};
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
        // BLOCK-10: a new file comes from a block with an empty SEARCH; later blocks edit it.
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
        let mut text = first.replace.clone();
        for block in &blocks[1..] {
            text = apply_block(&text, block, given)?;
        }
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
    let doc = opened.document()?;
    let view = doc.view();
    let mut splicer = Splicer::new(view);
    for block in blocks {
        if block.search.is_empty() {
            // BLOCK-11: an empty SEARCH fills an empty file, and nothing else.
            let current = splicer.text();
            if !current.trim().is_empty() {
                return Err(at_block(
                    ToolError::new(
                        Code::FileExists,
                        format!(
                            "'{given}' already exists and is not empty, so a block with an empty SEARCH cannot create it. Quote the lines to change in SEARCH."
                        ),
                    ),
                    block,
                ));
            }
            let len = current.len();
            splicer.replace(0, len, block.replace.clone());
            continue;
        }
        let current = splicer.text().into_owned();
        let (start, end, text) = locate(&current, block, given)?;
        if splicer.replace(start, end, text).is_none() {
            return Err(at_block(
                ToolError::invalid_input("A block's place could not be used."),
                block,
            ));
        }
    }
    let replacements = splicer.into_replacements();
    if replacements.is_empty() {
        return Err(ToolError::new(
            Code::NoChange,
            format!("The blocks for '{given}' change nothing: each REPLACE equals its SEARCH."),
        ));
    }
    let patch = Patch::new(given, view, &replacements);
    let chunks = doc
        .render(&replacements)
        .map_err(|c| ToolError::new(Code::Encoding, format!("The new text has '{}', which the file's encoding ({}) cannot hold. Nothing was written.", c.0, doc.encoding().name())))?;
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

/// Applies one block to a text held in memory (a file the reply creates).
fn apply_block(text: &str, block: &Block, given: &str) -> ToolResult<String> {
    if block.search.is_empty() {
        return Err(at_block(
            ToolError::new(
                Code::FileExists,
                format!("'{given}' was already created by an earlier block; quote the lines to change in SEARCH."),
            ),
            block,
        ));
    }
    let (start, end, new) = locate(text, block, given)?;
    let mut out = String::with_capacity(text.len() + new.len());
    out.push_str(text.get(..start).unwrap_or(""));
    out.push_str(&new);
    out.push_str(text.get(end..).unwrap_or(""));
    Ok(out)
}

/// BLOCK-12/13: where a block's SEARCH text is in `text` and what replaces it.
fn locate(text: &str, block: &Block, given: &str) -> ToolResult<(usize, usize, String)> {
    let hay = Haystack::new(text);
    let hits = hay.find(&block.search);
    // BLOCK-3: SEARCH is whole lines, so only a hit that starts a line counts; `return 1`
    // inside `    return 1` is the flexible fallback's to find (and re-indent for).
    let bytes = text.as_bytes();
    let aligned: Vec<(usize, usize)> = hits
        .spans
        .iter()
        .copied()
        .filter(|(s, _)| *s == 0 || bytes.get(s - 1) == Some(&b'\n'))
        .collect();
    match aligned.as_slice() {
        [(s, e)] => {
            let actual = text.get(*s..*e).unwrap_or("");
            let new = if hits.via_quotes {
                quotes::restyle(&block.replace, actual).into_owned()
            } else {
                block.replace.clone()
            };
            Ok((*s, *e, new))
        }
        [] => match find_flexible(text, &block.search, &block.replace) {
            Flex::Unique(r) => Ok((r.start, r.end, r.text)),
            Flex::Ambiguous { lines } => Err(ambiguous(block, given, &lines)),
            Flex::NotFound => {
                let mut message = format!(
                    "The SEARCH text of the block on line {} was not found in '{given}'. It must match the file exactly (indentation may differ as a whole). Nothing was written.",
                    block.line
                );
                let hint = closest_region(text, &block.search);
                if let Some(h) = &hint {
                    message.push_str(&format!(
                        "\nThe closest text is at lines {}-{}:\n{}",
                        h.start_line, h.end_line, h.text
                    ));
                }
                Err(ToolError::new(Code::NotFound, message)
                    .with("block_line", block.line)
                    .with("file", given))
            }
        },
        spans => {
            let lines: Vec<usize> = spans
                .iter()
                .map(|(s, _)| crate::text::line_of(text, *s))
                .collect();
            Err(ambiguous(block, given, &lines))
        }
    }
}

fn ambiguous(block: &Block, given: &str, lines: &[usize]) -> ToolError {
    ToolError::new(
        Code::Ambiguous,
        format!(
            "The SEARCH text of the block on line {} occurs {} times in '{given}' (at lines {}). Nothing was written; add lines around it to SEARCH so that it occurs once.",
            block.line,
            lines.len(),
            lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
        ),
    )
    .with("block_line", block.line)
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
