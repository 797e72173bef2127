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
        if let Some((start, len)) = whole_pages(v.as_ptr() as usize, bytes) {
            // SAFETY: advice about whole pages inside this vector's own allocation (what
            // `whole_pages` returns); it does not change the memory's contents or validity,
            // and failure is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    v
}

/// The whole 4 KiB pages inside `bytes` bytes from address `at`: their first address and
/// their length, or `None` when no whole page fits. `madvise` takes only page-aligned ranges,
/// and advice must not reach memory the vector does not own.
fn whole_pages(at: usize, bytes: usize) -> Option<(usize, usize)> {
    const PAGE: usize = 4096;
    let start = at.checked_next_multiple_of(PAGE)?;
    let end = at.checked_add(bytes)? / PAGE * PAGE;
    (end > start).then(|| (start, end - start))
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
    fn the_advised_range_is_every_whole_page_inside_the_buffer_and_nothing_else() {
        // Aligned: all of it.
        assert_eq!(whole_pages(8192, 3 * 4096), Some((8192, 3 * 4096)));
        // Unaligned at both ends: the pages strictly inside.
        assert_eq!(whole_pages(8192 + 1, 3 * 4096), Some((3 * 4096, 2 * 4096)));
        assert_eq!(whole_pages(100, 4096 + 4000), Some((4096, 4096)));
        // No whole page inside.
        assert_eq!(whole_pages(100, 4096), None);
        assert_eq!(whole_pages(4096, 4095), None);
        // An end past the address space advises nothing rather than wrapping.
        assert_eq!(whole_pages(usize::MAX - 10, 4096 * 4), None);
    }

    /// The `VmFlags` of the mapping that holds address `at`, from `/proc/self/smaps`.
    fn vm_flags(at: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line
                .split_whitespace()
                .next()
                .and_then(|r| r.split_once('-'));
            if let Some((lo, hi)) = range {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = lo <= at && at < hi;
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.to_string());
                }
            }
        }
        None
    }

    #[test]
    fn a_large_buffer_is_advised_for_huge_pages() {
        // Where the kernel has transparent huge pages, the advice is visible as the `hg` flag
        // of the mapping (proc(5)); without them there is nothing to see.
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return;
        }
        let v: Vec<u8> = large_vec(HUGE_MIN);
        let (start, _) = whole_pages(v.as_ptr() as usize, HUGE_MIN).expect("whole pages");
        let flags = vm_flags(start).expect("the buffer's mapping is listed");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }

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
