//! A seed stretched into the bytes a generated case is drawn from: a function of the seed
//! alone, shared by the generator and the tests of the parts it draws with.

/// Stretches a seed into bytes for `arbitrary`'s `Unstructured` (splitmix64): the same seed gives the same
/// case on every machine.
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}
