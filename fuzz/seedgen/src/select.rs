//! Which seeds are committed: a small, fixed share of what the corpus gives, plus inputs made of
//! pseudo-random bytes for the targets whose framing turns any bytes into a meaningful case.
//!
//! The committed seeds give the CI smoke run and the depth gate (`tests/depth.rs` of
//! editref-fuzzing) a known starting point, so they must stay small (well under 2 MB) and be
//! exactly reproducible: the same corpus always selects the same files.

/// At most this many corpus seeds per target.
const CORPUS_CAP: usize = 250;
/// Corpus seeds longer than this are left out (the fuzzer grows inputs itself).
const MAX_LEN: usize = 2048;
/// Pseudo-random seeds per structured target with a depth goal.
const RANDOM: usize = 250;

/// Keeps at most [`CORPUS_CAP`] seeds of at most [`MAX_LEN`] bytes: those whose names hash
/// lowest. A sample by name hash is spread over the whole corpus, and a case added to or removed
/// from the corpus changes the selection by about one seed, not all of it.
pub(crate) fn corpus_share(mut list: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    list.retain(|(_, b)| b.len() <= MAX_LEN);
    list.sort_by_key(|(name, _)| (fnv(name), name.clone()));
    list.dedup_by(|a, b| a.1 == b.1);
    list.truncate(CORPUS_CAP);
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list
}

/// FNV-1a, 64 bits: a fixed hash, the same on every machine and Rust version.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Pseudo-random inputs for `target` (none for targets without a depth goal): the framing of
/// `edit_vs_model`, `atomic_write` and `repair` makes cases of any bytes, so these seeds show
/// what raw bytes reach and start the fuzzer on every form and shape.
pub(crate) fn random_share(target: &str) -> Vec<(String, Vec<u8>)> {
    if editref_fuzzing::depth::goal(target).is_none() {
        return Vec::new();
    }
    let seed = target.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    editref_fuzzing::depth::random_inputs(RANDOM, 512, seed)
        .into_iter()
        .enumerate()
        .map(|(i, b)| (format!("random-{i:03}"), b))
        .collect()
}

/// Seeds of `conform_gen` (none for other targets): the cases of the first seeds of a
/// differential run (`editref conform --fuzz --seed 0`) for an implementation declaring every
/// feature. The generator takes any bytes; these start the fuzzer on cases a run really makes.
pub(crate) fn generator_share(target: &str) -> Vec<(String, Vec<u8>)> {
    if target != "conform_gen" {
        return Vec::new();
    }
    (0..GENERATOR_SEEDS)
        .map(|i| {
            let input = editref_fuzzing::conform_gen::seed_input(i, 600);
            (format!("seed-{i:03}"), input)
        })
        .collect()
}

/// How many seeds [`generator_share`] gives.
const GENERATOR_SEEDS: u64 = 60;
