//! Write (WRITE-1..5): whole-file replacement. Content is written as given (no line-ending
//! conversion); an existing file keeps its encoding and BOM.

use super::{decode_error, load, metadata_checks, stat, Input};
use crate::disk::{self, WriteRequest};
use crate::error::ToolResult;
use crate::patch;
use crate::session::{Entry, Session};
use crate::text::{eol, Chunk, Document, Fingerprint};
use serde_json::{json, Map, Value};

const FIELDS: [&str; 2] = ["file_path", "content"];

/// Runs Write.
pub fn run(session: &Session, input: &Value) -> ToolResult<Value> {
    let i = Input::new("Write", input, &FIELDS)?;
    let path = i.string("file_path")?;
    let content = i.string("content")?;
    let r = session.resolve(&path)?;
    let lf_content = eol::normalize_crlf(&content);
    let mut out = Map::new();
    if !r.exists {
        // WRITE-1: a new file, parents created, no read needed; UTF-8 without BOM (WRITE-3).
        let chunks = [Chunk::Original(content.as_bytes())];
        let written = disk::atomic_write(
            session.fs(),
            &WriteRequest {
                target: &r.target,
                chunks: &chunks,
                existing: None,
                fsync: session.config().fsync,
            },
        )?;
        session.remember(
            &r.target,
            Entry::full(Fingerprint::of(&lf_content), &written.meta),
        );
        out.insert("type".into(), json!("create"));
        out.insert("filePath".into(), json!(path));
        out.insert("content".into(), json!(content));
        out.insert("structuredPatch".into(), json!([]));
        out.insert("originalFile".into(), Value::Null);
        super::mark_durability(written.durable, &mut out);
        return Ok(Value::Object(out));
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
    let written = disk::atomic_write(
        session.fs(),
        &WriteRequest {
            target: &r.target,
            chunks: &chunks,
            existing: Some(&loaded),
            fsync: session.config().fsync,
        },
    )?;
    // WRITE-5.
    session.remember(
        &r.target,
        Entry::full(Fingerprint::of(&lf_content), &written.meta),
    );
    out.insert("type".into(), json!("update"));
    out.insert("filePath".into(), json!(path));
    out.insert("content".into(), json!(content));
    out.insert("structuredPatch".into(), patch.to_json());
    out.insert("originalFile".into(), json!(doc.view()));
    super::mark_durability(written.durable, &mut out);
    Ok(Value::Object(out))
}
