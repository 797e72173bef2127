//! What a difference between two trees is, in general terms: an entry left or missing, a
//! symlink replaced, a mode, a hard link split or made — and for two files, *how* their bytes
//! differ (an encoding or a BOM
//! lost, line endings changed outside the edit or in the new text, a final line break, quotes,
//! whitespace, bytes outside the edit). The name is a kind of disagreement ([`super::compare`]).

use super::observe::Tree;
use crate::sandbox::Actual;

/// One entry of two trees that differs: its path, the kind and the particulars.
pub(super) struct EntryDiff {
    /// The entry's key in the tree.
    pub(super) key: String,
    /// The kind, in general terms.
    pub(super) kind: String,
    /// Path and what each side left.
    pub(super) detail: String,
}

/// Every entry where `got` differs from `want`, `before` being the reference's tree before
/// the step that led to them.
pub(super) fn tree(before: &Tree, want: &Tree, got: &Tree) -> Vec<EntryDiff> {
    let mut out = entries(before, want, got);
    // Which names are one file: a name that is another's twin on one side only.
    let names: std::collections::BTreeSet<&String> =
        want.twins.keys().chain(got.twins.keys()).collect();
    for key in names {
        let (w, g) = (want.twins.get(key), got.twins.get(key));
        if w == g || out.iter().any(|d| d.key == *key) {
            continue;
        }
        let path = key.strip_prefix("sandbox/").unwrap_or(key);
        let name = |t: Option<&String>| {
            t.map_or("no other name".to_string(), |t| {
                t.strip_prefix("sandbox/").unwrap_or(t).to_string()
            })
        };
        out.push(EntryDiff {
            key: key.clone(),
            kind: match (w, g) {
                (Some(_), None) => "a hard link was split".into(),
                (None, Some(_)) => "names the reference keeps apart are one file".into(),
                _ => "a hard link joins other names".into(),
            },
            detail: format!(
                "{path}: the reference leaves it one file with {}, the implementation with {}",
                name(w),
                name(g)
            ),
        });
    }
    out
}

/// The entries that differ, by content, kind, mode or link target.
fn entries(before: &Tree, want: &Tree, got: &Tree) -> Vec<EntryDiff> {
    let (before, want, got) = (&before.entries, &want.entries, &got.entries);
    let mut out = Vec::new();
    let keys: std::collections::BTreeSet<&String> = want.keys().chain(got.keys()).collect();
    for key in keys {
        let (want, got) = (
            want.get(key).unwrap_or(&Actual::Absent),
            got.get(key).unwrap_or(&Actual::Absent),
        );
        if want == got {
            continue;
        }
        let path = key.strip_prefix("sandbox/").unwrap_or(key);
        let before = match before.get(key) {
            Some(Actual::File { bytes, .. }) => Some(bytes.as_slice()),
            _ => None,
        };
        let kind = match (want, got) {
            (Actual::File { bytes: a, mode: ma }, Actual::File { bytes: b, mode: mb }) => {
                if a == b {
                    out.push(EntryDiff {
                        key: key.clone(),
                        kind: "the file's mode differs".into(),
                        detail: format!("{path}: mode {ma:o} expected, {mb:o} found"),
                    });
                    continue;
                } else {
                    bytes_kind(before, a, b).to_string()
                }
            }
            (Actual::Absent, _) => "an entry the reference does not leave is left".into(),
            (_, Actual::Absent) => "an entry the reference leaves is missing".into(),
            (Actual::Symlink(_), Actual::File { .. }) => "a symlink was replaced by a file".into(),
            (Actual::Symlink(a), Actual::Symlink(b)) if a != b => {
                "a symlink points elsewhere".into()
            }
            (Actual::Dir(a), Actual::Dir(b)) => {
                out.push(EntryDiff {
                    key: key.clone(),
                    kind: "a directory's mode differs".into(),
                    detail: format!("{path}: mode {a:o} expected, {b:o} found"),
                });
                continue;
            }
            _ => "an entry is of another type".into(),
        };
        out.push(EntryDiff {
            key: key.clone(),
            kind,
            detail: format!("{path}: {}", entry_pair(want, got)),
        });
    }
    out
}

/// The two entries, shortly, for a detail line.
fn entry_pair(want: &Actual, got: &Actual) -> String {
    let show = |a: &Actual| match a {
        Actual::File { bytes, .. } => crate::check::escape_bytes(&bytes[..bytes.len().min(160)]),
        other => format!("{other:?}"),
    };
    format!(
        "the reference leaves {}, the implementation {}",
        show(want),
        show(got)
    )
}

/// The UTF-8 BOM.
const BOM8: &[u8] = b"\xEF\xBB\xBF";

/// Why two files' bytes differ, in general terms. `before` is the file before the case.
pub fn bytes_kind(before: Option<&[u8]>, want: &[u8], got: &[u8]) -> &'static str {
    if before == Some(got) {
        return "bytes: the file is unchanged where the reference changed it";
    }
    if before == Some(want) {
        return "bytes: the file is changed where the reference leaves it as it was";
    }
    let utf16 = |b: &[u8]| b.starts_with(b"\xFF\xFE") || b.starts_with(b"\xFE\xFF");
    if utf16(want) && !utf16(got) {
        return "bytes: a UTF-16 file is no longer UTF-16";
    }
    if want.starts_with(BOM8) && !got.starts_with(BOM8) {
        return if want[3..] == *got {
            "bytes: the UTF-8 BOM was dropped"
        } else {
            "bytes: the UTF-8 BOM was dropped (and more differs)"
        };
    }
    if !want.starts_with(BOM8) && got.starts_with(BOM8) {
        return "bytes: a BOM was added";
    }
    if std::str::from_utf8(want).is_err() && std::str::from_utf8(got).is_ok() {
        return "bytes: a legacy-encoded file was re-encoded as UTF-8";
    }
    let lf = |b: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                i += 1;
                continue;
            }
            out.push(b[i]);
            i += 1;
        }
        out
    };
    if lf(want) == lf(got) {
        return if outside_edit(before, want, got) {
            "bytes: line endings differ outside the edit"
        } else {
            "bytes: line endings of the new text differ"
        };
    }
    let trim = |b: &[u8]| -> Vec<u8> {
        let mut v = b.to_vec();
        while matches!(v.last(), Some(b'\n' | b'\r')) {
            v.pop();
        }
        v
    };
    if trim(want) == trim(got) {
        return "bytes: the final line break differs";
    }
    if breaks_more(want, got) {
        return "bytes: line breaks the reference deletes with the text before them are kept";
    }
    if breaks_more(got, want) {
        return "bytes: line breaks are deleted where the reference keeps them";
    }
    let folded = |b: &[u8]| -> String {
        String::from_utf8_lossy(b)
            .chars()
            .map(|c| match c {
                '\u{201C}' | '\u{201D}' => '"',
                '\u{2018}' | '\u{2019}' => '\'',
                c => c,
            })
            .collect()
    };
    if folded(want) == folded(got) {
        return "bytes: quotes differ";
    }
    let squeezed = |b: &[u8]| -> Vec<u8> {
        b.iter()
            .copied()
            .filter(|c| !matches!(c, b' ' | b'\t'))
            .collect()
    };
    if squeezed(want) == squeezed(got) {
        return "bytes: whitespace differs";
    }
    if outside_edit(before, want, got) {
        "bytes: the file differs outside the edit"
    } else {
        "bytes: the edited text differs"
    }
}

/// Whether `longer` is `shorter` with line breaks (`\n`, `\r`) put in and nothing else — the
/// shape of deletions that did or did not take their line break along (EDIT-2).
fn breaks_more(shorter: &[u8], longer: &[u8]) -> bool {
    if longer.len() <= shorter.len() {
        return false;
    }
    let mut i = 0;
    for &b in longer {
        if shorter.get(i) == Some(&b) {
            i += 1;
        } else if !matches!(b, b'\n' | b'\r') {
            return false;
        }
    }
    i == shorter.len()
}

/// Whether every byte where `got` departs from `want` lies outside the range the reference
/// changed (`before` → `want`); a new file has no outside.
fn outside_edit(before: Option<&[u8]>, want: &[u8], got: &[u8]) -> bool {
    let Some(before) = before else { return false };
    let (p1, s1) = common_ends(before, want);
    let (p2, s2) = common_ends(want, got);
    let edit = (p1, want.len() - s1);
    let diff = (p2, want.len().saturating_sub(s2).max(p2));
    // Touching counts as inside: a deletion is an empty range, and what happens right at its
    // edges (the line break after it, EDIT-2) belongs to the edit.
    diff.1 < edit.0 || diff.0 > edit.1
}

/// The lengths of the common prefix and of the common suffix (not overlapping it).
fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max = a.len().min(b.len()) - p;
    let s = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max)
        .take_while(|(x, y)| x == y)
        .count();
    (p, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_told_apart_by_what_changed() {
        let before = b"one\r\ntwo\r\nthree\r\n".as_slice();
        let want = b"one\r\nTWO\r\nthree\r\n".as_slice();
        assert_eq!(
            bytes_kind(Some(before), want, b"one\nTWO\r\nthree\r\n"),
            "bytes: line endings differ outside the edit"
        );
        assert_eq!(
            bytes_kind(
                Some(before),
                b"one\r\nTWO\r\nMORE\r\nthree\r\n",
                b"one\r\nTWO\nMORE\r\nthree\r\n"
            ),
            "bytes: line endings of the new text differ"
        );
        assert_eq!(
            bytes_kind(Some(before), want, before),
            "bytes: the file is unchanged where the reference changed it"
        );
        assert_eq!(
            bytes_kind(Some(before), want, b"one\r\nTWO\r\nthree"),
            "bytes: the final line break differs"
        );
        assert_eq!(
            bytes_kind(Some(before), want, b"ONE\r\nTWO\r\nthree\r\n"),
            "bytes: the file differs outside the edit"
        );
        assert_eq!(
            bytes_kind(Some(before), want, b"one\r\nTW0\r\nthree\r\n"),
            "bytes: the edited text differs"
        );
        assert_eq!(
            bytes_kind(Some(b"ame>\n<fu\n"), b"ame<fu\n", b"ame\n<fu\n"),
            "bytes: line breaks the reference deletes with the text before them are kept"
        );
        assert_eq!(
            bytes_kind(Some(b"a>\nb>\nc\n"), b"abc\n", b"a\nb\nc\n"),
            "bytes: line breaks the reference deletes with the text before them are kept"
        );
        assert_eq!(
            bytes_kind(Some(b"ab\r\ncd\r\n"), b"a\r\ncd\r\n", b"acd\r\n"),
            "bytes: line breaks are deleted where the reference keeps them"
        );
        assert_eq!(
            bytes_kind(Some(b"\xEF\xBB\xBFa\n"), b"\xEF\xBB\xBFb\n", b"b\n"),
            "bytes: the UTF-8 BOM was dropped"
        );
        assert_eq!(
            bytes_kind(Some(b"\xFF\xFEa\x00"), b"\xFF\xFEb\x00", b"b"),
            "bytes: a UTF-16 file is no longer UTF-16"
        );
        assert_eq!(
            bytes_kind(Some(b"caf\xE9\n"), b"caf\xE9!\n", "café!\n".as_bytes()),
            "bytes: a legacy-encoded file was re-encoded as UTF-8"
        );
    }
}
