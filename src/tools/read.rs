//! Read (READ-1..7): numbered lines of text files, images and PDFs as base64, notebooks as
//! cells. Every text read is recorded in the session so that later writes can be checked
//! (SESSION-1, READ-3, READ-4).

use super::{decode_error, human_size, load, not_found, stat};
use crate::api::{FileRef, ReadInput, ReadOutput, TextFile};
use crate::disk::Kind;
use crate::error::{Code, ToolError, ToolResult};
use crate::session::{Entry, LineFormat, Scope, Session};
use crate::text::{Document, Fingerprint};
use base64::Engine as _;

/// READ-5: device paths that would block or never end.
const BLOCKED: [&str; 12] = [
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
    "/dev/stdin",
    "/dev/tty",
    "/dev/console",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/0",
    "/dev/fd/1",
    "/dev/fd/2",
];

fn blocked(path: &str) -> bool {
    BLOCKED.contains(&path)
        || (path.starts_with("/proc/")
            && (path.ends_with("/fd/0") || path.ends_with("/fd/1") || path.ends_with("/fd/2")))
}

fn blocked_error(given: &str) -> ToolError {
    ToolError::new(
        Code::BlockedPath,
        format!("Cannot read '{given}': this device file would block or produce infinite output."),
    )
}

/// READ-6: `pages` is `N` or `N-M`, 1-based, at most 20 pages.
fn check_pages(pages: &str) -> ToolResult<()> {
    let bad = || {
        ToolError::invalid_input(format!(
            "Invalid pages parameter: \"{pages}\". Use formats like \"1-5\", \"3\", or \"10-20\". Pages are 1-indexed."
        ))
        .with("field", "pages")
    };
    let (a, b) = match pages.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (pages.trim(), pages.trim()),
    };
    let a: u64 = a.parse().map_err(|_| bad())?;
    let b: u64 = b.parse().map_err(|_| bad())?;
    if a == 0 || b < a {
        return Err(bad());
    }
    if b - a + 1 > 20 {
        return Err(ToolError::invalid_input(format!(
            "Page range \"{pages}\" exceeds maximum of 20 pages per request. Please use a smaller range."
        ))
        .with("field", "pages"));
    }
    Ok(())
}

fn image_type(ext: &str) -> Option<&'static str> {
    match ext {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        _ => None,
    }
}

/// Runs Read.
pub fn run(session: &Session, input: ReadInput) -> ToolResult<ReadOutput> {
    let ReadInput {
        file_path: path,
        offset,
        limit,
        pages,
    } = input;
    if limit == Some(0) {
        return Err(
            ToolError::invalid_input("The parameter `limit` of Read must be at least 1.")
                .with("field", "limit"),
        );
    }
    if let Some(p) = &pages {
        check_pages(p)?;
    }
    // READ-7: blocked devices before root confinement.
    let lexical = session.lexical(&path)?;
    if blocked(&path) || blocked(&lexical.to_string_lossy()) {
        return Err(blocked_error(&path));
    }
    let r = session.resolve(&path)?;
    let _turn = session.read_turn(&r.target); // SESSION-6
    if blocked(&r.target.to_string_lossy()) {
        return Err(blocked_error(&path));
    }
    if !r.exists {
        return Err(not_found(session, &r));
    }
    let meta = stat(session, &r)?;
    match meta.kind {
        Kind::Dir => {
            return Err(ToolError::new(
                Code::IsDirectory,
                format!("'{path}' is a directory. Read a file inside it; list directories with another tool."),
            ))
        }
        Kind::File => {}
        _ => return Err(blocked_error(&path)),
    }
    let ext = r
        .target
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if let Some(media) = image_type(&ext) {
        let loaded = load(session, &r, session.config().max_load_size)?;
        return Ok(ReadOutput::Image {
            base64: base64::engine::general_purpose::STANDARD.encode(&loaded.bytes),
            media_type: media.to_string(),
            original_size: loaded.bytes.len() as u64,
        });
    }
    if ext == "pdf" {
        let loaded = load(session, &r, session.config().max_load_size)?;
        return Ok(ReadOutput::Pdf {
            base64: base64::engine::general_purpose::STANDARD.encode(&loaded.bytes),
            original_size: loaded.bytes.len() as u64,
        });
    }
    if ext == "ipynb" {
        return super::notebook::read_cells(session, &r);
    }
    // READ-2.
    if limit.is_none() && meta.len > session.config().max_read_size {
        return Err(ToolError::new(
            Code::TooLarge,
            format!(
                "File content ({}) exceeds maximum allowed size ({}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.",
                human_size(meta.len),
                human_size(session.config().max_read_size)
            ),
        ));
    }
    let offset = offset.unwrap_or(1).max(1);
    // READ-4: the same range of an unchanged file.
    if let Some(e) = session.entry(&r.target) {
        if e.last_read == Some((offset, limit)) && e.same_meta(&meta) {
            return Ok(ReadOutput::FileUnchanged {
                file: FileRef { file_path: path },
            });
        }
    }
    let loaded = load(session, &r, session.config().max_load_size)?;
    let doc = Document::decode(&loaded.bytes).map_err(|e| decode_error(e, &path))?;
    let view = doc.view();
    let start = (offset - 1) as usize;
    // READ-1's line count and where the range starts, in one pass over the breaks.
    let (at, breaks) = crate::text::line_start_and_breaks(view, start);
    let total = if view.is_empty() {
        0
    } else {
        breaks + usize::from(!view.ends_with('\n'))
    };
    let end = match limit {
        Some(l) => start.saturating_add(l as usize).min(total),
        None => total,
    };
    let content = match at {
        Some(at) => numbered(
            &view[at..],
            end.saturating_sub(start),
            offset,
            session.config().line_format,
        ),
        None => String::new(),
    };
    let shown = end.saturating_sub(start);
    // READ-3: full unless the range cuts the file; partial ranges add up.
    let range_full = start == 0 && end >= total;
    // The fingerprint serves only staleness checks; a session without read-before-write
    // (one-shot use) never makes them, and hashing a large file costs a pass over it.
    let fingerprint = if session.config().read_before_write {
        doc.fingerprint()
    } else {
        Fingerprint {
            hash: 0,
            len: view.len() as u64,
        }
    };
    let scope = if range_full {
        Scope::Full
    } else {
        let mut covered = match session.entry(&r.target) {
            Some(Entry {
                scope: Scope::Partial { covered, .. },
                fingerprint: f,
                ..
            }) if f == fingerprint => covered,
            _ => Vec::new(),
        };
        if end > start {
            covered.push((start as u64 + 1, end as u64));
        }
        merge(&mut covered);
        if covered.first() == Some(&(1, total as u64)) {
            Scope::Full
        } else {
            Scope::Partial {
                covered,
                total: total as u64,
            }
        }
    };
    let mut entry = Entry::full(fingerprint, &loaded.meta);
    entry.scope = scope;
    entry.last_read = Some((offset, limit));
    session.remember(&r.target, entry);
    Ok(ReadOutput::Text {
        file: TextFile {
            file_path: path,
            content,
            num_lines: shown as u64,
            start_line: offset,
            total_lines: total as u64,
        },
    })
}

/// READ-1: lines in a text; a final line break does not start another line.
pub fn line_count(view: &str) -> usize {
    if view.is_empty() {
        return 0;
    }
    let breaks = memchr::memchr_iter(b'\n', view.as_bytes()).count();
    if view.ends_with('\n') {
        breaks
    } else {
        breaks + 1
    }
}

/// The first `count` lines of `from` (a view from a line start), each with its number prefix
/// (the first numbered `first`), joined by `\n`.
fn numbered(from: &str, count: usize, first: u64, format: LineFormat) -> String {
    if count == 0 {
        return String::new();
    }
    let mut out = String::new();
    for (n, line) in (first..).zip(from.split('\n').take(count)) {
        if n != first {
            out.push('\n');
        }
        match format {
            LineFormat::Compact => out.push_str(&format!("{n}\t")),
            LineFormat::Arrow => out.push_str(&format!("{n:>6}\u{2192}")),
        }
        out.push_str(line);
    }
    out
}

/// Merges overlapping or adjacent 1-based inclusive ranges.
fn merge(ranges: &mut Vec<(u64, u64)>) {
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for &(a, b) in ranges.iter() {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    *ranges = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_1_no_phantom_last_line() {
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("a\n"), 1);
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(numbered("a\nb\n", 2, 1, LineFormat::Compact), "1\ta\n2\tb");
        assert_eq!(numbered("b\nc", 1, 2, LineFormat::Arrow), "     2\u{2192}b");
    }

    #[test]
    fn read_3_ranges_merge() {
        let mut r = vec![(5, 9), (1, 4), (11, 12)];
        merge(&mut r);
        assert_eq!(r, vec![(1, 9), (11, 12)]);
    }

    #[test]
    fn read_6_pages_are_validated() {
        assert!(check_pages("3").is_ok());
        assert!(check_pages("1-20").is_ok());
        assert!(check_pages("1-21").is_err());
        assert!(check_pages("0").is_err());
        assert!(check_pages("x").is_err());
    }
}
