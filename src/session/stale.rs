//! The `stale` refusal of SESSION-2, worded from what actually changed (SESSION-7).
//!
//! The model has to read the file again either way, but it should learn what happened: which
//! of size, modification time, identity and text differ from what it read — and not be told
//! that the user or a linter did it, which editref cannot know. A change made by this session's
//! own write never gets here: the write recorded its result as read (EDIT-4, SESSION-6).

use super::Entry;
use crate::disk::Meta;
use crate::error::{Code, ToolError};
use crate::text::Fingerprint;
use serde_json::Value;

/// `stale` for a file whose read entry is `entry` and which is now `meta`, with the
/// fingerprint of its current text (`None` when it no longer decodes as text).
pub(super) fn since_read(entry: &Entry, meta: &Meta, now: Option<Fingerprint>) -> ToolError {
    let mut changed: Vec<&str> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    if entry.identity != (meta.dev, meta.ino) {
        changed.push("identity");
        words.push("it was replaced by another file".into());
    }
    if entry.size != meta.len {
        changed.push("size");
        words.push(format!(
            "its size went from {} to {} bytes",
            entry.size, meta.len
        ));
    }
    if entry.mtime_ns != meta.mtime_ns {
        changed.push("mtime");
        words.push(
            if meta.mtime_ns < entry.mtime_ns {
                "its modification time went back"
            } else {
                "its modification time moved on"
            }
            .into(),
        );
    }
    changed.push("content");
    words.push(match now {
        Some(_) => "its text is not the text that was read".into(),
        None => "its content no longer decodes as text".into(),
    });
    ToolError::new(
        Code::Stale,
        format!(
            "File has been modified since read: {}. The change was not made through this \
             session (its own writes count as read); another program or another session made \
             it. Read it again before attempting to write it.",
            join(&words)
        ),
    )
    .with(
        "changed",
        Value::from(changed.into_iter().map(Value::from).collect::<Vec<_>>()),
    )
}

/// `a`, `a and b`, `a, b and c`.
fn join(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::Kind;

    fn meta(len: u64, mtime_ns: i128, ino: u64) -> Meta {
        Meta {
            kind: Kind::File,
            len,
            mtime_ns,
            mode: 0o644,
            nlink: 1,
            dev: 1,
            ino,
            uid: 0,
            gid: 0,
        }
    }

    /// SESSION-7: the message names each thing that differs from the read, in words and in
    /// the `changed` field, and blames nobody it cannot know.
    #[test]
    fn session_7_stale_names_what_changed() {
        let read = Entry::full(Fingerprint::of("a\n"), &meta(2, 10, 5));
        let e = since_read(&read, &meta(4, 20, 6), Some(Fingerprint::of("abc\n")));
        assert_eq!(e.code, Code::Stale);
        assert!(e.message.starts_with("File has been modified since read: it was replaced by another file, its size went from 2 to 4 bytes, its modification time moved on and its text is not the text that was read."), "{}", e.message);
        assert!(!e.message.contains("user"), "{}", e.message);
        assert!(!e.message.contains("linter"), "{}", e.message);
        assert_eq!(
            e.fields["changed"],
            serde_json::json!(["identity", "size", "mtime", "content"])
        );
        let back = since_read(&read, &meta(2, 5, 5), None);
        assert!(back.message.starts_with("File has been modified since read: its modification time went back and its content no longer decodes as text."), "{}", back.message);
        assert_eq!(
            back.fields["changed"],
            serde_json::json!(["mtime", "content"])
        );
    }
}
