//! File forms: the entries of `files:` (and the bytes a `modify` writes) turned into exact
//! content — text in one of the corpus encodings, base64 or hex bytes, symlinks, hard links,
//! directories, FIFOs — and their modes.
//!
//! A form must produce the same bytes on every machine, so everything that decides bytes lives
//! here: the encoders refuse what they cannot represent instead of substituting, hex and base64
//! are decoded strictly, and an entry must name exactly one content source. Expectations reuse
//! [`content`] and [`mode_of`], so a file form means the same thing on both sides of a case.

use super::error::{Errors, LoadError};
use super::raw::{only, RawEntry, S};
use crate::case::{Content, FileForm};
use crate::sandbox;
use base64::Engine as _;

/// Where a file form appears: it decides which keys an entry may carry.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    /// An entry of `files:`.
    Files,
    /// The new content of a `modify` step.
    Modify,
}

/// The keys of a file form, as written in `files:`.
pub(super) const FORM_KEYS: [&str; 10] = [
    "text",
    "encoding",
    "bom",
    "bytes_b64",
    "bytes_hex",
    "symlink",
    "hardlink",
    "dir",
    "fifo",
    "mode",
];

/// The content source of an entry; `Ok(None)` when it has none. Errors are recorded.
pub(super) fn content(
    entry: &S<RawEntry>,
    field: &str,
    errors: &mut Errors<'_>,
) -> Result<Option<Content>, ()> {
    let e = &entry.value;
    let mut sources = Vec::new();
    if e.text.is_some() {
        sources.push("text");
    }
    if e.bytes_b64.is_some() {
        sources.push("bytes_b64");
    }
    if e.bytes_hex.is_some() {
        sources.push("bytes_hex");
    }
    if e.symlink.is_some() {
        sources.push("symlink");
    }
    if e.hardlink.is_some() {
        sources.push("hardlink");
    }
    if e.dir.is_some() {
        sources.push("dir");
    }
    if e.fifo.is_some() {
        sources.push("fifo");
    }
    if sources.len() > 1 {
        errors.at(
            entry,
            field,
            format!(
                "exactly one content source is allowed, found {}",
                sources.join(", ")
            ),
        );
        return Err(());
    }
    if e.text.is_none() {
        if let Some(enc) = &e.encoding {
            errors.at(enc, format!("{field}.encoding"), "`encoding` needs `text`");
            return Err(());
        }
    }
    if e.encoding.is_none() {
        if let Some(bom) = &e.bom {
            errors.at(
                bom,
                format!("{field}.bom"),
                "`bom` only applies to `encoding: utf-16le` or `utf-16be`",
            );
            return Err(());
        }
    }
    if let Some(text) = &e.text {
        let encoding = e.encoding.as_ref().map_or("utf-8", |s| s.value.as_str());
        let bom = e.bom.as_ref().map(|b| b.value);
        return match encode_text(&text.value, encoding, bom) {
            Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
            Err(msg) => {
                let node = e.encoding.as_ref().map_or_else(
                    || (text.referenced.line(), text.referenced.column()),
                    |s| (s.referenced.line(), s.referenced.column()),
                );
                errors.list.push(LoadError {
                    file: errors.file.to_string(),
                    line: node.0,
                    column: node.1,
                    field: format!("{field}.encoding"),
                    message: msg,
                });
                Err(())
            }
        };
    }
    if let Some(b64) = &e.bytes_b64 {
        let clean: String = b64.value.split_whitespace().collect();
        return match base64::engine::general_purpose::STANDARD.decode(clean) {
            Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
            Err(err) => {
                errors.at(
                    b64,
                    format!("{field}.bytes_b64"),
                    format!("not valid base64: {err}"),
                );
                Err(())
            }
        };
    }
    if let Some(hex) = &e.bytes_hex {
        return match decode_hex(&hex.value) {
            Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
            Err(msg) => {
                errors.at(hex, format!("{field}.bytes_hex"), msg);
                Err(())
            }
        };
    }
    if let Some(target) = &e.symlink {
        if target.value.is_empty() || target.value.contains('\0') {
            errors.at(
                target,
                format!("{field}.symlink"),
                "a symlink target must be non-empty and free of NUL",
            );
            return Err(());
        }
        return Ok(Some(Content::Symlink(target.value.clone())));
    }
    if let Some(other) = &e.hardlink {
        if let Err(msg) = sandbox::root_relative(&other.value) {
            errors.at(other, format!("{field}.hardlink"), msg);
            return Err(());
        }
        return Ok(Some(Content::Hardlink(other.value.clone())));
    }
    for (name, flag, kind) in [
        ("dir", &e.dir, Content::Dir),
        ("fifo", &e.fifo, Content::Fifo),
    ] {
        if let Some(flag) = flag {
            if !flag.value {
                errors.at(
                    flag,
                    format!("{field}.{name}"),
                    format!("only `{name}: true` is meaningful; leave the key out instead"),
                );
                return Err(());
            }
            return Ok(Some(kind));
        }
    }
    Ok(None)
}

/// The `mode` of an entry, parsed; `Ok(None)` when it has none. Errors are recorded.
pub(super) fn mode_of(
    entry: &RawEntry,
    field: &str,
    errors: &mut Errors<'_>,
) -> Result<Option<u32>, ()> {
    let Some(m) = &entry.mode else {
        return Ok(None);
    };
    match parse_mode(&m.value) {
        Some(v) => Ok(Some(v)),
        None => {
            errors.at(
                m,
                format!("{field}.mode"),
                format!("'{}' is not an octal mode like \"0644\"", m.value),
            );
            Err(())
        }
    }
}

/// Parses an octal permission string ("0644", "755").
pub fn parse_mode(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.is_empty() || s.len() > 5 || !s.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    u32::from_str_radix(s, 8).ok().filter(|m| *m <= 0o7777)
}

/// A file form of `files:` or `modify`, checked: only the keys `ctx` allows, one content
/// source, a mode where one makes sense. `None` when anything is wrong (the errors say what).
pub(super) fn file_form(
    entry: &S<RawEntry>,
    field: &str,
    ctx: Context,
    errors: &mut Errors<'_>,
) -> Option<FileForm> {
    let before = errors.list.len();
    match ctx {
        Context::Files => only(&entry.value, &FORM_KEYS, field, "a file form", errors),
        Context::Modify => only(
            &entry.value,
            &[
                "path",
                "text",
                "encoding",
                "bom",
                "bytes_b64",
                "bytes_hex",
                "mode",
                "keep_mtime",
            ],
            field,
            "modify",
            errors,
        ),
    }
    let content = content(entry, field, errors).ok()?;
    let mode = mode_of(&entry.value, field, errors).ok()?;
    let Some(content) = content else {
        errors.at(
            entry,
            field,
            "a file form needs one content source: text, bytes_b64, bytes_hex, symlink, hardlink, dir or fifo",
        );
        return None;
    };
    if mode.is_some() && matches!(content, Content::Symlink(_)) {
        errors.at(
            entry,
            format!("{field}.mode"),
            "a symlink has no mode of its own; give the target's mode on the target",
        );
        return None;
    }
    (errors.list.len() == before).then_some(FileForm { content, mode })
}

/// Encodes a fixture's text byte-exactly in one of the corpus encodings.
///
/// Unrepresentable characters are an error (encoding_rs would silently write HTML entities).
pub fn encode_text(text: &str, encoding: &str, bom: Option<bool>) -> Result<Vec<u8>, String> {
    let utf16 = |be: bool| {
        let mut out = Vec::with_capacity(text.len() * 2 + 2);
        if bom.unwrap_or(true) {
            out.extend_from_slice(if be { &[0xFE, 0xFF] } else { &[0xFF, 0xFE] });
        }
        for unit in text.encode_utf16() {
            out.extend_from_slice(&if be {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        out
    };
    let no_bom_option = |name: &str| -> Result<(), String> {
        match bom {
            Some(_) => Err(format!("`bom` does not apply to {name}")),
            None => Ok(()),
        }
    };
    match encoding {
        "utf-8" => {
            no_bom_option("utf-8")?;
            Ok(text.as_bytes().to_vec())
        }
        "utf-8-bom" => {
            no_bom_option("utf-8-bom (the BOM is the point of it)")?;
            let mut out = vec![0xEF, 0xBB, 0xBF];
            out.extend_from_slice(text.as_bytes());
            Ok(out)
        }
        "utf-16le" => Ok(utf16(false)),
        "utf-16be" => Ok(utf16(true)),
        "windows-1252" | "shift_jis" => {
            no_bom_option(encoding)?;
            let enc = if encoding == "shift_jis" {
                encoding_rs::SHIFT_JIS
            } else {
                encoding_rs::WINDOWS_1252
            };
            let (bytes, _, had_errors) = enc.encode(text);
            if had_errors {
                return Err(format!("the text contains characters {encoding} cannot encode"));
            }
            Ok(bytes.into_owned())
        }
        other => Err(format!(
            "unknown encoding '{other}' (utf-8, utf-8-bom, utf-16le, utf-16be, windows-1252, shift_jis)"
        )),
    }
}

/// Decodes `bytes_hex`: pairs of hex digits, upper or lower case, whitespace anywhere between.
pub fn decode_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err("an odd number of hex digits".into());
    }
    let val = |b: u8| -> Result<u8, String> {
        (b as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| format!("'{}' is not a hex digit", b as char))
    };
    digits
        .chunks(2)
        .map(|p| Ok(val(p[0])? << 4 | val(p[1])?))
        .collect()
}

#[cfg(test)]
#[path = "forms_tests.rs"]
mod tests;
