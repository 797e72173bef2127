//! The current text of a MultiEdit as a row of small blocks, each a short list of pieces of
//! the original and of inserted text (TEXT-6), so that an edit costs what it touches, not the
//! size of the file.
//!
//! The piece table of [`super::pieces`] keeps one list of pieces for the whole text and
//! rebuilds it at every splice; a search then needs the text in one piece, which means copying
//! the file once per edit. Here the text is cut into blocks of a few kilobytes: a splice
//! rebuilds only the blocks it touches, a search reads only the blocks that may hold its
//! needle (the [`super::index`] knows which), and a position is a block and an offset in it.
//! Blocks are never merged; one grown well past its size is cut in pieces again, and the
//! blocks it was cut into are remembered (`split_into`) so that whatever pointed at it can
//! follow. Bytes outside every replaced span stay pieces of the original, so the result is,
//! as ever, a list of replaced spans of the original.

use crate::text::Replacement;
use piece::{utf8, Block, Piece};
use std::borrow::Cow;

mod piece;
mod splice;
#[cfg(test)]
mod tests;

/// A block's stable name: its index in `Blocks::blocks`, kept while blocks are cut and moved.
pub(super) type BlockId = usize;

/// A position in the current text: the block at `rank` in text order and a byte offset in it.
///
/// Positions are compared only in their normal form ([`Blocks::normal`]): the offset is inside
/// its block, except at the very end of the text. Every point of the text has exactly one
/// normal form, so the derived order is the order of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Pos {
    pub(super) rank: usize,
    pub(super) off: usize,
}

/// The current text as blocks in text order.
pub(super) struct Blocks<'a> {
    original: &'a str,
    /// Whether anything was spliced yet: until then the text is the original.
    changed: bool,
    /// Every block ever made, by id; a block cut in parts keeps the first.
    blocks: Vec<Block>,
    /// Block ids in text order.
    order: Vec<BlockId>,
    /// Where each block is in `order`, by id.
    rank: Vec<usize>,
    /// The blocks each block was cut into, by id.
    split_into: Vec<Vec<BlockId>>,
    /// The block size aimed at.
    size: usize,
    /// Blocks a splice made longer than twice `size`, for [`Blocks::rebalance`] to cut.
    grown: Vec<BlockId>,
}

impl<'a> Blocks<'a> {
    /// `original` cut into blocks of `size` bytes (at least one block, maybe empty).
    pub(super) fn new(original: &'a str, size: usize) -> Blocks<'a> {
        let size = size.max(1);
        let bytes = original.as_bytes();
        let mut blocks: Vec<Block> = (0..bytes.len().div_ceil(size))
            .map(|i| {
                let (s, e) = (i * size, ((i + 1) * size).min(bytes.len()));
                Block {
                    pieces: vec![Piece::Original(s, e)],
                    len: e - s,
                }
            })
            .collect();
        if blocks.is_empty() {
            blocks.push(Block::default());
        }
        let n = blocks.len();
        Blocks {
            original,
            changed: false,
            blocks,
            order: (0..n).collect(),
            rank: (0..n).collect(),
            split_into: vec![Vec::new(); n],
            size,
            grown: Vec::new(),
        }
    }

    /// The block that holds byte `at` of the original, before anything was changed.
    pub(super) fn first_block_of(&self, at: usize) -> BlockId {
        (at / self.size).min(self.order.len() - 1)
    }

    /// The block at `rank` in text order.
    pub(super) fn id(&self, rank: usize) -> BlockId {
        self.order[rank]
    }

    /// Where block `id` is in text order.
    pub(super) fn rank_of(&self, id: BlockId) -> usize {
        self.rank[id]
    }

    /// The length of the block at `rank`.
    pub(super) fn len_at(&self, rank: usize) -> usize {
        self.blocks[self.order[rank]].len
    }

    /// `id` and every block it was cut into since, pushed onto `out`.
    pub(super) fn descendants(&self, id: BlockId, out: &mut Vec<BlockId>) {
        let mut stack = vec![id];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.split_into[b].iter().copied());
        }
    }

    /// The normal form of a position (see [`Pos`]).
    pub(super) fn normal(&self, mut p: Pos) -> Pos {
        while p.off >= self.len_at(p.rank) && p.rank + 1 < self.order.len() {
            p.off -= self.len_at(p.rank);
            p.rank += 1;
        }
        p
    }

    /// The start of the text.
    pub(super) fn start(&self) -> Pos {
        self.normal(Pos { rank: 0, off: 0 })
    }

    /// `k` bytes after `p` (normal form; not past the end, which the callers never ask for
    /// beyond a clamp: see [`Blocks::forward_clamped`]).
    pub(super) fn forward(&self, p: Pos, k: usize) -> Pos {
        self.normal(Pos {
            rank: p.rank,
            off: p.off + k,
        })
    }

    /// Up to `k` bytes after `p`, stopping at the end of the text; also how many were passed.
    pub(super) fn forward_clamped(&self, p: Pos, mut k: usize) -> (Pos, usize) {
        let mut q = p;
        let mut moved = 0;
        loop {
            let room = self.len_at(q.rank) - q.off;
            if k <= room || q.rank + 1 == self.order.len() {
                let step = k.min(room);
                return (
                    self.normal(Pos {
                        rank: q.rank,
                        off: q.off + step,
                    }),
                    moved + step,
                );
            }
            k -= room;
            moved += room;
            q = Pos {
                rank: q.rank + 1,
                off: 0,
            };
        }
    }

    /// Up to `k` bytes before `p`, stopping at the start of the text; also how many were
    /// passed.
    pub(super) fn back_clamped(&self, p: Pos, k: usize) -> (Pos, usize) {
        let mut q = p;
        let mut left = k;
        while left > q.off {
            left -= q.off;
            if q.rank == 0 {
                return (self.start(), k - left);
            }
            q.rank -= 1;
            q.off = self.len_at(q.rank);
        }
        q.off -= left;
        (self.normal(q), k)
    }

    /// The byte at `p`, or `None` at the end of the text.
    pub(super) fn byte_at(&self, p: Pos) -> Option<u8> {
        let p = self.normal(p);
        let block = &self.blocks[self.order[p.rank]];
        let mut at = 0;
        for piece in &block.pieces {
            let n = piece.len();
            if p.off < at + n {
                let i = p.off - at;
                return Some(match piece {
                    Piece::Original(s, _) => self.original.as_bytes()[s + i],
                    Piece::New(t) => t[i],
                });
            }
            at += n;
        }
        None
    }

    /// Appends bytes `[start, end)` of the block at `rank` to `out`.
    pub(super) fn block_bytes(&self, rank: usize, start: usize, end: usize, out: &mut Vec<u8>) {
        let mut at = 0;
        for piece in &self.blocks[self.order[rank]].pieces {
            let n = piece.len();
            let (a, b) = (start.max(at), end.min(at + n));
            if a < b {
                out.extend_from_slice(match piece {
                    Piece::Original(s, _) => &self.original.as_bytes()[s + a - at..s + b - at],
                    Piece::New(t) => &t[a - at..b - at],
                });
            }
            at += n;
            if at >= end {
                break;
            }
        }
    }

    /// Appends the text from `from` to `to` (normal forms, `from <= to`) to `out`, and, when
    /// `starts` is given, the offset in `out` at which each block's share begins.
    pub(super) fn copy(
        &self,
        from: Pos,
        to: Pos,
        out: &mut Vec<u8>,
        mut starts: Option<&mut Vec<(usize, usize)>>,
    ) {
        let mut p = from;
        while p.rank <= to.rank {
            let end = if p.rank == to.rank {
                to.off
            } else {
                self.len_at(p.rank)
            };
            if let Some(s) = starts.as_deref_mut() {
                s.push((out.len(), p.rank));
            }
            self.block_bytes(p.rank, p.off, end, out);
            if p.rank == to.rank {
                break;
            }
            p = Pos {
                rank: p.rank + 1,
                off: 0,
            };
        }
    }

    /// The end of the text (normal form).
    pub(super) fn end(&self) -> Pos {
        let last = self.order.len() - 1;
        self.normal(Pos {
            rank: last,
            off: self.len_at(last),
        })
    }

    /// The whole current text, in one string (what an edit that needs the text itself — a
    /// repair, the curly-quote fallback, an error's line numbers — works on); the original
    /// itself, not a copy, while nothing has changed.
    pub(super) fn text(&self) -> Cow<'a, str> {
        if !self.changed {
            return Cow::Borrowed(self.original);
        }
        let total = self.blocks.iter().map(|b| b.len).sum();
        let mut out = Vec::with_capacity(total);
        self.copy(self.start(), self.end(), &mut out, None);
        // The pieces are cut at any byte, but together they are the text, which is UTF-8.
        Cow::Owned(utf8(out))
    }

    /// Appends up to `k` bytes of the text after the block at `rank` to `out`.
    pub(super) fn copy_after(&self, rank: usize, k: usize, out: &mut Vec<u8>) {
        let mut left = k;
        let mut r = rank + 1;
        while left > 0 && r < self.order.len() {
            let n = self.len_at(r).min(left);
            self.block_bytes(r, 0, n, out);
            left -= n;
            r += 1;
        }
    }

    /// The positions of byte offsets of the current text, in one walk when they ascend (a
    /// deletion's span may end one byte past the next span's start: the walk steps back).
    pub(super) fn positions(&self, offsets: impl IntoIterator<Item = usize>) -> Vec<Pos> {
        let mut out = Vec::new();
        let mut rank = 0;
        let mut base = 0;
        for at in offsets {
            while at < base && rank > 0 {
                rank -= 1;
                base -= self.len_at(rank);
            }
            while rank + 1 < self.order.len() && at >= base + self.len_at(rank) {
                base += self.len_at(rank);
                rank += 1;
            }
            out.push(self.normal(Pos {
                rank,
                off: at - base,
            }));
        }
        out
    }

    /// The replaced spans of the original that give the current text.
    pub(super) fn into_replacements(self) -> Vec<Replacement> {
        let original_len = self.original.len();
        let mut blocks: Vec<Option<Block>> = self.blocks.into_iter().map(Some).collect();
        let mut out = Vec::new();
        let mut cursor = 0;
        let mut pending: Vec<u8> = Vec::new();
        for id in self.order {
            let Some(block) = blocks[id].take() else {
                continue;
            };
            for piece in block.pieces {
                match piece {
                    Piece::New(t) if pending.is_empty() => pending = t,
                    Piece::New(t) => pending.extend_from_slice(&t),
                    Piece::Original(s, e) => {
                        if s != cursor || !pending.is_empty() {
                            out.push(Replacement {
                                start: cursor,
                                end: s,
                                text: utf8(std::mem::take(&mut pending)),
                            });
                        }
                        cursor = e;
                    }
                }
            }
        }
        if cursor != original_len || !pending.is_empty() {
            out.push(Replacement {
                start: cursor,
                end: original_len,
                text: utf8(pending),
            });
        }
        out
    }
}
