//! Changing the blocks: a splice rebuilds each block it touches in one pass over its pieces,
//! and a block grown past twice the block size is cut again.

use super::piece::{push, split_piece, Block, Piece};
use super::{BlockId, Blocks, Pos};

/// One change of a block, in the block's own offsets: `[start, end)` goes and `text` (when
/// given) takes its place.
struct Op {
    start: usize,
    end: usize,
    text: Option<String>,
}

impl Blocks<'_> {
    /// Replaces spans of the current text (normal forms, sorted; a span may start before the
    /// end of the one before it, as a deletion that takes the line break after a hit can, and
    /// then starts at that end). Returns where each text went, as its start and length, for the
    /// index to look at; those positions hold until [`Blocks::rebalance`].
    pub(in crate::engine) fn splice(
        &mut self,
        spans: Vec<(Pos, Pos, String)>,
    ) -> Vec<(Pos, usize)> {
        self.changed = true;
        let mut ops: Vec<(usize, Op)> = Vec::with_capacity(spans.len());
        let mut done: Option<Pos> = None;
        for (s, e, text) in spans {
            let s = match done {
                Some(d) if d > s => d,
                _ => s,
            };
            let e = e.max(s);
            if s.rank == e.rank {
                ops.push((
                    s.rank,
                    Op {
                        start: s.off,
                        end: e.off,
                        text: Some(text),
                    },
                ));
            } else {
                let end = self.len_at(s.rank);
                ops.push((
                    s.rank,
                    Op {
                        start: s.off,
                        end,
                        text: Some(text),
                    },
                ));
                for r in s.rank + 1..e.rank {
                    let end = self.len_at(r);
                    ops.push((
                        r,
                        Op {
                            start: 0,
                            end,
                            text: None,
                        },
                    ));
                }
                if e.off > 0 {
                    ops.push((
                        e.rank,
                        Op {
                            start: 0,
                            end: e.off,
                            text: None,
                        },
                    ));
                }
            }
            done = Some(e);
        }
        let mut inserted = Vec::new();
        let mut i = 0;
        while i < ops.len() {
            let rank = ops[i].0;
            let mut j = i;
            while j < ops.len() && ops[j].0 == rank {
                j += 1;
            }
            let group: Vec<Op> = ops[i..j]
                .iter_mut()
                .map(|(_, op)| Op {
                    start: op.start,
                    end: op.end,
                    text: op.text.take(),
                })
                .collect();
            for (off, len) in self.rebuild(rank, group) {
                inserted.push((Pos { rank, off }, len));
            }
            i = j;
        }
        inserted
            .into_iter()
            .map(|(p, len)| (self.normal(p), len))
            .collect()
    }

    /// Applies a block's changes in one pass over its pieces; returns the offsets and lengths
    /// of the texts put in.
    fn rebuild(&mut self, rank: usize, ops: Vec<Op>) -> Vec<(usize, usize)> {
        let id = self.order[rank];
        let mut old = Old {
            pieces: std::mem::take(&mut self.blocks[id].pieces)
                .into_iter()
                .map(Some)
                .collect(),
            next: 0,
            head: 0,
            cursor: 0,
        };
        let mut out: Vec<Piece> = Vec::with_capacity(old.pieces.len() + 2 * ops.len());
        let mut len = 0;
        let mut put = Vec::new();
        for op in ops {
            len += old.keep(op.start, &mut out);
            old.cursor = old.cursor.max(op.end);
            if let Some(t) = op.text {
                put.push((len, t.len()));
                len += t.len();
                push(&mut out, Piece::New(t.into_bytes()));
            }
        }
        len += old.keep(usize::MAX, &mut out);
        if len > 2 * self.size {
            self.grown.push(id);
        }
        self.blocks[id] = Block { pieces: out, len };
        put
    }

    /// Cuts every block a splice made longer than twice the block size into blocks of about
    /// that size, so that a search never reads a long block for a short needle. Only the blocks
    /// splices grew are looked at: a run of many edits never walks all the blocks.
    pub(in crate::engine) fn rebalance(&mut self) {
        let mut grown = std::mem::take(&mut self.grown);
        // From the last in text order, so that blocks put in after one leave the ranks of those
        // still to cut as they are.
        grown.sort_unstable_by_key(|&id| std::cmp::Reverse(self.rank[id]));
        grown.dedup();
        let mut cut_any = false;
        for id in grown {
            if self.blocks[id].len <= 2 * self.size {
                continue;
            }
            let rank = self.rank[id];
            let chunks = self.cut(id);
            let mut ids = Vec::with_capacity(chunks.len());
            for chunk in chunks {
                ids.push(self.blocks.len());
                self.blocks.push(chunk);
                self.split_into.push(Vec::new());
            }
            self.split_into[id].extend(ids.iter().copied());
            self.order.splice(rank + 1..rank + 1, ids);
            cut_any = true;
        }
        if cut_any {
            self.rank = vec![0; self.blocks.len()];
            for (r, &id) in self.order.iter().enumerate() {
                self.rank[id] = r;
            }
        }
    }

    /// Leaves the first `size` bytes (about) in block `id` and returns the rest as blocks.
    fn cut(&mut self, id: BlockId) -> Vec<Block> {
        let size = self.size;
        let pieces = std::mem::take(&mut self.blocks[id].pieces);
        let mut chunks: Vec<Block> = vec![Block::default()];
        for piece in pieces {
            let mut piece = Some(piece);
            while let Some(p) = piece.take() {
                let room = size.saturating_sub(chunks.last().map_or(0, |c| c.len));
                if room == 0 {
                    chunks.push(Block::default());
                    piece = Some(p);
                    continue;
                }
                let (head, tail) = split_piece(p, room);
                let last = chunks.last_mut().expect("at least one chunk");
                last.len += head.len();
                last.pieces.push(head);
                piece = tail;
            }
        }
        let mut chunks = chunks.into_iter();
        self.blocks[id] = chunks.next().unwrap_or_default();
        chunks.filter(|c| c.len > 0).collect()
    }
}

/// The pieces of a block being rebuilt, read from left to right.
struct Old {
    /// The pieces; a piece moved out whole is `None`.
    pieces: Vec<Option<Piece>>,
    /// The first piece not yet passed.
    next: usize,
    /// The block offset where that piece starts.
    head: usize,
    /// Everything before this block offset is kept or dropped already.
    cursor: usize,
}

impl Old {
    /// Moves the bytes `[cursor, to)` to `out` (whole pieces are moved, not copied) and
    /// returns how many there were.
    fn keep(&mut self, to: usize, out: &mut Vec<Piece>) -> usize {
        let mut kept = 0;
        while self.cursor < to && self.next < self.pieces.len() {
            let n = self.pieces[self.next].as_ref().map_or(0, Piece::len);
            if self.head + n <= self.cursor {
                self.head += n;
                self.next += 1;
                continue;
            }
            let (a, b) = (self.cursor - self.head, (to - self.head).min(n));
            kept += b - a;
            self.cursor = self.head + b;
            if a == 0 && b == n {
                if let Some(piece) = self.pieces[self.next].take() {
                    push(out, piece);
                }
            } else if let Some(piece) = &self.pieces[self.next] {
                push(
                    out,
                    match piece {
                        Piece::Original(s, _) => Piece::Original(s + a, s + b),
                        Piece::New(t) => Piece::New(t[a..b].to_vec()),
                    },
                );
            }
            if b == n {
                self.head += n;
                self.next += 1;
            }
        }
        kept
    }
}
