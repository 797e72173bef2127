//! Properties of the pure engine against a deliberately naive model (no memchr, no piece table,
//! no offset maps): bytes outside the edit never change, a unique edit followed by its inverse
//! restores the file, and replace_all writes the naive model's bytes and count. The last
//! property runs the Edit tool itself on CRLF files, where most edits are found in the stored
//! text and applied to a window of the file's lines rather than to its whole LF view.

use editref::api::{EditInput, ReadInput, WriteInput};
use editref::engine::{apply, EditRequest};
use editref::patch::structured_patch;
use editref::text::{concat, Document, Replacement};
use editref::{Code, Config, Session};
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

/// Naive non-overlapping left-to-right occurrence positions.
fn naive_find(hay: &str, needle: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay.is_char_boundary(i) && hay[i..].starts_with(needle) {
            out.push(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

fn dominant_crlf(raw: &str) -> bool {
    let crlf = raw.matches("\r\n").count();
    let lf = raw.matches('\n').count() - crlf;
    crlf > lf
}

fn run(raw: &str, old: &str, new: &str, all: bool) -> Result<Vec<u8>, editref::Code> {
    let doc = Document::decode(raw.as_bytes()).map_err(|_| editref::Code::Encoding)?;
    let req = EditRequest::new(old, new, all);
    let applied = apply(doc.view(), &[req]).map_err(|f| f.error.code)?;
    Ok(concat(&doc.render(&applied.replacements).unwrap()))
}

/// The model of replace_all on raw text: every naive hit in the LF view is replaced, the raw
/// bytes between hits are copied as they are, and each inserted LF becomes the dominant ending.
/// The generators never put a line break in `old` and never leave `new` empty, so neither
/// EDIT-2's swallowed line break nor a hit across a CRLF comes up. Returns the bytes and the
/// number of hits.
fn model_replace_all(raw: &str, old: &str, new: &str) -> (Vec<u8>, usize) {
    let (view, map) = naive_view(raw);
    let hits = naive_find(&view, old);
    let inserted = if dominant_crlf(raw) {
        new.replace('\n', "\r\n")
    } else {
        new.to_string()
    };
    let mut out = Vec::new();
    let mut at = 0;
    for &h in &hits {
        out.extend_from_slice(&raw.as_bytes()[at..map[h]]);
        out.extend_from_slice(inserted.as_bytes());
        at = map[h + old.len()];
    }
    out.extend_from_slice(&raw.as_bytes()[at..]);
    (out, hits.len())
}

/// Text made of a small alphabet so that collisions, CRLF, lone CR and repeats are frequent.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("ab"),
            Just(" "),
            Just("\n"),
            Just("\r\n"),
            Just("\r"),
            Just("é"),
            Just("x"),
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

fn needle() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![Just("a"), Just("b"), Just("x"), Just(" "), Just("é")],
        1..4,
    )
    .prop_map(|v| v.concat())
}

fn replacement() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![Just("Z"), Just("y"), Just("\n"), Just("ü")],
        1..4,
    )
    .prop_map(|v| v.concat())
}

/// A CRLF file: lines of a small alphabet (a lone CR among them) joined by CRLF, one break an
/// LF-only one when `lone_lf` names it, the last line with or without a break.
fn crlf_file() -> impl Strategy<Value = String> {
    let line = proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("ab"),
            Just(" "),
            Just("é"),
            Just("x"),
            Just("\r")
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

    /// TEXT-3, TEXT-5, TEXT-6, MATCH-1/3, EDIT-3, EDIT-4, EDIT-6 through the Edit tool on
    /// CRLF files — in UTF-8, or UTF-16 of either byte order, and without their CRs — with
    /// `old_string` cut from the LF view (one line or several, at any place): the bytes on
    /// disk are the naive model's; a refusal leaves the file as it was; the patch is the one
    /// of the whole view, lines numbered from the file's start; and the text the session
    /// remembers is the file's (a Write after the file was replaced by a copy of itself,
    /// which makes the session compare the content, is not stale).
    #[test]
    fn edit_tool_on_crlf_files_writes_the_models_bytes(
        raw in crlf_file(),
        strip_cr in any::<bool>(),
        utf16 in proptest::option::of(any::<bool>()),
        from in any::<prop::sample::Index>(),
        len in 1usize..14,
        new in prop_oneof![replacement(), Just(String::new())],
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
        let (view, map) = naive_view(&raw);
        prop_assume!(!view.is_empty());
        let mut s = from.index(view.len());
        while !view.is_char_boundary(s) {
            s -= 1;
        }
        let mut e = (s + len).min(view.len());
        while !view.is_char_boundary(e) {
            e += 1;
        }
        // The tool reads a CRLF the cut holds (a lone CR before a break) as LF (TEXT-5).
        let cut = &view[s..e];
        let old = cut.replace("\r\n", "\n");
        prop_assume!(old != new);
        let hits = naive_find(&view, &old);
        let (dir, session) = read_file(&stored(raw.as_bytes()));
        let path = dir.path().join("f.txt");
        let mut input = EditInput::new("f.txt", cut, &new);
        input.replace_all = all;
        let got = session.edit(input);
        let refused = match hits.len() {
            0 => Some(Code::NotFound),
            1 => None,
            _ if all => None,
            _ => Some(Code::Ambiguous),
        };
        if let Some(code) = refused {
            prop_assert_eq!(got.map(|_| ()).map_err(|e| e.code), Err(code));
            prop_assert_eq!(std::fs::read(&path).unwrap(), stored(raw.as_bytes()));
            return Ok(());
        }
        let out = got.map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let inserted = if dominant_crlf(&raw) { new.replace('\n', "\r\n") } else { new.clone() };
        let mut want = Vec::new();
        let mut at = 0;
        let mut reps = Vec::new();
        // EDIT-2: a deletion of text without a final break takes the break after it, unless
        // the next hit begins with that break.
        let eat = new.is_empty() && !old.ends_with('\n');
        for (k, &h) in hits.iter().enumerate() {
            let mut end = h + old.len();
            if eat && view.as_bytes().get(end) == Some(&b'\n') && hits.get(k + 1) != Some(&end) {
                end += 1;
            }
            want.extend_from_slice(&raw.as_bytes()[at..map[h]]);
            want.extend_from_slice(inserted.as_bytes());
            at = map[end];
            reps.push(Replacement { start: h, end, text: new.clone() });
        }
        want.extend_from_slice(&raw.as_bytes()[at..]);
        let want = stored(&want);
        prop_assert_eq!(std::fs::read(&path).unwrap(), want.clone());
        prop_assert_eq!(out.replacements, hits.len());
        // The patch the whole view gives: the engine's own spans (it joins touching hits, and
        // a line diff aligns what it is given), so that only where the tool ran can differ.
        let whole = apply(&view, &[EditRequest::new(cut, &new, all)]).unwrap();
        prop_assert_eq!(whole.replacements.len() <= reps.len(), true);
        prop_assert_eq!(out.change.patch().hunks(), structured_patch(&view, &whole.replacements));
        let copy = dir.path().join("copy");
        std::fs::write(&copy, &want).unwrap();
        std::fs::rename(&copy, &path).unwrap();
        session.write(WriteInput::new("f.txt", "done")).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(std::fs::read(&path).unwrap(), stored(b"done"));
    }

    /// TEXT-6, MATCH-1/3: outside the replaced span every raw byte is identical; inside, the new
    /// text with LF written as the dominant ending. Refusals match the naive count.
    #[test]
    fn bytes_outside_the_edit_are_unchanged(raw in text(), old in needle(), new in replacement()) {
        let (view, map) = naive_view(&raw);
        let hits = naive_find(&view, &old);
        let got = run(&raw, &old, &new, false);
        match hits.len() {
            0 => prop_assert_eq!(got, Err(editref::Code::NotFound)),
            1 => {
                let (s, e) = (hits[0], hits[0] + old.len());
                let inserted = if dominant_crlf(&raw) { new.replace('\n', "\r\n") } else { new.clone() };
                let mut want = raw.as_bytes()[..map[s]].to_vec();
                want.extend_from_slice(inserted.as_bytes());
                want.extend_from_slice(&raw.as_bytes()[map[e]..]);
                prop_assert_eq!(got, Ok(want));
            }
            _ => prop_assert_eq!(got, Err(editref::Code::Ambiguous)),
        }
    }

    /// A unique edit followed by its inverse restores the original bytes. Markers that occur
    /// nowhere else make `old` unique in the file and `new` unique in the result.
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
        prop_assert_eq!(back, raw.as_bytes().to_vec());
    }

    /// MATCH-1, EDIT-3, TEXT-6: replace_all rewrites every naive non-overlapping hit, left to
    /// right, and nothing else: the bytes are the model's bytes and the count is its count.
    #[test]
    fn replace_all_bytes_and_count_are_the_models(raw in text(), old in needle(), new in replacement()) {
        let (want, count) = model_replace_all(&raw, &old, &new);
        let doc = Document::decode(raw.as_bytes()).unwrap();
        let req = EditRequest::new(&old, &new, true);
        match apply(doc.view(), &[req]) {
            Ok(a) => {
                prop_assert_eq!(a.edits[0].replacements, count);
                prop_assert_eq!(concat(&doc.render(&a.replacements).unwrap()), want);
            }
            Err(f) => {
                prop_assert_eq!(count, 0);
                prop_assert_eq!(f.error.code, editref::Code::NotFound);
            }
        }
    }

    /// The same with the simplest model there is: on text with no CR at all, replace_all is
    /// `str::replace`, and `run` (decode, apply, render) gives its bytes.
    #[test]
    fn replace_all_on_lf_text_is_str_replace(raw in text(), old in needle(), new in replacement()) {
        let raw = raw.replace('\r', "");
        let count = raw.matches(old.as_str()).count();
        let got = run(&raw, &old, &new, true);
        if count == 0 {
            prop_assert_eq!(got, Err(editref::Code::NotFound));
        } else {
            prop_assert_eq!(got, Ok(raw.replace(old.as_str(), &new).into_bytes()));
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
