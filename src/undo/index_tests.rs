//! The index's format and UNDO-6's pruning, against a model written here: the units kept are
//! the newest ones such that no file has more than the per-file limit and the kept bytes and
//! units are within their limits.

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

#[test]
fn the_index_reads_back_what_it_wrote() {
    let index = Index {
        entries: vec![
            entry(1, 0, &[]),
            entry(2, 5, &[1, u64::MAX]),
            entry(3, 7, &[0]),
        ],
    };
    let bytes = index.render();
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "editref-undo-index 1\n\
         u00000000000000000001-0000000001-000000 0\n\
         u00000000000000000002-0000000001-000000 5 0000000000000001 ffffffffffffffff\n\
         u00000000000000000003-0000000001-000000 7 0000000000000000\n"
    );
    assert_eq!(Index::parse(&bytes), Some(index));
    assert_eq!(
        Index::parse(b"editref-undo-index 1\n"),
        Some(Index::default())
    );
}

/// A damaged index is never trusted: it is rebuilt from the records.
#[test]
fn a_damaged_index_does_not_parse() {
    let good = Index {
        entries: vec![entry(1, 3, &[9]), entry(2, 4, &[9])],
    }
    .render();
    let text = String::from_utf8(good.clone()).unwrap();
    let damaged: Vec<Vec<u8>> = vec![
        Vec::new(),
        good[..good.len() - 1].to_vec(), // cut short: no final newline
        good[..good.len() / 2].to_vec(), // cut in the middle of a line
        vec![0; good.len()],             // zeroed by a power cut
        text.replace("index 1", "index 2").into(), // another version
        text.replace(" 3 ", " x ").into(), // a size that is no number
        text.replace(" 4 ", " 4 12 ").into(), // a short path hash
        text.replace("u0000", "v0000").into(), // not an id
        text.replace("001-0000000001", "003-0000000001").into(), // ids out of order
    ];
    for bytes in damaged {
        assert_eq!(
            Index::parse(&bytes),
            None,
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
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

#[test]
fn undo_6_twenty_units_per_file_at_the_boundary() {
    let mut index = Index::default();
    for n in 0..20 {
        index.insert(entry(n, 1, &[7]));
    }
    index.insert(entry(100, 1, &[8]));
    assert!(index.prune(LIMITS).is_empty(), "20 units of one file stay");
    index.insert(entry(200, 1, &[7]));
    let dropped = index.prune(LIMITS);
    assert_eq!(
        ids(&dropped),
        ids(&[entry(0, 1, &[7])]),
        "the 21st drops the oldest"
    );
    assert_eq!(index.entries.len(), 21);
    assert!(
        index.entries.iter().any(|e| e.files == [8]),
        "another file is untouched"
    );
}

#[test]
fn undo_6_two_thousand_units_at_the_boundary() {
    let mut index = Index::default();
    for n in 0..2000 {
        index.insert(entry(n, 0, &[u64::from(n)]));
    }
    assert!(index.prune(LIMITS).is_empty(), "2000 units stay");
    index.insert(entry(5000, 0, &[99_999]));
    let dropped = index.prune(LIMITS);
    assert_eq!(ids(&dropped), ids(&[entry(0, 0, &[0])]));
    assert_eq!(index.entries.len(), 2000);
    assert_eq!(index.entries[0].id, entry(1, 0, &[]).id);
}

#[test]
fn undo_6_sixty_four_mib_at_the_boundary() {
    let mut index = Index::default();
    index.insert(entry(1, 1, &[1]));
    index.insert(entry(2, (64 << 20) - 1, &[2]));
    assert!(index.prune(LIMITS).is_empty(), "exactly 64 MiB stays");
    index.insert(entry(3, 1, &[3]));
    assert_eq!(ids(&index.prune(LIMITS)), ids(&[entry(1, 1, &[1])]));
    index.insert(entry(4, 64 << 20, &[4]));
    assert_eq!(
        ids(&index.prune(LIMITS)),
        ids(&[entry(2, 0, &[]), entry(3, 0, &[])]),
        "a unit of 64 MiB alone leaves room for nothing older"
    );
    assert_eq!(ids(&index.entries), ids(&[entry(4, 0, &[])]));
}

/// Pruning agrees with the model on journals of many shapes (multi-file units, small limits),
/// generated by a fixed pseudo-random sequence.
#[test]
fn undo_6_pruning_keeps_what_the_model_keeps() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for _ in 0..300 {
        let limits = Limits {
            per_file: 1 + next(4) as usize,
            bytes: 1 + next(40),
            units: 1 + next(12) as usize,
        };
        let entries: Vec<Entry> = (0..next(16) as u32)
            .map(|n| {
                let files: Vec<u64> = (0..1 + next(3)).map(|_| next(5)).collect();
                entry(n, next(12), &files)
            })
            .collect();
        let want = model(&entries, limits);
        let mut index = Index {
            entries: entries.clone(),
        };
        let dropped = index.prune(limits);
        assert_eq!(ids(&index.entries), want, "{entries:?} {limits:?}");
        assert_eq!(dropped.len() + index.entries.len(), entries.len());
    }
}
