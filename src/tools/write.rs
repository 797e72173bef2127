//! Write (WRITE-1..5): whole-file replacement. Content is written as given (no line-ending
//! conversion); an existing file keeps its encoding and BOM.

use super::{decode_error, load, metadata_checks, stat};
use crate::api::{StructuredPatch, WriteInput, WriteKind, WriteOutput};
use crate::disk::WriteRequest;
use crate::error::ToolResult;
use crate::patch;
use crate::session::{Entry, Session};
use crate::text::{eol, Chunk, Document, Fingerprint};

/// Runs Write.
pub fn run(session: &Session, input: WriteInput) -> ToolResult<WriteOutput> {
    run_as(session, input, "Write")
}

/// Runs Write under another tool's name in the undo journal (the text editor's `create`).
pub fn run_as(session: &Session, input: WriteInput, tool: &str) -> ToolResult<WriteOutput> {
    let WriteInput {
        file_path: path,
        content,
    } = input;
    let r = session.resolve(&path)?;
    let _turn = session.turn(&[&r.target]); // SESSION-6
    let lf_content = eol::normalize_crlf(&content);
    if !r.exists {
        // WRITE-1: a new file, parents created, no read needed; UTF-8 without BOM (WRITE-3).
        let chunks = [Chunk::Original(content.as_bytes())];
        let written = session.write_file(
            tool,
            &WriteRequest {
                target: &r.target,
                chunks: &chunks,
                existing: None,
                fsync: session.config().fsync,
                mode: None,
            },
        )?;
        session.remember(
            &r.target,
            Entry::full(Fingerprint::of(&lf_content), &written.meta),
        );
        return Ok(WriteOutput {
            kind: WriteKind::Create,
            structured_patch: StructuredPatch(patch::Patch::whole_text(&path, "", "")),
            file_path: path,
            content,
            original_file: None,
            durable: written.durable,
        });
    }
    let meta = stat(session, &r)?;
    metadata_checks(session, &r, &meta)?;
    let loaded = load(session, &r, session.config().max_edit_size)?;
    let doc = Document::decode(&loaded.bytes);
    // WRITE-2: a full, fresh read of the existing file.
    session.check_fresh(&r.target, &loaded.meta, || {
        doc.as_ref().ok().map(Document::fingerprint)
    })?;
    let doc = doc.map_err(|e| decode_error(e, &r.given))?;
    // WRITE-3: the file's own encoding and BOM, the content's own line endings.
    let enc = doc.encoding();
    let mut bytes = enc.bom().to_vec();
    enc.encode_into(&content, &mut bytes)
        .map_err(|c| super::unrepresentable(c, enc.name(), &r.given))?;
    let patch = patch::Patch::whole_text(&path, doc.view(), &lf_content);
    let chunks = [Chunk::New(bytes)];
    let written = session.write_file(
        tool,
        &WriteRequest {
            target: &r.target,
            chunks: &chunks,
            existing: Some(&loaded),
            fsync: session.config().fsync,
            mode: None,
        },
    )?;
    // WRITE-5.
    session.remember(
        &r.target,
        Entry::full(Fingerprint::of(&lf_content), &written.meta),
    );
    let original_file = Some(doc.view().to_string());
    Ok(WriteOutput {
        kind: WriteKind::Update,
        file_path: path,
        content,
        structured_patch: StructuredPatch(patch),
        original_file,
        durable: written.durable,
    })
}
