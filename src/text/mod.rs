//! The document model (TEXT-1..7): a file's bytes seen as text, and the lossless way back.
//!
//! A [`Document`] borrows the bytes it was decoded from. Matching sees only its LF view;
//! [`Document::render`] turns replacements of LF-view spans into the output byte chunks, where
//! every chunk outside a replaced span is the file's own bytes, untouched (TEXT-6).

mod after;
pub mod buffer;
pub mod encoding;
pub mod eol;
pub mod quotes;
mod stored;
mod utf16;

use std::borrow::Cow;
use std::cell::OnceCell;

pub use encoding::{decode, DecodeError, TextEncoding};
pub use eol::{Eol, EolCounts, LfView};
pub use stored::Window;

/// One replaced span of the LF view and the LF-view text that takes its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// Start offset in the LF view.
    pub start: usize,
    /// End offset (exclusive) in the LF view.
    pub end: usize,
    /// The new text, with LF line breaks.
    pub text: String,
}

/// A piece of output: either bytes of the original file or newly encoded bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk<'a> {
    /// Untouched bytes of the original file.
    Original(&'a [u8]),
    /// Bytes produced for inserted text (or a re-encoded untouched span of a legacy file).
    New(Vec<u8>),
}

impl Chunk<'_> {
    /// The bytes of the chunk.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Original(b) => b,
            Chunk::New(b) => b,
        }
    }
}

/// Original runs up to this many bytes right after an insertion (between two insertions, or
/// the file's tail after the last one) are copied into the new chunk before them rather than
/// borrowed as chunks of their own (see [`Document::render`]).
const SHORT_RUN: usize = 256;

/// Writes new bytes at the end of `chunks` with `write`: into the last chunk when it is new,
/// else into a new chunk pushed for them.
fn append_new<E>(
    chunks: &mut Vec<Chunk<'_>>,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let mut bytes = match chunks.pop() {
        Some(Chunk::New(bytes)) => bytes,
        Some(other) => {
            chunks.push(other);
            Vec::new()
        }
        None => Vec::new(),
    };
    let written = write(&mut bytes);
    chunks.push(Chunk::New(bytes));
    written
}

/// Adds untouched bytes of the file to `chunks`: borrowed, or copied into the new chunk before
/// them when they are a short run (see [`Document::render`]). Nothing for an empty run.
fn push_untouched<'a>(chunks: &mut Vec<Chunk<'a>>, original: &'a [u8]) {
    if original.is_empty() {
        return;
    }
    match chunks.last_mut() {
        Some(Chunk::New(last)) if original.len() <= SHORT_RUN => last.extend_from_slice(original),
        _ => chunks.push(Chunk::Original(original)),
    }
}

/// Concatenates chunks (tests and small outputs; the disk layer writes chunks one by one).
pub fn concat(chunks: &[Chunk<'_>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(chunks.iter().map(|c| c.bytes().len()).sum());
    for c in chunks {
        out.extend_from_slice(c.bytes());
    }
    out
}

/// A 128-bit content hash plus length: what the read state remembers of the text a model saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    /// xxh3-128 of the LF view.
    pub hash: u128,
    /// Byte length of the LF view.
    pub len: u64,
}

impl Fingerprint {
    /// The fingerprint of an LF-view text.
    pub fn of(view: &str) -> Fingerprint {
        Fingerprint {
            hash: xxhash_rust::xxh3::xxh3_128(view.as_bytes()),
            len: view.len() as u64,
        }
    }
}

/// A decoded file.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    bytes: &'a [u8],
    encoding: TextEncoding,
    /// The text as stored (CRs and all, no BOM). Decoded when first used for a UTF-16 file
    /// answered from its bytes (`utf16`): an Edit found in them needs only a window decoded.
    stored: OnceCell<Cow<'a, str>>,
    /// For a UTF-16 file answered from its bytes, whether it is big endian; the "stored
    /// offsets" of `stored.rs` are then byte offsets into the text after the BOM.
    utf16: Option<bool>,
    /// Whether the stored text holds a CR; without one it is its own LF view.
    has_cr: bool,
    /// The LF view, built on first use: an Edit of a CRLF file whose `old_string` is found in
    /// the stored text (`stored.rs`) never needs the view of the whole file.
    lf: OnceCell<LfView>,
    /// The ending for inserted text when set by [`Document::set_dominant`]; otherwise
    /// TEXT-4's, from the counts.
    dominant: Option<Eol>,
    /// Break counts, taken when first asked (from the view when it is built).
    counts: OnceCell<EolCounts>,
}

/// A character the file's encoding cannot represent (D11, D14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unrepresentable(pub char);

impl<'a> Document<'a> {
    /// Decodes `bytes` (TEXT-1); refuses binary and undecodable input.
    pub fn decode(bytes: &'a [u8]) -> Result<Document<'a>, DecodeError> {
        if let Some((encoding, big_endian)) = utf16::plain(bytes) {
            return Ok(Document {
                bytes,
                encoding,
                stored: OnceCell::new(),
                utf16: Some(big_endian),
                has_cr: false,
                lf: OnceCell::new(),
                dominant: None,
                counts: OnceCell::new(),
            });
        }
        let decoded = decode(bytes)?;
        let has_cr = decoded
            .has_cr
            .unwrap_or_else(|| memchr::memchr(b'\r', decoded.text.as_bytes()).is_some());
        Ok(Document {
            bytes,
            encoding: decoded.encoding,
            stored: OnceCell::from(decoded.text),
            utf16: None,
            has_cr,
            lf: OnceCell::new(),
            dominant: None,
            counts: OnceCell::new(),
        })
    }

    /// An empty UTF-8 document whose inserted line breaks use `dominant` (file creation).
    pub fn empty(dominant: Eol) -> Document<'static> {
        Document {
            bytes: b"",
            encoding: TextEncoding::Utf8 { bom: false },
            stored: OnceCell::from(Cow::Borrowed("")),
            utf16: None,
            has_cr: false,
            lf: OnceCell::from(LfView::default()),
            dominant: Some(dominant),
            counts: OnceCell::from(EolCounts::default()),
        }
    }

    /// The stored text, decoded on first use when the document was made from UTF-16 bytes.
    fn stored(&self) -> &str {
        self.stored.get_or_init(|| {
            let raw = &self.bytes[self.encoding.bom().len()..];
            Cow::Owned(utf16::decode(raw, self.utf16.unwrap_or(false)))
        })
    }

    /// The LF view and its map back to the stored text, built on first use.
    fn lf(&self) -> &LfView {
        self.lf
            .get_or_init(|| LfView::build(self.stored(), Some(self.has_cr), false).0)
    }

    /// The LF view that matching works on (TEXT-5); never includes the BOM (TEXT-3).
    pub fn view(&self) -> &str {
        self.lf().view(self.stored())
    }

    /// The encoding the file is written back in.
    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// The ending written for LFs of inserted text (TEXT-4, TEXT-6).
    pub fn dominant(&self) -> Eol {
        match self.dominant {
            Some(eol) => eol,
            // Without a CR there is no CRLF to outnumber the LFs: nothing to count.
            None if !self.has_cr => Eol::Lf,
            None => self.eol_counts().dominant(),
        }
    }

    /// Overrides the ending used for inserted text (whole-content replacement of a file with no
    /// line break of its own takes the new text's ending).
    pub fn set_dominant(&mut self, eol: Eol) {
        self.dominant = Some(eol);
    }

    /// Break counts of the stored text.
    pub fn eol_counts(&self) -> EolCounts {
        *self.counts.get_or_init(|| {
            if !self.has_cr {
                EolCounts {
                    crlf: 0,
                    lf: memchr::memchr_iter(b'\n', self.stored().as_bytes()).count(),
                }
            } else if let Some(lf) = self.lf.get() {
                lf.counts
            } else {
                eol::count_eols(self.stored())
            }
        })
    }

    /// The fingerprint of the LF view (hashed from the stored text when the view is not built).
    pub fn fingerprint(&self) -> Fingerprint {
        if (self.has_cr || self.utf16.is_some()) && self.lf.get().is_none() {
            return self.fingerprint_after_stored(&[]);
        }
        Fingerprint::of(self.view())
    }

    /// TEXT-6: the output bytes after replacing LF-view spans, as chunks.
    ///
    /// `replacements` must be sorted and non-overlapping. Bytes outside every span are the
    /// original bytes (borrowed, or for legacy encodings re-encoded, which TEXT-2 guarantees to be
    /// identical); each LF inside inserted text is written as the dominant ending.
    ///
    /// New bytes go into the chunk before them when that one is new too, and a short run of
    /// original bytes right after an insertion is copied into it (up to 256 bytes): a replace_all
    /// of a million hits is then a few chunks, not two million of them, each with a buffer of
    /// its own. Only the chunking differs; the bytes, in order, are the same.
    pub fn render(&self, replacements: &[Replacement]) -> Result<Vec<Chunk<'a>>, Unrepresentable> {
        let lf = self.lf();
        self.render_mapped(replacements, |offset| lf.to_stored(offset))
    }

    /// [`Document::render`] of replacements whose offsets `to_stored` maps to the stored text.
    fn render_mapped(
        &self,
        replacements: &[Replacement],
        to_stored: impl Fn(usize) -> usize,
    ) -> Result<Vec<Chunk<'a>>, Unrepresentable> {
        let mut chunks = Vec::new();
        let bom = self.encoding.bom();
        if !bom.is_empty() {
            chunks.push(Chunk::Original(&self.bytes[..bom.len()]));
        }
        let stored: &str = self.stored();
        let mut cursor = Cursor {
            text_pos: 0,
            byte_pos: bom.len(),
        };
        for rep in replacements {
            let s = to_stored(rep.start);
            let e = to_stored(rep.end);
            self.push_original(&mut chunks, &mut cursor, stored, s)?;
            // The ending is looked up only for text that has a break: for a CRLF file that was
            // not given a view, that is a count of its breaks.
            let inserted = if rep.text.contains('\n') {
                eol::with_eol(&rep.text, self.dominant())
            } else {
                Cow::Borrowed(rep.text.as_str())
            };
            if !inserted.is_empty() {
                append_new(&mut chunks, |out| self.encoding.encode_into(&inserted, out))
                    .map_err(Unrepresentable)?;
            }
            self.skip(&mut cursor, stored, e);
        }
        self.push_original(&mut chunks, &mut cursor, stored, stored.len())?;
        Ok(chunks)
    }

    fn push_original(
        &self,
        chunks: &mut Vec<Chunk<'a>>,
        cursor: &mut Cursor,
        stored: &str,
        to: usize,
    ) -> Result<(), Unrepresentable> {
        if to <= cursor.text_pos {
            return Ok(());
        }
        let segment = &stored[cursor.text_pos..to];
        match self.encoding.encoded_len(segment) {
            Some(n) => {
                push_untouched(chunks, &self.bytes[cursor.byte_pos..cursor.byte_pos + n]);
                cursor.byte_pos += n;
            }
            None => {
                append_new(chunks, |out| self.encoding.encode_into(segment, out))
                    .map_err(Unrepresentable)?;
            }
        }
        cursor.text_pos = to;
        Ok(())
    }

    fn skip(&self, cursor: &mut Cursor, stored: &str, to: usize) {
        if to <= cursor.text_pos {
            return;
        }
        let segment = &stored[cursor.text_pos..to];
        if let Some(n) = self.encoding.encoded_len(segment) {
            cursor.byte_pos += n;
        }
        cursor.text_pos = to;
    }
}

struct Cursor {
    text_pos: usize,
    byte_pos: usize,
}

/// Where 0-based line `index` of `text` starts (the byte after its `index`-th `\n`; `None`
/// when the text has fewer breaks), and the text's total count of `\n`, in one pass: Read
/// needs both, and counting the breaks of a large file twice costs as much as everything else
/// it does. Breaks are counted a 64 KiB block at a time with `memchr`'s SIMD counter; single
/// breaks are looked at only in the block that holds the one wanted.
pub fn line_start_and_breaks(text: &str, index: usize) -> (Option<usize>, usize) {
    const BLOCK: usize = 64 * 1024;
    let mut seen = 0;
    let mut found = (index == 0).then_some(0);
    for (b, block) in text.as_bytes().chunks(BLOCK).enumerate() {
        let here = memchr::memchr_iter(b'\n', block).count();
        if found.is_none() && seen + here >= index {
            found = memchr::memchr_iter(b'\n', block)
                .nth(index - seen - 1)
                .map(|at| b * BLOCK + at + 1);
        }
        seen += here;
    }
    (found, seen)
}

/// 1-based line number of a view offset.
pub fn line_of(view: &str, offset: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &view.as_bytes()[..offset]).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(bytes: &[u8], find: &str, to: &str) -> Vec<u8> {
        let doc = Document::decode(bytes).unwrap();
        let start = doc.view().find(find).unwrap();
        let reps = [Replacement {
            start,
            end: start + find.len(),
            text: to.to_string(),
        }];
        concat(&doc.render(&reps).unwrap())
    }

    #[test]
    fn text_6_many_short_replacements_render_the_same_bytes_in_few_chunks() {
        // A replace_all of every `j` in a long line: the bytes are those of a plain replace,
        // and the short original runs between hits join the new chunk around them.
        let text = "abcdefghij".repeat(1000);
        let doc = Document::decode(text.as_bytes()).unwrap();
        let reps: Vec<Replacement> = text
            .match_indices('j')
            .map(|(i, _)| Replacement {
                start: i,
                end: i + 1,
                text: "JJ".to_string(),
            })
            .collect();
        let chunks = doc.render(&reps).unwrap();
        assert_eq!(concat(&chunks), text.replace('j', "JJ").into_bytes());
        assert!(chunks.len() <= 2, "{} chunks", chunks.len());
        // A long untouched run is still borrowed from the file, not copied.
        let long = format!("x{}y", "-".repeat(SHORT_RUN + 1));
        let doc = Document::decode(long.as_bytes()).unwrap();
        let reps = [
            Replacement {
                start: 0,
                end: 1,
                text: "X".into(),
            },
            Replacement {
                start: long.len() - 1,
                end: long.len(),
                text: "Y".into(),
            },
        ];
        let chunks = doc.render(&reps).unwrap();
        assert!(matches!(chunks[1], Chunk::Original(_)));
        assert_eq!(
            concat(&chunks),
            format!("X{}Y", "-".repeat(SHORT_RUN + 1)).into_bytes()
        );
    }

    #[test]
    fn text_6_untouched_bytes_stay_in_mixed_files() {
        assert_eq!(
            edit(b"a\r\nb\nc\rd\r\n", "b\nc", "B\nC"),
            b"a\r\nB\r\nC\rd\r\n",
            "the inserted LF takes the dominant CRLF; the lone CR and other endings stay"
        );
        assert_eq!(
            edit(b"a\nb\r\nc\nd\n", "d", "D\nE"),
            b"a\nb\r\nc\nD\nE\n",
            "LF-dominant mixed file keeps its one CRLF"
        );
        assert_eq!(
            edit(b"a\r\nb\r\nc\n", "a\nb", "x\ny\nz"),
            b"x\r\ny\r\nz\r\nc\n"
        );
    }

    #[test]
    fn text_3_bom_kept_and_utf16_mapped() {
        assert_eq!(
            edit(b"\xEF\xBB\xBFhi there", "hi", "yo"),
            b"\xEF\xBB\xBFyo there"
        );
        assert_eq!(
            edit(b"\xFF\xFEa\0\r\0\n\0b\0", "a\nb", "c\nd"),
            b"\xFF\xFEc\0\r\0\n\0d\0"
        );
    }

    #[test]
    fn line_start_finds_the_byte_after_the_nth_break_and_counts_all() {
        // 50,000 lines of about 10 bytes: the wanted break falls in several 64 KiB blocks.
        let text: String = (0..50_000).map(|i| format!("line {i}\n")).collect();
        for index in [0, 1, 2, 6_553, 9_999, 10_000, 49_999, 50_000, 50_001] {
            let expected = if index == 0 {
                Some(0)
            } else {
                memchr::memchr_iter(b'\n', text.as_bytes())
                    .nth(index - 1)
                    .map(|i| i + 1)
            };
            assert_eq!(
                line_start_and_breaks(&text, index),
                (expected, 50_000),
                "{index}"
            );
        }
        assert_eq!(line_start_and_breaks("", 1), (None, 0));
        assert_eq!(line_start_and_breaks("", 0), (Some(0), 0));
        assert_eq!(line_start_and_breaks("a\nb", 1), (Some(2), 1));
    }

    #[test]
    fn eol_counts_are_exact_however_they_were_taken() {
        for bytes in [
            &b""[..],
            b"a\nb\n",
            b"a\r\nb\nc\r\n",
            b"lone\rcr\nx",
            b"\xEF\xBB\xBFa\r\nb",
            b"\xFF\xFEa\0\r\0\n\0b\0\n\0",
        ] {
            let doc = Document::decode(bytes).unwrap();
            let stored = crate::text::decode(bytes).unwrap().text;
            assert_eq!(doc.eol_counts(), LfView::new(&stored).counts, "{bytes:?}");
        }
    }

    #[test]
    fn fingerprint_after_matches_the_rebuilt_view() {
        let doc = Document::decode(b"one two three").unwrap();
        let reps = [Replacement {
            start: 4,
            end: 7,
            text: "2".into(),
        }];
        assert_eq!(doc.fingerprint_after(&reps), Fingerprint::of("one 2 three"));
        // Several replacements (a replace_all, a patch's hunks), of every size: the length
        // counts the untouched text between them too.
        let rep = |start, end, text: &str| Replacement {
            start,
            end,
            text: text.into(),
        };
        let reps = [rep(0, 3, "1"), rep(4, 7, "second"), rep(8, 13, "")];
        assert_eq!(doc.fingerprint_after(&reps), Fingerprint::of("1 second "));
        assert_eq!(doc.fingerprint_after(&[]), Fingerprint::of("one two three"));
    }
}
