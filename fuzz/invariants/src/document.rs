//! `document_roundtrip`: TEXT-1, TEXT-2, TEXT-4, TEXT-5, TEXT-7 on arbitrary bytes.

use crate::{ensure, Check};
use editref::text::TextEncoding;
use editref::text::{self, concat, DecodeError, Document, Eol, Fingerprint, LfView, Replacement};

/// Decodes arbitrary bytes and checks, when they are accepted, that encode(decode(b)) == b
/// exactly (TEXT-2) — rendering with no replacement, and with empty replacements anywhere,
/// gives the original bytes — that the LF view is the stored text with every CRLF seen as LF
/// and every view offset maps back to the right stored offset (TEXT-5), and that the
/// accept/refuse decision follows TEXT-1 and TEXT-7.
pub fn document_roundtrip(bytes: &[u8]) -> Check {
    let doc = Document::decode(bytes);
    check_classification(
        bytes,
        doc.as_ref().map(|d| d.encoding()).map_err(Clone::clone),
    )?;
    let Ok(doc) = doc else { return Ok(()) };
    let decoded =
        text::decode(bytes).map_err(|e| format!("decode and Document::decode disagree: {e:?}"))?;
    let stored: &str = &decoded.text;
    ensure!(
        decoded.encoding == doc.encoding(),
        "decode and Document::decode chose different encodings"
    );
    ensure!(
        !stored.contains('\0'),
        "accepted text holds U+0000 (D2: binary)"
    );

    // TEXT-2: the bytes come back exactly.
    let bom = doc.encoding().bom();
    ensure!(
        bytes.starts_with(bom),
        "BOM {bom:?} is not a prefix of the bytes"
    );
    let mut encoded = bom.to_vec();
    doc.encoding()
        .encode_into(stored, &mut encoded)
        .map_err(|c| format!("decoded text cannot be encoded back: {c:?}"))?;
    ensure!(encoded == bytes, "encode(decode(b)) != b");
    let chunks = doc
        .render(&[])
        .map_err(|c| format!("render(&[]) failed on {c:?}"))?;
    ensure!(concat(&chunks) == bytes, "render(&[]) != original bytes");

    // TEXT-5: the view is the stored text with CRLF seen as LF.
    let view = doc.view();
    ensure!(
        view == stored.replace("\r\n", "\n"),
        "LF view differs from stored.replace(CRLF, LF)"
    );
    check_offset_map(stored, view)?;

    // TEXT-4: break counts and the dominant ending.
    let crlf = stored.matches("\r\n").count();
    let lf = stored.matches('\n').count() - crlf;
    let counts = doc.eol_counts();
    ensure!(
        (counts.crlf, counts.lf) == (crlf, lf),
        "eol counts {counts:?}, naive crlf={crlf} lf={lf}"
    );
    let dominant = if crlf > lf { Eol::Crlf } else { Eol::Lf };
    ensure!(
        doc.dominant() == dominant,
        "dominant {:?}, expected {dominant:?}",
        doc.dominant()
    );

    // Fingerprints of the view, directly and through the replacement path.
    ensure!(
        doc.fingerprint() == Fingerprint::of(view),
        "fingerprint is not that of the view"
    );
    ensure!(
        doc.fingerprint_after(&[]) == doc.fingerprint(),
        "fingerprint_after(&[]) differs"
    );

    // Empty replacements at char boundaries change nothing.
    for at in sample_boundaries(view) {
        let rep = [Replacement {
            start: at,
            end: at,
            text: String::new(),
        }];
        let out = doc
            .render(&rep)
            .map_err(|c| format!("render failed on {c:?}"))?;
        ensure!(
            concat(&out) == bytes,
            "an empty replacement at view offset {at} changed the bytes"
        );
        ensure!(
            doc.fingerprint_after(&rep) == doc.fingerprint(),
            "fingerprint_after(empty at {at}) differs"
        );
    }

    // Replacing the whole view by itself writes it with the dominant ending (TEXT-6).
    let whole = [Replacement {
        start: 0,
        end: view.len(),
        text: view.to_string(),
    }];
    let out = doc
        .render(&whole)
        .map_err(|c| format!("render of the whole view failed on {c:?}"))?;
    let mut expected = bom.to_vec();
    let with_eol = match dominant {
        Eol::Crlf => view.replace('\n', "\r\n"),
        Eol::Lf => view.to_string(),
    };
    doc.encoding()
        .encode_into(&with_eol, &mut expected)
        .map_err(|c| format!("view cannot be encoded: {c:?}"))?;
    ensure!(
        concat(&out) == expected,
        "whole-view replacement is not the view in the dominant ending"
    );
    Ok(())
}

/// TEXT-1 and TEXT-7, decided naively from the bytes.
fn check_classification(bytes: &[u8], got: Result<TextEncoding, DecodeError>) -> Check {
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return check_utf16(rest, false, got);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return check_utf16(rest, true, got);
    }
    let (bom, rest) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    if rest.contains(&0) {
        ensure!(
            got == Err(DecodeError::Binary),
            "bytes with NUL gave {got:?}, not binary (TEXT-7)"
        );
        return Ok(());
    }
    if std::str::from_utf8(rest).is_ok() {
        ensure!(
            got == Ok(TextEncoding::Utf8 { bom }),
            "valid UTF-8 (bom: {bom}) gave {got:?} (TEXT-1)"
        );
        return Ok(());
    }
    match got {
        Ok(TextEncoding::Legacy(_)) if !bom => Ok(()),
        Ok(other) => Err(format!("invalid UTF-8 accepted as {other:?}")),
        Err(DecodeError::Encoding(_)) => Ok(()),
        Err(e) => Err(format!(
            "invalid UTF-8 without NUL refused as {e:?}, not encoding"
        )),
    }
}

fn check_utf16(rest: &[u8], big_endian: bool, got: Result<TextEncoding, DecodeError>) -> Check {
    let want = if big_endian {
        TextEncoding::Utf16Be
    } else {
        TextEncoding::Utf16Le
    };
    let mut problem = None;
    if rest.len() % 2 == 1 {
        problem = Some("encoding");
    } else {
        let units = rest.chunks_exact(2).map(|p| {
            if big_endian {
                u16::from_be_bytes([p[0], p[1]])
            } else {
                u16::from_le_bytes([p[0], p[1]])
            }
        });
        for c in char::decode_utf16(units) {
            match c {
                Ok('\0') => {
                    problem = Some("binary");
                    break;
                }
                Ok(_) => {}
                Err(_) => {
                    problem = Some("encoding");
                    break;
                }
            }
        }
    }
    let ok = match (problem, &got) {
        (None, Ok(e)) => *e == want,
        (Some("binary"), Err(DecodeError::Binary)) => true,
        (Some("encoding"), Err(DecodeError::Encoding(_))) => true,
        _ => false,
    };
    ensure!(
        ok,
        "UTF-16 ({}) bytes: naive verdict {problem:?}, got {got:?}",
        want.name()
    );
    Ok(())
}

/// Walks stored text and view side by side and checks `LfView::to_stored` at every view offset.
fn check_offset_map(stored: &str, view: &str) -> Check {
    let map = LfView::new(stored);
    let (s, v) = (stored.as_bytes(), view.as_bytes());
    let (mut i, mut j) = (0, 0);
    while j < v.len() {
        let got = map.to_stored(j);
        ensure!(got == i, "to_stored({j}) = {got}, naive {i}");
        if s[i] == b'\r' && s.get(i + 1) == Some(&b'\n') {
            ensure!(v[j] == b'\n', "view byte {j} should be the LF of a CRLF");
            i += 2;
        } else {
            ensure!(s[i] == v[j], "view byte {j} differs from stored byte {i}");
            i += 1;
        }
        j += 1;
    }
    ensure!(i == s.len(), "view ended before the stored text");
    ensure!(
        map.to_stored(v.len()) == s.len(),
        "end of view does not map to end of text"
    );
    Ok(())
}

/// A few char boundaries of the view: both ends and some in between.
fn sample_boundaries(view: &str) -> Vec<usize> {
    let mut out = vec![0, view.len()];
    for k in 1..4 {
        let mut at = view.len() * k / 4;
        while !view.is_char_boundary(at) {
            at -= 1;
        }
        out.push(at);
    }
    out
}
