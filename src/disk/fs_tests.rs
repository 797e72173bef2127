//! The file-system seam's real file handles: what they read, map, lock and report.

use super::*;

/// Whether this system lets a reader of `path` map it (D28): the kernel grants a read
/// lease on it, and keeps a lease for at least 10 s after a writer asks.
fn mapping_possible(path: &Path) -> bool {
    let break_secs = std::fs::read_to_string("/proc/sys/fs/lease-break-time")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let file = File::open(path).unwrap();
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns; the lease goes with it.
    let leased = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0 };
    leased && break_secs.is_some_and(|s| s >= 10)
}

fn map(path: &Path, cap: u64) -> Option<FileBytes> {
    RealFs.open_read(path).unwrap().map_all(cap).unwrap()
}

/// D28: a file of 1 MiB or more is mapped whenever it is within the size cap — a file of
/// exactly 1 MiB, and one of exactly the cap's size, included — and the mapping holds its
/// bytes exactly; a file over the cap or under 1 MiB is left to be read. Where the system grants no lease, nothing is
/// mapped.
#[test]
fn d28_files_from_one_mib_up_to_the_cap_are_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    let content: Vec<u8> = (0..1 << 20).map(|i| b"0123456789\n"[i % 11]).collect();
    let len = content.len() as u64;
    std::fs::write(&big, &content).unwrap();
    let small = dir.path().join("small");
    std::fs::write(&small, &content[..(1 << 20) - 1]).unwrap();
    let possible = mapping_possible(&big);
    for cap in [len, len + 1, 1 << 30] {
        match map(&big, cap) {
            Some(FileBytes::Mapped(m)) => assert_eq!(&m[..], &content[..], "cap {cap}"),
            other => assert!(!possible, "cap {cap}: {other:?}"),
        }
    }
    assert!(map(&big, len - 1).is_none(), "over the cap");
    assert!(map(&small, 1 << 30).is_none(), "under 1 MiB");
}

/// The size cap is inclusive: a file of exactly the cap's size is read whole, and one of
/// a byte more is `FileTooLarge` (load reports it as too large instead of cutting it).
#[test]
fn a_file_of_exactly_the_cap_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, b"hello\n").unwrap();
    let read = |cap| RealFs.open_read(&p).unwrap().read_all(cap);
    assert_eq!(read(6).unwrap(), b"hello\n");
    assert_eq!(read(7).unwrap(), b"hello\n");
    assert_eq!(read(5).unwrap_err().kind(), io::ErrorKind::FileTooLarge);
}

/// A lease given up — as `map_all` does whenever it took one but maps nothing after all —
/// is gone at once: the handle no longer reports a held lease, and a writer opening the
/// file is let in without waiting (D28: editref holds writers off only while it maps).
#[test]
fn d28_a_released_lease_lets_writers_in_at_once() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, b"content\n").unwrap();
    let file = RealFile(File::open(&p).unwrap());
    // SAFETY: fcntl on a descriptor the test owns.
    let leased = unsafe { libc::fcntl(file.0.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) };
    if leased != 0 {
        // No leases on this system: nothing to give up.
        return;
    }
    assert!(file.content_stable());
    file.release_lease();
    assert!(!file.content_stable());
    let writer = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&p);
    assert!(writer.is_ok(), "{writer:?}");
    assert_eq!(std::fs::read(&p).unwrap(), b"content\n");
}

/// SESSION-2 compares modification times at the file system's full precision: seconds
/// and nanoseconds make one count of nanoseconds since the epoch.
#[test]
fn session_2_mtime_is_nanoseconds_since_the_epoch() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    let file = File::create(&p).unwrap();
    let at = std::time::UNIX_EPOCH + std::time::Duration::new(1_700_000_000, 123_456_789);
    file.set_times(std::fs::FileTimes::new().set_modified(at))
        .unwrap();
    let meta = RealFs.symlink_metadata(&p).unwrap();
    assert_eq!(meta.mtime_ns, 1_700_000_000_123_456_789);
    drop(file);
}

/// D24: `try_lock` tells a file whose lock another holder has (`Ok(false)`, without
/// waiting) from one it takes (`Ok(true)`); once the holder closes its handle, the lock
/// is free again. The fault-injecting and the recording file systems answer as the plain one
/// (the orphan sweep asks through them in the reliability suites).
#[test]
fn d24_try_lock_answers_false_while_another_handle_holds_the_lock() {
    use crate::disk::{FaultFs, RecordFs};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, b"x").unwrap();
    let fault = FaultFs::new(Arc::new(RealFs));
    let record = RecordFs::new(Arc::new(RealFs));
    let all: [&dyn Fs; 3] = [&RealFs, &fault, &record];
    for (i, fs) in all.into_iter().enumerate() {
        let holder = fs.open_read(&p).unwrap();
        let other = fs.open_read(&p).unwrap();
        assert!(holder.try_lock().unwrap(), "fs {i}");
        assert!(!other.try_lock().unwrap(), "fs {i}");
        drop(holder);
        assert!(other.try_lock().unwrap(), "fs {i}");
    }
    // `lock` through each of them holds the lock too.
    for (i, fs) in all.into_iter().enumerate() {
        let locked = fs.open_read(&p).unwrap();
        locked.lock().unwrap();
        assert!(!RealFs.open_read(&p).unwrap().try_lock().unwrap(), "fs {i}");
    }
    let own = record
        .create_exclusive(&dir.path().join("locked"), 0o600)
        .unwrap();
    own.lock().unwrap();
    let reader = RealFs.open_read(&dir.path().join("locked")).unwrap();
    assert!(!reader.try_lock().unwrap());
    // A file the recording made answers through its own handle as well.
    let made = dir.path().join("made");
    let own = record.create_exclusive(&made, 0o600).unwrap();
    let reader = RealFs.open_read(&made).unwrap();
    assert!(reader.try_lock().unwrap());
    assert!(!own.try_lock().unwrap());
    drop(reader);
    assert!(own.try_lock().unwrap());
}

/// D28: mapping needs a lease-break time of at least 10 s; a shorter one, or one that cannot be
/// read, means reading. (The kernel's own value is what the tests above run with.)
#[test]
fn d28_a_lease_break_time_under_ten_seconds_or_unknown_means_reading() {
    assert!(!lease_break_allows_mapping(None));
    assert!(!lease_break_allows_mapping(Some(0)));
    assert!(!lease_break_allows_mapping(Some(9)));
    assert!(lease_break_allows_mapping(Some(10)));
    assert!(lease_break_allows_mapping(Some(45)));
}

/// D28: files from 1 MiB up to the size cap are mapped, at exactly both ends too; smaller and
/// larger ones are read. The same judgement is made again under the lease, where only a
/// racing writer could make it differ, so it is tested here by itself.
#[test]
fn d28_sizes_from_one_mib_up_to_the_cap_are_mappable() {
    let mib = 1 << 20;
    assert_eq!(mappable(0, 8 * mib), None);
    assert_eq!(mappable(mib - 1, 8 * mib), None);
    assert_eq!(mappable(mib, 8 * mib), Some(1 << 20));
    assert_eq!(mappable(3 * mib + 7, 8 * mib), Some(3 * (1 << 20) + 7));
    assert_eq!(mappable(8 * mib, 8 * mib), Some(8 << 20));
    assert_eq!(mappable(8 * mib + 1, 8 * mib), None);
    assert_eq!(mappable(2 * mib, mib), None);
}

/// D28: a file is mapped only when both its size and the lease-break time allow it; a size
/// worth mapping under a short or unknown lease-break time is read, as is a small file under
/// a long one.
#[test]
fn d28_mapping_needs_both_the_size_and_the_lease_break_time() {
    let mib = 1 << 20;
    assert!(worth_mapping(2 * mib, 8 * mib, Some(45)));
    assert!(!worth_mapping(2 * mib, 8 * mib, Some(5)));
    assert!(!worth_mapping(2 * mib, 8 * mib, None));
    assert!(!worth_mapping(mib - 1, 8 * mib, Some(45)));
    assert!(!worth_mapping(9 * mib, 8 * mib, Some(45)));
}

/// DISK-4: `sync` answers what `fsync` answers — here the `EINVAL` of a descriptor that
/// cannot be synced (a FIFO), which a write must see rather than take for durability.
#[test]
fn sync_reports_what_fsync_answers() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    crate::disk::mkfifo(&fifo);
    // Opening a FIFO for reading and writing does not wait for a peer (Linux).
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let e = RealFile(file).sync().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    let mut plain = RealFile(File::create(dir.path().join("f")).unwrap());
    plain.sync().unwrap();
}

/// D28: a handle without a read lease does not call its content stable — whatever it read
/// may be changed by a writer at any time; only a mapping under a lease is.
#[test]
fn d28_a_handle_without_a_lease_is_not_stable() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, b"small\n").unwrap();
    assert!(!RealFs.open_read(&p).unwrap().content_stable());
    let beneath = crate::disk::BeneathFs::new(dir.path()).unwrap();
    let mut h = beneath.open_read(&p).unwrap();
    assert_eq!(
        h.map_all(1 << 20).unwrap(),
        None,
        "under 1 MiB: read, not mapped"
    );
    assert!(!h.content_stable());
}

/// Two file contents are equal when their bytes are, however they were loaded.
#[test]
fn file_bytes_compare_by_their_bytes() {
    assert_eq!(
        FileBytes::Owned(b"abc".to_vec()),
        FileBytes::Owned(b"abc".to_vec())
    );
    assert_ne!(
        FileBytes::Owned(b"abc".to_vec()),
        FileBytes::Owned(b"abd".to_vec())
    );
}

/// A file's bytes show as how they are held and how many, never as the bytes.
#[test]
fn file_bytes_show_their_kind_and_length_only() {
    let owned = FileBytes::Owned(b"secret\n".to_vec());
    assert_eq!(format!("{owned:?}"), "FileBytes::Owned(7 bytes)");
    let anon = memmap2::MmapMut::map_anon(3)
        .unwrap()
        .make_read_only()
        .unwrap();
    assert_eq!(
        format!("{:?}", FileBytes::Mapped(anon)),
        "FileBytes::Mapped(3 bytes)"
    );
}

/// D10: a rename that must not replace falls back to link-and-unlink exactly where the file
/// system does not know the flag (`EINVAL`, `ENOSYS`); every other answer, success or error,
/// is the rename's own.
#[test]
fn d10_a_rename_that_must_not_replace_falls_back_only_where_the_flag_is_unknown() {
    let err = |code| Err(io::Error::from_raw_os_error(code));
    let code = |r: io::Result<()>| r.map_err(|e| e.raw_os_error());
    for unknown in [libc::EINVAL, libc::ENOSYS] {
        assert_eq!(code(or_by_link(err(unknown), || Ok(()))), Ok(()));
        assert_eq!(
            code(or_by_link(err(unknown), || err(libc::EEXIST))),
            Err(Some(libc::EEXIST))
        );
    }
    for own in [libc::EEXIST, libc::EXDEV, libc::ENOENT] {
        let r = or_by_link(err(own), || panic!("no fallback after errno {own}"));
        assert_eq!(code(r), Err(Some(own)));
    }
    assert_eq!(
        code(or_by_link(Ok(()), || panic!("no fallback after a rename"))),
        Ok(())
    );
}

/// D10: the fallback moves the file to a free name, and refuses a taken one with `EEXIST`,
/// leaving both files as they were.
#[test]
fn d10_the_link_fallback_moves_to_a_free_name_and_never_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    std::fs::write(&a, b"moved\n").unwrap();
    std::fs::write(&c, b"taken\n").unwrap();
    rename_by_link(&a, &b).unwrap();
    assert!(!a.exists());
    assert_eq!(std::fs::read(&b).unwrap(), b"moved\n");
    let e = rename_by_link(&b, &c).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EEXIST));
    assert_eq!(std::fs::read(&b).unwrap(), b"moved\n");
    assert_eq!(std::fs::read(&c).unwrap(), b"taken\n");
}

/// DISK-2: an owner change is made on the file, or refused with the file's owner left as it
/// was — never a success that changed nothing (the owner is part of what a replaced file
/// keeps).
#[test]
fn disk_2_an_owner_change_is_made_or_refused_never_pretended() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    let mut file = RealFs.create_exclusive(&p, 0o600).unwrap();
    let before = std::fs::metadata(&p).unwrap();
    let owner = || {
        let m = std::fs::metadata(&p).unwrap();
        (m.uid(), m.gid())
    };
    match file.set_owner(4321, 4322) {
        Ok(()) => assert_eq!(owner(), (4321, 4322)),
        Err(_) => assert_eq!(owner(), (before.uid(), before.gid())),
    }
    assert_ne!((before.uid(), before.gid()), (4321, 4322));
}

/// DISK-6: a directory fsync answers what opening and syncing the directory answers — a
/// directory that is not there is an error, not a durability that was never had.
#[test]
fn disk_6_a_directory_sync_reports_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    RealFs.sync_dir(dir.path()).unwrap();
    let e = RealFs.sync_dir(&dir.path().join("gone")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
}

/// D30, DISK-2: a read is opened without following a final symlink, as the seam promises —
/// resolution has already followed every link, so a link met at the open was put there after
/// it and is refused (`ELOOP`) rather than read through to wherever it points.
#[test]
fn d30_a_read_never_follows_a_final_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    std::fs::write(&target, b"secret\n").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let e = RealFs
        .open_read(&link)
        .err()
        .expect("a symlink must not be opened");
    assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    let mut plain = RealFs.open_read(&target).unwrap();
    assert_eq!(plain.read_all(1 << 20).unwrap(), b"secret\n");
}
