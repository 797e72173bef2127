//! The blocks against a plain `String` changed the same way: after any series of splices and
//! cuts, the text, every byte, every walk and the replaced spans of the original agree.

use super::*;
use crate::text::Replacement;

/// The text the replacements make of `original`.
fn replaced(original: &str, reps: &[Replacement]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for r in reps {
        assert!(
            at <= r.start && r.start <= r.end,
            "sorted and disjoint: {reps:?}"
        );
        out.push_str(&original[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&original[at..]);
    out
}

/// Random sorted, disjoint spans of `text` (ASCII), with short texts to put in.
fn spans(rng: &mut fastrand::Rng, text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at <= text.len() && out.len() < 4 {
        let s = at + rng.usize(0..=(text.len() - at).min(6));
        let e = s + rng.usize(0..=(text.len() - s).min(3));
        let t: String = (0..rng.usize(0..4))
            .map(|_| rng.choice(['x', 'y', '\n']).unwrap_or('x'))
            .collect();
        out.push((s, e, t));
        at = e + 1;
        if rng.bool() {
            break;
        }
    }
    out
}

#[test]
fn text_6_splices_and_cuts_keep_the_text_and_the_original_spans() {
    for seed in 0..300 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let original: String = (0..rng.usize(0..40))
            .map(|_| rng.choice(['a', 'b', '\n']).unwrap_or('a'))
            .collect();
        let size = rng.usize(1..6);
        let mut blocks = Blocks::new(&original, size);
        let mut model = original.clone();
        for _ in 0..rng.usize(1..12) {
            let sp = spans(&mut rng, &model);
            let at = blocks.positions(sp.iter().flat_map(|(s, e, _)| [*s, *e]));
            let put = blocks.splice(
                sp.iter()
                    .zip(at.chunks_exact(2))
                    .map(|((_, _, t), p)| (p[0], p[1], t.clone()))
                    .collect(),
            );
            let mut next = String::new();
            let mut cursor = 0;
            let mut starts = Vec::new();
            for (s, e, t) in &sp {
                next.push_str(&model[cursor..*s]);
                starts.push((next.len(), t.len()));
                next.push_str(t);
                cursor = *e;
            }
            next.push_str(&model[cursor..]);
            model = next;
            // Where each text went, as the index is told.
            let got: Vec<(usize, usize)> = put
                .iter()
                .map(|&(p, len)| (offset(&blocks, p), len))
                .collect();
            assert_eq!(got, starts, "seed {seed}");
            if rng.bool() {
                blocks.rebalance();
            }
            assert_eq!(blocks.text(), model, "seed {seed}");
            walks_agree(&blocks, &model, seed);
        }
        assert_eq!(replaced(&original, &blocks.into_replacements()), model);
    }
}

/// The offset of a position in the text.
fn offset(blocks: &Blocks<'_>, p: Pos) -> usize {
    (0..p.rank).map(|r| blocks.len_at(r)).sum::<usize>() + p.off
}

/// Every position, byte, step and copy agrees with the model text.
fn walks_agree(blocks: &Blocks<'_>, model: &str, seed: u64) {
    let all = blocks.positions(0..=model.len());
    for (i, &p) in all.iter().enumerate() {
        assert_eq!(offset(blocks, p), i, "seed {seed}");
        assert_eq!(blocks.byte_at(p), model.as_bytes().get(i).copied());
        for k in 0..4 {
            let (f, moved) = blocks.forward_clamped(p, k);
            assert_eq!(
                (offset(blocks, f), moved),
                ((i + k).min(model.len()), (model.len() - i).min(k))
            );
            let (b, moved) = blocks.back_clamped(p, k);
            assert_eq!((offset(blocks, b), moved), (i.saturating_sub(k), i.min(k)));
        }
        let mut out = Vec::new();
        blocks.copy(all[0], p, &mut out, None);
        assert_eq!(out, model.as_bytes()[..i].to_vec());
    }
    assert_eq!(blocks.end(), all[model.len()]);
}

#[test]
fn a_span_that_starts_inside_the_one_before_starts_at_its_end() {
    // EDIT-2 can make a deletion's span end one byte into the next hit ("\nx" deleted in
    // "\nx\nx" takes 0..3 and 2..4): the second starts where the first ended.
    // With blocks of 3 bytes or fewer the second span's start lies in an earlier block than
    // the first one's end: the walk of `positions` steps back.
    let original = "\nx\nx!";
    for size in 1..=6 {
        let mut blocks = Blocks::new(original, size);
        let at = blocks.positions([0, 3, 2, 4]);
        let offsets: Vec<usize> = at.iter().map(|&p| offset(&blocks, p)).collect();
        assert_eq!(offsets, [0, 3, 2, 4], "size {size}");
        blocks.splice(vec![
            (at[0], at[1], String::new()),
            (at[2], at[3], String::new()),
        ]);
        assert_eq!(blocks.text(), "!", "size {size}");
    }
}

#[test]
fn an_unchanged_text_is_the_original_itself() {
    let original = "abc";
    let blocks = Blocks::new(original, 1);
    assert!(matches!(blocks.text(), Cow::Borrowed(t) if t.as_ptr() == original.as_ptr()));
    assert_eq!(Blocks::new("", 4).into_replacements(), vec![]);
}
