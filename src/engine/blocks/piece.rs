//! The pieces a block is made of, and how they are joined and cut.

/// Inserted text shorter than this joins the inserted piece before it: it keeps the lists of
/// pieces short without ever copying a long text to append a short one to it.
pub(super) const JOIN_MAX: usize = 256;

/// A run of the current text: original bytes `[start, end)`, or inserted bytes. Inserted text
/// is kept as bytes because a block may end inside a character; the pieces between two runs
/// of the original always make whole characters together.
#[derive(Debug)]
pub(super) enum Piece {
    Original(usize, usize),
    New(Vec<u8>),
}

impl Piece {
    pub(super) fn len(&self) -> usize {
        match self {
            Piece::Original(s, e) => e - s,
            Piece::New(t) => t.len(),
        }
    }
}

#[derive(Debug, Default)]
/// A block: its pieces in order and their total length.
pub(super) struct Block {
    pub(super) pieces: Vec<Piece>,
    pub(super) len: usize,
}

/// Inserted bytes between two runs of the original: whole characters (see [`Piece`]), so
/// the lossy branch is never taken.
pub(super) fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Splits a piece after `n` bytes; the tail is `None` when nothing is left.
pub(super) fn split_piece(piece: Piece, n: usize) -> (Piece, Option<Piece>) {
    match piece {
        Piece::Original(s, e) if e - s > n => {
            (Piece::Original(s, s + n), Some(Piece::Original(s + n, e)))
        }
        Piece::New(mut t) if t.len() > n => {
            let tail = t.split_off(n);
            (Piece::New(t), Some(Piece::New(tail)))
        }
        p => (p, None),
    }
}

/// Appends a piece, joining it to the one before when both are contiguous original text, or
/// both inserted text and the new one short.
pub(super) fn push(out: &mut Vec<Piece>, piece: Piece) {
    match (out.last_mut(), piece) {
        (_, Piece::New(t)) if t.is_empty() => {}
        (_, Piece::Original(s, e)) if s == e => {}
        (Some(Piece::Original(_, e)), Piece::Original(s2, e2)) if *e == s2 => *e = e2,
        (Some(Piece::New(t)), Piece::New(t2)) if t2.len() < JOIN_MAX => t.extend_from_slice(&t2),
        (_, piece) => out.push(piece),
    }
}
