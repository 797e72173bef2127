//! Every write of every tool ends here: the disk layer's atomic write (one file) or batch
//! (several files, all or none), followed by the undo record of what was replaced (UNDO-1).
//!
//! Keeping the two together means no tool can write without leaving an undo record, and the
//! record always describes a write that happened: it is made after the rename, from the old
//! bytes still in memory and the chunks just written (hashed by the journal when it keeps the
//! unit's old bytes).

use super::Session;
use crate::disk::{self, BatchDone, BatchOp, WriteRequest, Written};
use crate::error::ToolResult;
use crate::undo::{After, Before, Change, Journal};

impl Session {
    /// Writes one file atomically (DISK-1) and records the write for undo. `tool` names the
    /// call in the journal.
    pub fn write_file(&self, tool: &str, req: &WriteRequest<'_, '_>) -> ToolResult<Written> {
        let written = disk::atomic_write(self.fs(), req)?;
        self.record_undo(tool, &[change_of_write(req)]);
        Ok(written)
    }

    /// Writes several files as one unit, all or none (BATCH-1), and records them as one undo
    /// unit (UNDO-1).
    pub fn write_files(&self, tool: &str, ops: &[BatchOp<'_, '_>]) -> ToolResult<Vec<BatchDone>> {
        let done = disk::write_batch(self.fs(), ops)?;
        let changes: Vec<Change<'_>> = ops
            .iter()
            .map(|op| match op {
                BatchOp::Write(req) => change_of_write(req),
                BatchOp::Delete { target, existing } => Change {
                    target: target.to_path_buf(),
                    before: Before::File {
                        bytes: &existing.bytes,
                        mode: existing.meta.mode,
                    },
                    after: After::Deleted,
                },
            })
            .collect();
        self.record_undo(tool, &changes);
        Ok(done)
    }

    /// Records a unit when the session keeps a journal. A journal that cannot be written does
    /// not undo a write that succeeded: the write stands, and undoing it is later refused as
    /// `stale` (the file no longer matches the last recorded unit) — never a wrong restore.
    fn record_undo(&self, tool: &str, changes: &[Change<'_>]) {
        if let Some(config) = &self.config().undo {
            let _ = Journal::new(self.fs(), config).record(tool, changes);
        }
    }
}

fn change_of_write<'r>(req: &WriteRequest<'r, '_>) -> Change<'r> {
    Change {
        target: req.target.to_path_buf(),
        before: match req.existing {
            Some(l) => Before::File {
                bytes: &l.bytes,
                mode: l.meta.mode,
            },
            None => Before::Absent,
        },
        after: After::Bytes(req.chunks.iter().map(|c| c.bytes()).collect()),
    }
}
