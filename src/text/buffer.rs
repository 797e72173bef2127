//! Large buffers backed by huge pages where the kernel offers them.
//!
//! Fresh memory is paid for page by page: the kernel faults in, zeroes and accounts every 4 KiB
//! the first time it is written. For the buffers an edit of a large file needs (the LF view of
//! a CRLF file, the text of a UTF-16 file), that cost rivals copying the file. Asking for
//! transparent huge pages (`MADV_HUGEPAGE`) turns 512 faults into one; where the kernel has
//! them disabled the advice is ignored and nothing else changes.

/// Buffers from this size on are advised (smaller ones fit in a few pages anyway).
const HUGE_MIN: usize = 4 << 20;

/// An empty vector with room for `capacity` elements, its memory advised for huge pages when
/// large. Nothing is written: the advice must come before the first touch.
pub fn large_vec<T>(capacity: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(capacity);
    let bytes = capacity.saturating_mul(std::mem::size_of::<T>());
    if bytes >= HUGE_MIN {
        let page = 4096;
        let at = v.as_ptr() as usize;
        let start = at.div_ceil(page) * page;
        let end = (at + bytes) / page * page;
        if end > start {
            // SAFETY: advice about whole pages inside this vector's own allocation; it does
            // not change the memory's contents or validity, and failure is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    v
}

/// [`large_vec`] for text.
pub fn large_string(capacity: usize) -> String {
    // An empty vector is valid UTF-8; the capacity (and its advice) carries over.
    String::from_utf8(large_vec(capacity)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_vec_is_an_ordinary_empty_vector() {
        for capacity in [0, 10, HUGE_MIN, HUGE_MIN + 3] {
            let mut v: Vec<u64> = large_vec(capacity);
            assert!(v.is_empty() && v.capacity() >= capacity);
            v.extend(0..capacity as u64);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
        }
    }
}
