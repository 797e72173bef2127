//! The index's format, and UNDO-6's pruning against a model written here: the units kept are
//! the newest ones such that no file has more than the per-file limit and the kept bytes and
//! units are within their limits. The index's incremental pruning must agree with pruning the
//! whole journal at every step.

use super::*;

fn entry(n: u32, kept: u64, files: &[u64]) -> Entry {
    Entry {
        id: format!("u{n:020}-0000000001-000000"),
        kept,
        files: files.to_vec(),
    }
}

fn ids(entries: &[Entry]) -> Vec<String> {
    entries.iter().map(|e| e.id.clone()).collect()
}

const LIMITS: Limits = Limits {
    per_file: 20,
    bytes: 64 << 20,
    units: 2000,
};

fn index_of(entries: &[Entry]) -> Index {
    let (index, dropped) = Index::of(entries.to_vec(), LIMITS);
    assert!(dropped.is_empty());
    index
}

#[test]
fn the_index_reads_back_what_it_wrote() {
    let index = index_of(&[
        entry(1, 0, &[]),
        entry(2, 5, &[1, u64::MAX]),
        entry(3, 7, &[0]),
    ]);
    let bytes = index.render();
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "editref-undo-index 2 units=3 bytes=12 per-file=20 max-bytes=67108864 max-units=2000\n\
         u00000000000000000001-0000000001-000000 0\n\
         u00000000000000000002-0000000001-000000 5 0000000000000001 ffffffffffffffff\n\
         u00000000000000000003-0000000001-000000 7 0000000000000000\n"
    );
    assert_eq!(Index::parse(&bytes), Some(index.clone()));
    assert_eq!(index.last_id(), Some(entry(3, 0, &[]).id.as_str()));
    assert_eq!(
        index.entries(),
        Some(vec![
            entry(1, 0, &[]),
            entry(2, 5, &[1, u64::MAX]),
            entry(3, 7, &[0])
        ])
    );
    let empty = index_of(&[]);
    assert_eq!(Index::parse(&empty.render()), Some(empty.clone()));
    assert_eq!(empty.last_id(), None);
}

/// A visibly damaged index is never trusted: it is rebuilt from the records.
#[test]
fn a_damaged_index_does_not_parse() {
    let good = index_of(&[entry(1, 3, &[9]), entry(2, 4, &[9])]).render();
    let text = String::from_utf8(good.clone()).unwrap();
    let damaged: Vec<Vec<u8>> = vec![
        Vec::new(),
        good[..good.len() - 1].to_vec(), // cut short: no final newline
        good[..good.len() / 2].to_vec(), // cut in the middle
        vec![0; good.len()],             // zeroed by a power cut
        text.replace("index 2", "index 1").into(), // another version
        text.replace("units=2", "units=3").into(), // totals that do not match the lines
        text.replace("bytes=7", "bytes=x").into(),
        text.replace(" max-units=2000", "").into(),
        text.replace("max-units=2000", "max-units=2000 more=1")
            .into(),
    ];
    for bytes in damaged {
        assert_eq!(
            Index::parse(&bytes),
            None,
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
    // A damaged unit line is found when it is read, and the caller rebuilds.
    let bad_line = text.replace(" 4 0000", " x 0000");
    let mut index = Index::parse(bad_line.as_bytes()).unwrap();
    assert_eq!(index.entries(), None);
    assert_eq!(index.add(entry(3, 1, &[9]), LIMITS), None);
}

/// The model: newest first, a unit stays when every file of it has room and the totals,
/// it included, are within the limits; past the first unit over a total, nothing stays.
fn model(entries: &[Entry], limits: Limits) -> Vec<String> {
    let mut kept: Vec<&Entry> = Vec::new();
    for e in entries.iter().rev() {
        let room = e
            .files
            .iter()
            .all(|f| kept.iter().filter(|k| k.files.contains(f)).count() < limits.per_file);
        if !room {
            continue;
        }
        let bytes: u64 = kept.iter().map(|k| k.kept).sum::<u64>() + e.kept;
        if bytes > limits.bytes || kept.len() + 1 > limits.units {
            break;
        }
        kept.push(e);
    }
    kept.reverse();
    kept.iter().map(|e| e.id.clone()).collect()
}

/// Adds `e` to `index`, checking the result against pruning the whole journal; returns the
/// ids dropped.
fn add(index: &mut Index, e: Entry, limits: Limits) -> Vec<String> {
    let mut all = index.entries().unwrap();
    all.push(e.clone());
    let want = model(&all, limits);
    let dropped = index.add(e, limits).unwrap();
    let now = index.entries().unwrap();
    assert_eq!(ids(&now), want, "after adding to {all:?} with {limits:?}");
    assert_eq!(Index::parse(&index.render()).as_ref(), Some(&*index));
    assert_eq!(index.units, now.len());
    assert_eq!(index.bytes, now.iter().map(|e| e.kept).sum::<u64>());
    assert_eq!(dropped.len() + now.len(), all.len());
    ids(&dropped)
}

#[test]
fn undo_6_twenty_units_per_file_at_the_boundary() {
    let mut index = index_of(&[]);
    for n in 0..20 {
        assert!(add(&mut index, entry(n, 1, &[7]), LIMITS).is_empty());
    }
    assert!(add(&mut index, entry(100, 1, &[8]), LIMITS).is_empty());
    let dropped = add(&mut index, entry(200, 1, &[7]), LIMITS);
    assert_eq!(
        dropped,
        ids(&[entry(0, 1, &[7])]),
        "the 21st drops the oldest"
    );
    assert_eq!(index.units, 21);
}

#[test]
fn undo_6_two_thousand_units_at_the_boundary() {
    let all: Vec<Entry> = (0..2000).map(|n| entry(n, 0, &[u64::from(n)])).collect();
    let mut index = index_of(&all);
    let dropped = add(&mut index, entry(5000, 0, &[99_999]), LIMITS);
    assert_eq!(dropped, ids(&[entry(0, 0, &[0])]));
    assert_eq!(index.units, 2000);
}

#[test]
fn undo_6_sixty_four_mib_at_the_boundary() {
    let mut index = index_of(&[entry(1, 1, &[1]), entry(2, (64 << 20) - 1, &[2])]);
    assert_eq!(index.bytes, 64 << 20, "exactly 64 MiB stays");
    assert_eq!(
        add(&mut index, entry(3, 1, &[3]), LIMITS),
        ids(&[entry(1, 0, &[])])
    );
    assert_eq!(
        add(&mut index, entry(4, 64 << 20, &[4]), LIMITS),
        ids(&[entry(2, 0, &[]), entry(3, 0, &[])]),
        "a unit of 64 MiB alone leaves room for nothing older"
    );
}

/// A journal pruned to other limits (a changed configuration) is pruned whole.
#[test]
fn other_limits_prune_every_unit() {
    let mut index = index_of(&[entry(1, 1, &[1]), entry(2, 1, &[2]), entry(3, 1, &[1])]);
    let one = Limits {
        per_file: 1,
        ..LIMITS
    };
    assert_eq!(
        add(&mut index, entry(4, 1, &[2]), one),
        ids(&[entry(1, 0, &[]), entry(2, 0, &[])])
    );
    assert!(index
        .render()
        .starts_with(b"editref-undo-index 2 units=2 bytes=2 per-file=1 "));
}

#[test]
fn forgetting_a_unit_keeps_the_totals() {
    let mut index = index_of(&[entry(1, 3, &[1]), entry(2, 4, &[2]), entry(3, 5, &[1])]);
    index.forget(&entry(2, 0, &[]).id).unwrap();
    index.forget("u99").unwrap();
    assert_eq!(
        ids(&index.entries().unwrap()),
        ids(&[entry(1, 0, &[]), entry(3, 0, &[])])
    );
    assert_eq!((index.units, index.bytes), (2, 8));
    index.forget(&entry(3, 0, &[]).id).unwrap();
    index.forget(&entry(1, 0, &[]).id).unwrap();
    assert_eq!(index, index_of(&[]));
}

/// Pruning agrees with the model, and adding one unit at a time to the index agrees with
/// pruning the whole journal, on journals of many shapes (multi-file units, a file named twice,
/// small limits, undone units), generated by a fixed pseudo-random sequence.
#[test]
fn undo_6_pruning_keeps_what_the_model_keeps() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for _ in 0..500 {
        let limits = Limits {
            per_file: 1 + next(4) as usize,
            bytes: 1 + next(40),
            units: 1 + next(12) as usize,
        };
        let entries: Vec<Entry> = (0..next(24) as u32)
            .map(|n| {
                let files: Vec<u64> = (0..1 + next(3)).map(|_| next(5)).collect();
                entry(n, next(12), &files)
            })
            .collect();
        let mut whole = entries.clone();
        let dropped = prune::prune(&mut whole, limits);
        assert_eq!(
            ids(&whole),
            model(&entries, limits),
            "{entries:?} {limits:?}"
        );
        assert_eq!(dropped.len() + whole.len(), entries.len());

        let (mut index, _) = Index::of(Vec::new(), limits);
        for e in entries {
            if next(5) == 0 {
                if let Some(some) = index.entries().unwrap().first() {
                    index.forget(&some.id.clone()).unwrap();
                }
            }
            add(&mut index, e, limits);
        }
    }
}
