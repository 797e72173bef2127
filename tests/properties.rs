//! Properties of the pure engine against a deliberately naive model (no memchr, no piece table,
//! no offset maps): bytes outside the edit never change, a unique edit followed by its inverse
//! restores the file, and replace_all writes the naive model's bytes and count. The last
//! property runs the Edit tool itself on CRLF files, where most edits are found in the stored
//! text and applied to a window of the file's lines rather than to its whole LF view, and checks
//! its structuredPatch and diff by applying them to the old lines (`property_support/patch.rs`).
//!
//! Texts, needles and replacements hold straight and curly quotes, needles line breaks, and
//! replacements may be empty, so the model has MATCH-2's quote folding, MATCH-4's restyling and
//! EDIT-2's swallowed line break (`property_support/matching.rs` and `model_edit` here).

#[path = "property_support/mod.rs"]
mod property_support;

use editref::api::{EditInput, ReadInput, WriteInput};
use editref::engine::{apply, EditRequest};
use editref::text::{concat, Document};
use editref::{Code, Config, Session};
use property_support::matching::{find, fold, restyle};
use property_support::{patch, splice};
use proptest::prelude::*;

/// The naive LF view and, for each view byte, the raw offset where it starts (the LF of a
/// CRLF starts at its CR: the pair is one line break).
fn naive_view(raw: &str) -> (String, Vec<usize>) {
    let b = raw.as_bytes();
    let mut view = String::new();
    let mut map = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            map.push(i);
            view.push('\n');
            i += 2;
            continue;
        }
        let c = raw[i..].chars().next().unwrap();
        for k in 0..c.len_utf8() {
            map.push(i + k);
        }
        view.push(c);
        i += c.len_utf8();
    }
    map.push(b.len());
    (view, map)
}

fn dominant_crlf(raw: &str) -> bool {
    let crlf = raw.matches("\r\n").count();
    let lf = raw.matches('\n').count() - crlf;
    crlf > lf
}

fn run(raw: &str, old: &str, new: &str, all: bool) -> Result<Vec<u8>, Code> {
    let doc = Document::decode(raw.as_bytes()).map_err(|_| Code::Encoding)?;
    let req = EditRequest::new(old, new, all);
    let applied = apply(doc.view(), &[req]).map_err(|f| f.error.code)?;
    Ok(concat(&doc.render(&applied.replacements).unwrap()))
}

/// What the model makes of one edit of a raw UTF-8 text.
#[derive(Debug)]
struct Modelled {
    /// The new raw bytes.
    bytes: Vec<u8>,
    /// The hits replaced.
    count: usize,
    /// The replaced spans of the LF view and the text each became.
    spans: Vec<(usize, usize, String)>,
}

/// The model of an edit (`old` as the tool reads it, TEXT-5) on raw text: `no_change` when the strings are the
/// same (EDIT-1 step 2); the hits in the LF view by MATCH-1, or by MATCH-2's folding when
/// MATCH-1 finds none (MATCH-3: `not_found`, `ambiguous`); each hit's text restyled after the
/// file when it was found by folding (MATCH-4); a deletion of text without a final break takes
/// the break after it unless the next hit begins with it (EDIT-2); the raw bytes between hits
/// copied as they are, and each inserted LF written as the dominant ending (TEXT-6).
fn model_edit(raw: &str, old: &str, new: &str, all: bool) -> Result<Modelled, Code> {
    if old == new {
        return Err(Code::NoChange);
    }
    let (view, map) = naive_view(raw);
    let (hits, folded) = find(&view, old);
    match hits.len() {
        0 => return Err(Code::NotFound),
        1 => {}
        _ if all => {}
        _ => return Err(Code::Ambiguous),
    }
    let eat = new.is_empty() && !old.ends_with('\n');
    let crlf = dominant_crlf(raw);
    let mut bytes = Vec::new();
    let mut spans = Vec::new();
    let mut at = 0;
    for (k, &(s, e)) in hits.iter().enumerate() {
        let written = if folded {
            restyle(
                new,
                &view[s..e],
                view[..s].chars().next_back(),
                view[e..].chars().next(),
            )
        } else {
            new.to_string()
        };
        let next_starts_here = hits.get(k + 1).is_some_and(|&(n, _)| n == e);
        let end = if eat && view[e..].starts_with('\n') && !next_starts_here {
            e + 1
        } else {
            e
        };
        bytes.extend_from_slice(&raw.as_bytes()[at..map[s]]);
        let inserted = if crlf {
            written.replace('\n', "\r\n")
        } else {
            written.clone()
        };
        bytes.extend_from_slice(inserted.as_bytes());
        at = map[end];
        spans.push((s, end, written));
    }
    bytes.extend_from_slice(&raw.as_bytes()[at..]);
    Ok(Modelled {
        bytes,
        count: hits.len(),
        spans,
    })
}

/// Text made of a small alphabet so that collisions, CRLF, lone CR, repeats and quotes of both
/// kinds (and what opens one, also right before a quote) are frequent.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => Just("a"),
            3 => Just("b"),
            2 => Just("ab"),
            2 => Just(" "),
            2 => Just("\n"),
            2 => Just("\r\n"),
            1 => Just("\r"),
            1 => Just("é"),
            1 => Just("x"),
            1 => Just("("),
            1 => Just("\u{2014}"),
            1 => Just("(\u{201C}"),
            1 => Just("\u{2014}\u{2018}"),
            1 => Just("'"),
            1 => Just("\""),
            2 => Just("\u{2018}"),
            2 => Just("\u{2019}"),
            2 => Just("\u{201C}"),
            2 => Just("\u{201D}"),
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

/// Needles: short, with line breaks and quotes of both kinds (a straight one finds a curly one
/// in the file only through MATCH-2).
fn needle() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => Just("a"),
            3 => Just("b"),
            1 => Just("x"),
            1 => Just(" "),
            1 => Just("é"),
            2 => Just("\n"),
            1 => Just("'"),
            1 => Just("\""),
            1 => Just("\u{2019}"),
            1 => Just("\u{201C}"),
        ],
        1..4,
    )
    .prop_map(|v| v.concat())
}

/// Replacements: empty (a deletion) or a few pieces, with line breaks and straight quotes for
/// MATCH-4 to curl.
fn replacement() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            2 => Just("Z"),
            2 => Just("y"),
            2 => Just("\n"),
            1 => Just("ü"),
            2 => Just("'"),
            2 => Just("\""),
        ],
        0..4,
    )
    .prop_map(|v| v.concat())
}

/// A text and an edit of it: `old_string` a needle drawn on its own (mostly `not_found`), or
/// more often up to a few characters cut from the text's LF view — as they are, or retyped with
/// straight quotes, which only MATCH-2 finds again — and a replacement.
fn edit_case() -> impl Strategy<Value = (String, String, String)> {
    let cut = (any::<prop::sample::Index>(), 1usize..6, any::<bool>());
    (
        text(),
        needle(),
        proptest::option::weighted(0.7, cut),
        replacement(),
    )
        .prop_map(|(raw, needle, cut, new)| {
            let view: Vec<char> = naive_view(&raw).0.chars().collect();
            let old = match cut {
                Some((at, len, retype)) if !view.is_empty() => {
                    let from = at.index(view.len());
                    let cut = view[from..(from + len).min(view.len())].iter();
                    let cut: String = if retype {
                        cut.map(|&c| fold(c)).collect()
                    } else {
                        cut.collect()
                    };
                    // As the model sends it: the engine reads a CRLF in it as LF (TEXT-5),
                    // once, and the model is given the string so read (`read_as_lf`). A lone
                    // CR before a break in the view makes `\r\r\n`, read as `\r\n`.
                    cut
                }
                _ => needle,
            };
            (raw, old, new)
        })
}

/// A string as the tool reads it (TEXT-5): each CRLF made LF, in one pass, as the tool does
/// once; `\r\r\n` becomes `\r\n`, which is not read again.
fn read_as_lf(s: &str) -> String {
    s.replace("\r\n", "\n")
}

/// A CRLF file: lines of a small alphabet (a lone CR and quotes among them) joined by CRLF,
/// one break an LF-only one when `lone_lf` names it, the last line with or without a break.
fn crlf_file() -> impl Strategy<Value = String> {
    let line = proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("ab"),
            Just(" "),
            Just("é"),
            Just("x"),
            Just("\r"),
            Just("'"),
            Just("\u{2019}"),
            Just("\u{201C}"),
            Just("\u{201D}"),
        ],
        0..6,
    )
    .prop_map(|v| v.concat());
    (
        proptest::collection::vec(line, 1..25),
        proptest::option::of(any::<prop::sample::Index>()),
        any::<bool>(),
    )
        .prop_map(|(lines, lone_lf, last_break)| {
            let lone = lone_lf.map(|i| i.index(lines.len()));
            let mut raw = String::new();
            for (i, l) in lines.iter().enumerate() {
                raw.push_str(l);
                if i + 1 < lines.len() || last_break {
                    raw.push_str(if Some(i) == lone { "\n" } else { "\r\n" });
                }
            }
            raw
        })
}

/// A session on a fresh directory holding `raw` as `f.txt`, the file read in full.
fn read_file(raw: &[u8]) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), raw).unwrap();
    let mut config = Config::new(dir.path()).with_root(dir.path());
    config.fsync = false;
    config.undo = None;
    let session = Session::new(config);
    session.read(ReadInput::new("f.txt")).unwrap();
    (dir, session)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// TEXT-3, TEXT-5, TEXT-6, MATCH-1..4, EDIT-2, EDIT-3, EDIT-4, EDIT-6 through the Edit tool
    /// on CRLF files — in UTF-8, or UTF-16 of either byte order, and without their CRs — with
    /// `old_string` cut from the LF view (one line or several, at any place), sometimes retyped
    /// with straight quotes: the bytes on disk are the naive model's; a refusal leaves the file
    /// as it was; the structuredPatch, applied to the old view's lines, gives the new view, with
    /// its lines numbered from the file's start and the context EDIT-6 asks for, and the diff is
    /// those hunks; and the text the session remembers is the file's (a Write after the file
    /// was replaced by a copy of itself, which makes the session compare the content, is not
    /// stale).
    #[test]
    fn edit_tool_on_crlf_files_writes_the_models_bytes(
        raw in crlf_file(),
        strip_cr in any::<bool>(),
        utf16 in proptest::option::of(any::<bool>()),
        from in any::<prop::sample::Index>(),
        len in 1usize..14,
        retype in any::<bool>(),
        new in replacement(),
        all in any::<bool>(),
    ) {
        let raw = if strip_cr { raw.replace('\r', "") } else { raw };
        // The file's bytes for a text: UTF-8, or UTF-16 with its BOM (big endian or not).
        let stored = |text: &[u8]| -> Vec<u8> {
            let Some(big_endian) = utf16 else { return text.to_vec() };
            let text = std::str::from_utf8(text).unwrap();
            let mut out = if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
            for u in text.encode_utf16() {
                out.extend_from_slice(&if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            out
        };
        let (view, _) = naive_view(&raw);
        prop_assume!(!view.is_empty());
        let mut s = from.index(view.len());
        while !view.is_char_boundary(s) {
            s -= 1;
        }
        let mut e = (s + len).min(view.len());
        while !view.is_char_boundary(e) {
            e += 1;
        }
        // As a model retypes it: curly quotes straightened, which only MATCH-2 finds again.
        let cut = if retype { view[s..e].chars().map(fold).collect() } else { view[s..e].to_string() };
        // The tool reads a CRLF the cut holds (a lone CR before a break) as LF (TEXT-5).
        let old = cut.replace("\r\n", "\n");
        let (dir, session) = read_file(&stored(raw.as_bytes()));
        let path = dir.path().join("f.txt");
        let mut input = EditInput::new("f.txt", &cut, &new);
        input.replace_all = all;
        let got = session.edit(input);
        let want = match model_edit(&raw, &old, &new, all) {
            Err(code) => {
                prop_assert_eq!(got.map(|_| ()).map_err(|e| e.code), Err(code));
                prop_assert_eq!(std::fs::read(&path).unwrap(), stored(raw.as_bytes()));
                return Ok(());
            }
            Ok(m) => m,
        };
        let out = got.map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let bytes = stored(&want.bytes);
        prop_assert_eq!(std::fs::read(&path).unwrap(), bytes.clone());
        prop_assert_eq!(out.replacements, want.count);
        let new_view = splice(&view, &want.spans);
        let p = out.change.patch();
        patch::check("f.txt", &view, &new_view, &p.hunks(), p.diff()).map_err(TestCaseError::fail)?;
        let copy = dir.path().join("copy");
        std::fs::write(&copy, &bytes).unwrap();
        std::fs::rename(&copy, &path).unwrap();
        session.write(WriteInput::new("f.txt", "done")).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(std::fs::read(&path).unwrap(), stored(b"done"));
    }

    /// TEXT-6, MATCH-1..4, EDIT-2: outside the replaced span every raw byte is identical;
    /// inside, the new text (restyled when found by folding) with LF written as the dominant
    /// ending, and a deletion takes the break after it. Refusals are the model's.
    #[test]
    fn bytes_outside_the_edit_are_unchanged((raw, old, new) in edit_case()) {
        let want = model_edit(&raw, &read_as_lf(&old), &new, false).map(|m| m.bytes);
        prop_assert_eq!(run(&raw, &old, &new, false), want);
    }

    /// A unique edit followed by its inverse restores the original bytes. Markers that occur
    /// nowhere else make `old` unique in the file and `new` unique in the result. A line break
    /// in `old` comes back as the edited file's dominant ending: as it was when that is LF
    /// (the break was typed as LF), as CRLF otherwise, where only the LF view is restored.
    #[test]
    fn unique_edit_then_inverse_restores(
        before in text(), after in text(), n in needle(), r in replacement()
    ) {
        let old = format!("Q{n}");
        let new = format!("W{r}");
        let raw = format!("{before}{old}{after}");
        let once = run(&raw, &old, &new, false).unwrap();
        let once = String::from_utf8(once).unwrap();
        let back = run(&once, &new, &old, false).unwrap();
        if old.contains('\n') && dominant_crlf(&once) {
            let back = String::from_utf8(back).unwrap();
            prop_assert_eq!(naive_view(&back).0, naive_view(&raw).0);
        } else {
            prop_assert_eq!(back, raw.as_bytes().to_vec());
        }
    }

    /// MATCH-1..4, EDIT-2, EDIT-3, TEXT-6: replace_all rewrites every naive non-overlapping hit,
    /// left to right, and nothing else: the bytes are the model's bytes and the count is its
    /// count.
    #[test]
    fn replace_all_bytes_and_count_are_the_models((raw, old, new) in edit_case()) {
        let doc = Document::decode(raw.as_bytes()).unwrap();
        let req = EditRequest::new(&old, &new, true);
        let got = apply(doc.view(), &[req]).map(|a| {
            (concat(&doc.render(&a.replacements).unwrap()), a.edits[0].replacements)
        });
        let want = model_edit(&raw, &read_as_lf(&old), &new, true).map(|m| (m.bytes, m.count));
        prop_assert_eq!(got.map_err(|f| f.error.code), want);
    }

    /// The same with the simplest model there is: on text with no CR at all, a replace_all
    /// whose `old_string` occurs as typed and whose `new_string` is not empty (no EDIT-2) is
    /// `str::replace`, and `run` (decode, apply, render) gives its bytes.
    #[test]
    fn replace_all_on_lf_text_is_str_replace((raw, old, new) in edit_case()) {
        let raw = raw.replace('\r', "");
        // No CR in the needle either, so that the engine's TEXT-5 reading leaves it as it is.
        let old = old.replace('\r', "");
        prop_assume!(!old.is_empty());
        let new = if new.is_empty() { "Z".to_string() } else { new };
        let count = raw.matches(old.as_str()).count();
        let got = run(&raw, &old, &new, true);
        if old == new {
            prop_assert_eq!(got, Err(Code::NoChange));
        } else if count > 0 {
            prop_assert_eq!(got, Ok(raw.replace(old.as_str(), &new).into_bytes()));
        } else if find(&raw, &old).0.is_empty() {
            prop_assert_eq!(got, Err(Code::NotFound));
        }
    }

    /// TEXT-2: every accepted byte string renders back to itself when nothing is replaced.
    #[test]
    fn decode_render_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(doc) = Document::decode(&bytes) {
            prop_assert_eq!(concat(&doc.render(&[]).unwrap()), bytes);
        }
    }
}
