//! `edit_vs_model`: the engine against the naive model (EDIT-2, MATCH-1..5, MULTI-1..4,
//! TEXT-1..6), untouched bytes, and the inverse edit. The input is in `edit_case.rs`, the
//! checks made once the bytes agree in `edit_checks.rs`.

use crate::depth::Ending;
use crate::edit_case::EditCase;
use crate::edit_checks::{check_inverse, check_patch, check_replacements, check_untouched};
use crate::ensure;
use crate::model::{self, ModelReport, Outcome};
use crate::model_codec::{self, ModelEncoding, ModelRefusal};
use editref::engine::{self, EditRequest};
use editref::error::Code;
use editref::text::{concat, DecodeError, Document, TextEncoding};

/// The library's encoding in the model's terms.
fn model_encoding(e: TextEncoding) -> ModelEncoding {
    match e {
        TextEncoding::Utf8 { bom } => ModelEncoding::Utf8 { bom },
        TextEncoding::Utf16Le => ModelEncoding::Utf16 { big_endian: false },
        TextEncoding::Utf16Be => ModelEncoding::Utf16 { big_endian: true },
        TextEncoding::Legacy(enc) => ModelEncoding::Legacy(enc),
    }
}

/// Decodes the file twice — by the library and by the model's own codec — and checks they
/// agree (TEXT-1/7): the same encoding, or both refusing. A refusal is compared by code only
/// where the spec decides it (a BOM, or valid UTF-8); without either, whether a legacy guess is
/// found is the library's heuristic.
pub(crate) fn decode_both<'b>(
    bytes: &'b [u8],
) -> Result<Option<(Document<'b>, String, ModelEncoding)>, String> {
    let lib = Document::decode(bytes);
    let guess = match &lib {
        Ok(d) => match d.encoding() {
            TextEncoding::Legacy(e) => Some(e),
            _ => None,
        },
        Err(_) => None,
    };
    let model = model_codec::decode(bytes, guess);
    match (lib, model) {
        (Ok(doc), Ok(t)) => {
            ensure!(
                model_encoding(doc.encoding()) == t.encoding,
                "library reads {:?}, model reads {:?}",
                doc.encoding(),
                t.encoding
            );
            Ok(Some((doc, t.stored, t.encoding)))
        }
        (Err(e), Err(r)) => {
            let decided = [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"]
                .iter()
                .any(|bom| bytes.starts_with(bom))
                || std::str::from_utf8(bytes).is_ok();
            let same = matches!(
                (&e, r),
                (DecodeError::Binary, ModelRefusal::Binary)
                    | (DecodeError::Encoding(_), ModelRefusal::Encoding)
            );
            ensure!(
                !decided || same,
                "library refuses with {e:?}, model with {r:?}"
            );
            Ok(None)
        }
        (Err(e), Ok(t)) => Err(format!(
            "library refuses ({e:?}), model reads {:?}",
            t.encoding
        )),
        (Ok(doc), Err(r)) => Err(format!(
            "library reads {:?}, model refuses ({r:?})",
            doc.encoding()
        )),
    }
}

/// Where an `edit_vs_model` input ended. Only [`EditEnd::SameBytes`] is the real check: the
/// engine's bytes equal to the model's, byte for byte; the others compare less.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditEnd {
    /// The file is not text (refused by TEXT-1/7); nothing was edited.
    RefusedFile,
    /// A repair might apply, which the model does not decide.
    OutOfScope,
    /// Engine and model refused the same edit with the same code.
    SameError(Code),
    /// Both found a character the file's encoding cannot hold.
    SameUnrepresentable,
    /// The engine wrote exactly the model's bytes.
    SameBytes,
}

impl EditEnd {
    /// The ending as the depth table counts it.
    pub fn ending(self) -> Ending {
        match self {
            EditEnd::RefusedFile => Ending::shallow("refused_file"),
            EditEnd::OutOfScope => Ending::shallow("out_of_scope"),
            EditEnd::SameError(c) => Ending::shallow(format!("error:{}", c.as_str())),
            EditEnd::SameUnrepresentable => Ending::shallow("unrepresentable"),
            EditEnd::SameBytes => Ending::deep("bytes_compared"),
        }
    }
}

/// Runs the case through `engine::apply` + `Document::render` and through the naive model and
/// compares: the same bytes, or the same error code (and for `ambiguous` the same count and
/// lines); the same per-edit reports. Then checks that every byte outside the replaced spans is
/// an untouched original byte (TEXT-6), and that a single successful unique edit followed by
/// its inverse restores the original.
pub fn edit_vs_model(case: &EditCase) -> Result<EditEnd, String> {
    let bytes = case.file_bytes();
    let Some((doc, stored, encoding)) = decode_both(&bytes)? else {
        return Ok(EditEnd::RefusedFile);
    };
    let model_edits = case.model_edits(&stored, encoding);
    let requests: Vec<EditRequest> = model_edits
        .iter()
        .map(|e| EditRequest::new(&e.old, &e.new, e.replace_all))
        .collect();
    let expected = model::run(&stored, encoding, &model_edits);
    if expected == Outcome::OutOfScope {
        return Ok(EditEnd::OutOfScope);
    }
    let view = doc.view();
    let engine_result = engine::apply(view, &requests);
    let applied = match (engine_result, &expected) {
        (
            Err(f),
            Outcome::Error {
                index,
                code,
                ambiguous,
            },
        ) => {
            ensure!(
                (f.index, f.error.code) == (*index, *code),
                "engine failed edit {} with {}, model says edit {index} fails with {}",
                f.index,
                f.error.code.as_str(),
                code.as_str()
            );
            if let Some((count, lines)) = ambiguous {
                ensure!(
                    f.error.fields.get("count") == Some(&serde_json::json!(count))
                        && f.error.fields.get("lines") == Some(&serde_json::json!(lines)),
                    "ambiguous fields {:?}, model count {count} lines {lines:?}",
                    f.error.fields
                );
            }
            return Ok(EditEnd::SameError(*code));
        }
        (Err(f), other) => {
            return Err(format!(
                "engine failed edit {} with {} ({}), model says {other:?}",
                f.index,
                f.error.code.as_str(),
                f.error.message
            ))
        }
        (Ok(_), Outcome::Error { index, code, .. }) => {
            return Err(format!(
                "engine succeeded, model says edit {index} fails with {}",
                code.as_str()
            ))
        }
        (Ok(a), _) => a,
    };
    check_replacements(view, &applied.replacements)?;
    let rendered = doc.render(&applied.replacements);
    let (out, reports) = match (rendered, expected) {
        (Err(c), Outcome::Unrepresentable(m)) => {
            ensure!(c.0 == m, "render refused {:?}, model refused {m:?}", c.0);
            return Ok(EditEnd::SameUnrepresentable);
        }
        (Err(c), other) => return Err(format!("render refused {:?}, model says {other:?}", c.0)),
        (Ok(_), Outcome::Unrepresentable(m)) => {
            return Err(format!("render succeeded, model refuses {m:?}"))
        }
        (Ok(chunks), Outcome::Bytes(out, reports)) => {
            check_untouched(
                &bytes,
                &doc,
                (&stored, encoding),
                &applied.replacements,
                &chunks,
            )?;
            let got = concat(&chunks);
            ensure!(
                got == out,
                "engine bytes {:?}\nmodel bytes  {:?}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&out)
            );
            (out, reports)
        }
        (Ok(_), other) => return Err(format!("unexpected model outcome {other:?}")),
    };
    let got_reports: Vec<ModelReport> = applied
        .edits
        .iter()
        .map(|r| ModelReport {
            old_string: r.old_string.clone(),
            new_string: r.new_string.clone(),
            replacements: r.replacements,
        })
        .collect();
    ensure!(
        got_reports == reports,
        "reports {got_reports:?}, model {reports:?}"
    );
    ensure!(
        applied.edits.iter().all(|r| r.repairs.is_empty()),
        "a repair fired where none can"
    );
    check_patch(view, &applied.replacements)?;
    if requests.len() == 1 {
        check_inverse(&bytes, &doc, &applied.replacements, &reports[0], &out)?;
    }
    Ok(EditEnd::SameBytes)
}
