//! The atomic write (DISK-1, DISK-6, SESSION-3/4): [`atomic_write`] replaces or creates a
//! file from a [`WriteRequest`].
//!
//! One file for the whole sequence, because its order is the guarantee: the content staged in
//! a temp file beside the target (`staged.rs`: unnamed where the file system allows, written,
//! mode copied, fsynced); then, under the lock on the loaded inode and after checking that
//! nobody changed the file or swapped its directory, the temp file named and renamed over the
//! target (or, for a new file, linked to its name), and the directory fsynced. Every failure
//! before that removes the temp file and leaves the original bytes as they were. After a
//! successful write, orphaned temp files of dead writers in the directory are removed
//! (`orphans.rs`).

use super::fs::{FileBytes, Fs, Kind};
use super::load::{load, Loaded};
use super::orphans;
use super::path::real_path;
use super::refusal::{io_error, stale};
use super::request::{WriteRequest, Written};
use super::staged::{prepare, Prepared};
use crate::error::ToolError;
use std::io;
use std::path::Path;

/// DISK-1 / SESSION-3: atomically replaces (or creates) `req.target` with `req.chunks`.
pub fn atomic_write(fs: &dyn Fs, req: &WriteRequest<'_, '_>) -> Result<Written, ToolError> {
    let mut prepared = prepare(fs, req)?;
    let committed = match req.existing {
        Some(loaded) => commit_replace(fs, &mut prepared, req.target, loaded),
        None => commit_create(fs, &mut prepared, req.target),
    };
    if let Err(e) = committed {
        prepared.discard(fs);
        return Err(e);
    }
    // The new content is in place; a failing directory sync only weakens durability, which the
    // result reports. The directories made for a new file are synced into theirs too (DISK-6).
    let dir = req.target.parent().unwrap_or(Path::new("/"));
    let durable = req.fsync && fs.sync_dir(dir).is_ok() && prepared.dirs.sync_parents(fs);
    orphans::sweep(fs, dir);
    Ok(Written {
        meta: prepared.meta,
        durable,
    })
}

/// Puts a prepared new file at a path that must not exist yet: `stale` when something
/// appeared there meanwhile, never a silent overwrite.
pub(super) fn commit_create(
    fs: &dyn Fs,
    prepared: &mut Prepared,
    target: &Path,
) -> Result<(), ToolError> {
    let dir = target.parent().unwrap_or(Path::new("/"));
    same_directory(fs, dir)?;
    prepared.create(fs, target)
}

/// PATH-2 under a race: `dir` was resolved with every symlink followed, so it must still be
/// reachable without one. A component swapped for a symlink since (for instance the target's
/// directory moved out of the root and a link to it left in its place) would make the rename
/// land outside the directory that was checked, so it is `stale` instead. What remains is the
/// instant between this check and the rename, which only `renameat` on a directory handle kept
/// from resolution could close.
fn same_directory(fs: &dyn Fs, dir: &Path) -> Result<(), ToolError> {
    match real_path(fs, dir) {
        Ok((real, true)) if real == dir => Ok(()),
        Ok(_) => Err(stale(
            "its directory was moved or replaced by a symbolic link",
        )),
        Err(e) => Err(io_error(
            "check the directory before replacing the file",
            &e,
        )),
    }
}

/// Check 2 under the lock, then the rename (SESSION-3, SESSION-4).
fn commit_replace(
    fs: &dyn Fs,
    prepared: &mut Prepared,
    target: &Path,
    loaded: &Loaded,
) -> Result<(), ToolError> {
    check_unchanged(fs, target, loaded)?;
    prepared.replace(fs, target)
}

/// Write-time check 2 (SESSION-3, SESSION-4): takes the lock on the inode that was loaded and
/// checks that this inode is still the file at `target`, unchanged, in a directory reached
/// without a swapped-in symlink. The lock stays held as long as `loaded` lives.
///
/// Every editref process that replaces a file holds the lock on the inode it loaded and first
/// checks that this inode is still the one at the path, so two of them can never both replace
/// the same version: the second sees a new inode and reports `stale`.
pub(super) fn check_unchanged(
    fs: &dyn Fs,
    target: &Path,
    loaded: &Loaded,
) -> Result<(), ToolError> {
    loaded
        .handle
        .lock()
        .map_err(|e| io_error("lock the file", &e))?;
    let now = match fs.symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(stale("it was removed")),
        Err(e) => return Err(io_error("stat the file before replacing it", &e)),
    };
    if !now.same_identity(&loaded.meta) || now.kind != Kind::File {
        return Err(stale("it was replaced by another file"));
    }
    // A mapped file whose lease is being broken has a writer waiting to change it (held off
    // by the lease, so size and mtime cannot show it yet). Renaming now would hand that
    // writer the replaced inode and lose its change; refusing lets it go ahead (D28).
    if matches!(loaded.bytes, FileBytes::Mapped(_)) && !loaded.handle.content_stable() {
        return Err(stale("another program opened it to write to it"));
    }
    if now.mtime_ns != loaded.meta.mtime_ns || now.len != loaded.meta.len {
        let again = load(fs, target, loaded.meta.len.max(now.len))
            .map_err(|_| stale("it could no longer be read"))?;
        if again.bytes != loaded.bytes {
            return Err(stale("its content changed"));
        }
    }
    same_directory(fs, target.parent().unwrap_or(Path::new("/")))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::staged::{DIRECT_WRITE, WRITE_PIECE};
    use super::*;
    use crate::disk::{is_temp_name, Fault, FaultFs, Op, RealFs, MAP_MIN};
    use crate::error::Code;
    use crate::text::Chunk;
    use std::sync::Arc;

    fn chunks(s: &str) -> Vec<Chunk<'_>> {
        vec![Chunk::Original(s.as_bytes())]
    }

    fn residue(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| is_temp_name(n))
            .collect()
    }

    /// Writes `chunks` as the new file `target` through `fs`, as a Write of a file that does
    /// not exist yet asks: no fsync, the default mode.
    pub(in crate::disk) fn create(
        fs: &dyn Fs,
        target: &Path,
        chunks: &[Chunk<'_>],
    ) -> Result<Written, ToolError> {
        let request = WriteRequest {
            target,
            chunks,
            existing: None,
            fsync: false,
            mode: None,
        };
        atomic_write(fs, &request)
    }

    /// Replaces `target`, loaded as `loaded`, with `chunks` through `fs`, as an Edit asks: no
    /// fsync, the mode kept.
    fn replace(
        fs: &dyn Fs,
        target: &Path,
        loaded: &Loaded,
        chunks: &[Chunk<'_>],
    ) -> Result<Written, ToolError> {
        let request = WriteRequest {
            target,
            chunks,
            existing: Some(loaded),
            fsync: false,
            mode: None,
        };
        atomic_write(fs, &request)
    }

    #[test]
    fn disk_1_replace_keeps_mode_and_leaves_no_temp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.sh");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        let loaded = load(&RealFs, &p, 1 << 20).unwrap();
        let c = chunks("new");
        atomic_write(
            &RealFs,
            &WriteRequest {
                target: &p,
                chunks: &c,
                existing: Some(&loaded),
                fsync: true,
                mode: None,
            },
        )
        .unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o755
        );
        assert!(residue(dir.path()).is_empty());
    }

    /// DISK-1: a new file asked for with no mode gets the one a plain create in the same
    /// directory gets from the kernel (0666 less the process umask), not 0666 itself.
    #[test]
    fn disk_1_a_new_file_gets_the_mode_a_plain_create_gets() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model.txt");
        std::fs::File::create(&model).unwrap();
        let p = dir.path().join("new.txt");
        create(&RealFs, &p, &chunks("fresh")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"fresh");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), mode(&model));
        assert!(residue(dir.path()).is_empty());
    }

    /// DISK-1: a replaced file keeps its owner where the process may give it away (as root,
    /// say); where it may not, the write still succeeds (the owner cannot be kept then).
    #[test]
    fn disk_1_replace_keeps_the_owner_where_the_process_may() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "old").unwrap();
        let may = std::os::unix::fs::chown(&p, Some(4321), Some(4322)).is_ok();
        let before = std::fs::metadata(&p).unwrap();
        let loaded = load(&RealFs, &p, 1 << 20).unwrap();
        let c = chunks("new");
        replace(&RealFs, &p, &loaded, &c).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let after = std::fs::metadata(&p).unwrap();
        assert_ne!(after.ino(), before.ino(), "the file was replaced");
        if may {
            assert_eq!((after.uid(), after.gid()), (4321, 4322));
        }
        assert!(residue(dir.path()).is_empty());
    }

    #[test]
    fn disk_1_every_fault_leaves_the_original_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        for (op, fault) in [
            (Op::CreateUnnamed, Fault::Errno(libc::EACCES)),
            (Op::LinkTemp, Fault::Errno(libc::EIO)),
            (Op::WriteAll, Fault::ShortWrite),
            (Op::WriteAll, Fault::Errno(libc::ENOSPC)),
            (Op::Sync, Fault::Errno(libc::EIO)),
            (Op::SetMode, Fault::Errno(libc::EPERM)),
            (Op::Lock, Fault::Errno(libc::EIO)),
            (Op::Rename, Fault::Errno(libc::EXDEV)),
        ] {
            std::fs::write(&p, "original").unwrap();
            let fs = FaultFs::new(Arc::new(RealFs)).fail(op, 1, fault);
            let loaded = load(&fs, &p, 1 << 20).unwrap();
            let c = chunks("replacement text");
            let err = atomic_write(
                &fs,
                &WriteRequest {
                    target: &p,
                    chunks: &c,
                    existing: Some(&loaded),
                    fsync: true,
                    mode: None,
                },
            )
            .unwrap_err();
            assert!(
                matches!(err.code, Code::Io | Code::PermissionDenied),
                "{op:?}"
            );
            assert_eq!(std::fs::read(&p).unwrap(), b"original", "{op:?}");
            assert!(residue(dir.path()).is_empty(), "{op:?}");
        }
    }

    #[test]
    fn session_3_change_between_load_and_rename_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "original").unwrap();
        let p2 = p.clone();
        let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
            if op == Op::Lock {
                std::fs::write(&p2, "someone else").unwrap();
            }
        });
        let loaded = load(&fs, &p, 1 << 20).unwrap();
        let c = chunks("mine");
        let err = replace(&fs, &p, &loaded, &c).unwrap_err();
        assert_eq!(err.code, Code::Stale);
        assert_eq!(std::fs::read(&p).unwrap(), b"someone else");
        assert!(residue(dir.path()).is_empty());
    }

    #[test]
    fn disk_1_many_small_chunks_are_written_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let big = vec![b'x'; DIRECT_WRITE + 5];
        // Longer than one write piece, and not a multiple of it.
        let huge: Vec<u8> = (0..2 * WRITE_PIECE + 7)
            .map(|i| b'a' + (i % 23) as u8)
            .collect();
        let mut chunks = vec![Chunk::Original(b"head ")];
        let mut expected = b"head ".to_vec();
        for i in 0..20_000u32 {
            let bytes = format!("{i},").into_bytes();
            expected.extend_from_slice(&bytes);
            chunks.push(Chunk::New(bytes));
            if i == 10_000 {
                expected.extend_from_slice(&big);
                chunks.push(Chunk::Original(&big));
            }
            if i == 15_000 {
                expected.extend_from_slice(&huge);
                chunks.push(Chunk::Original(&huge));
            }
        }
        create(&RealFs, &p, &chunks).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), expected);
        assert!(residue(dir.path()).is_empty());
    }

    /// DISK-1 with mapped input, and D28: a writer that asks while the file is mapped is
    /// held off, and the edit then refuses (stale) rather than rename over the file that
    /// writer is about to change.
    #[test]
    fn large_files_load_exactly_and_a_mapping_holds_writers_off() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.txt");
        let content: Vec<u8> = (0..MAP_MIN as usize + 12_345)
            .map(|i| b"abcdefghij\n"[i % 11])
            .collect();
        std::fs::write(&p, &content).unwrap();
        let writer = || {
            std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&p)
        };
        let insert_xyz = |loaded: &Loaded| {
            let chunks = [
                Chunk::Original(&loaded.bytes[..10]),
                Chunk::New(b"XYZ".to_vec()),
                Chunk::Original(&loaded.bytes[10..]),
            ];
            replace(&RealFs, &p, loaded, &chunks)
        };
        // A replace from the mapped bytes writes them exactly.
        let loaded = load(&RealFs, &p, 1 << 30).unwrap();
        assert_eq!(&*loaded.bytes, &content[..]);
        insert_xyz(&loaded).unwrap();
        let mut expected = content[..10].to_vec();
        expected.extend_from_slice(b"XYZ");
        expected.extend_from_slice(&content[10..]);
        assert_eq!(std::fs::read(&p).unwrap(), expected);
        drop(loaded);
        // A writer arriving while the new file is mapped: held off, and the edit gives way.
        let loaded = load(&RealFs, &p, 1 << 30).unwrap();
        if matches!(loaded.bytes, FileBytes::Mapped(_)) {
            assert!(loaded.handle.content_stable());
            let err = writer().unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EWOULDBLOCK));
            assert!(!loaded.handle.content_stable());
            let err = insert_xyz(&loaded).unwrap_err();
            assert_eq!(err.code, Code::Stale);
            assert_eq!(std::fs::read(&p).unwrap(), expected);
        }
        drop(loaded);
        assert!(writer().is_ok(), "the lease ends with the load");
        assert!(residue(dir.path()).is_empty());
    }

    /// DISK-1, D10: a temp name that turns out to be taken when the new content is given it
    /// (another writer got there first) is not a failure: the content gets a fresh temp name
    /// and the replace goes through, exact, with no temp file left.
    #[test]
    fn disk_1_a_taken_temp_name_is_replaced_by_a_fresh_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "old\n").unwrap();
        let fs = FaultFs::new(Arc::new(RealFs)).fail(Op::LinkTemp, 1, Fault::Errno(libc::EEXIST));
        let loaded = load(&fs, &p, 1 << 20).unwrap();
        let c = chunks("new\n");
        replace(&fs, &p, &loaded, &c).unwrap();
        drop(loaded);
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        assert!(residue(dir.path()).is_empty());
        // Where the file system cannot make unnamed files, the named fallback never links and
        // the taken name is not met; everywhere else it was, and a second name was tried.
        if fs.log().contains(&Op::LinkTemp) {
            assert_eq!(fs.injected(), 1, "the taken name was met");
            let links = fs.log().iter().filter(|op| **op == Op::LinkTemp).count();
            assert_eq!(links, 2);
        }
    }

    /// Writes `chunks` as a new file through a [`FaultFs`] that injects nothing; checks that
    /// the file holds `expected` and returns how many writes the temp file took.
    fn write_calls(chunks: &[Chunk<'_>], expected: &[u8]) -> usize {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let fs = FaultFs::new(Arc::new(RealFs));
        create(&fs, &p, chunks).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), expected);
        fs.log().iter().filter(|op| **op == Op::WriteAll).count()
    }

    /// Chunks shorter than 64 KiB are gathered and go to the temp file in one write, not one
    /// write per chunk: a replace_all with thousands of hits must not cost thousands of system
    /// calls. That holds for chunks of a few kilobytes as for a few bytes. The bytes are those
    /// of the chunks in order (DISK-1).
    #[test]
    fn disk_1_short_chunks_go_out_in_one_write() {
        let c = [
            Chunk::Original(b"one "),
            Chunk::New(b"two ".to_vec()),
            Chunk::Original(b"three\n"),
        ];
        assert_eq!(write_calls(&c, b"one two three\n"), 1);

        let (a, b) = (vec![b'a'; 3000], vec![b'b'; 3000]);
        let c = [
            Chunk::Original(&a),
            Chunk::New(b"-".to_vec()),
            Chunk::Original(&b),
        ];
        assert_eq!(write_calls(&c, &[&a[..], b"-", &b[..]].concat()), 1);
    }

    /// Replaces `f.txt` (holding "original") in `dir` through a [`FaultFs`] whose first
    /// rename fails, with `plan` adding its own faults or hooks: the edit must be an I/O error
    /// that leaves the file and no temp file; returns how many removals were asked.
    fn failed_replace_removals(dir: &Path, plan: impl FnOnce(FaultFs) -> FaultFs) -> usize {
        let p = dir.join("f.txt");
        std::fs::write(&p, "original").unwrap();
        let fs = plan(FaultFs::new(Arc::new(RealFs)).fail(Op::Rename, 1, Fault::Errno(libc::EIO)));
        let loaded = load(&fs, &p, 1 << 20).unwrap();
        let c = chunks("replacement");
        let err = replace(&fs, &p, &loaded, &c).unwrap_err();
        assert_eq!(err.code, Code::Io);
        assert_eq!(std::fs::read(&p).unwrap(), b"original");
        assert!(residue(dir).is_empty());
        fs.log().iter().filter(|op| **op == Op::RemoveFile).count()
    }

    /// DISK-1: when a replace fails after its temp file was named, the temp file is removed;
    /// one that is already gone (another process removed it meanwhile) is taken as removed at
    /// once, not asked for again and again.
    #[test]
    fn disk_1_a_temp_file_already_gone_is_removed_with_one_call() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        let removals = failed_replace_removals(dir.path(), |fs| {
            fs.with_hook(move |op, _| {
                if op == Op::RemoveFile {
                    for name in residue(&d) {
                        std::fs::remove_file(d.join(name)).unwrap();
                    }
                }
            })
        });
        assert_eq!(removals, 1);
    }

    /// DISK-1, D30: a removal of the temp file refused for any reason but its absence (under
    /// a root, a directory of the path swapped for a symlink at that instant) is tried again,
    /// and the temp file does not stay.
    #[test]
    fn disk_1_a_refused_temp_removal_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let removals = failed_replace_removals(dir.path(), |fs| {
            fs.fail(Op::RemoveFile, 1, Fault::Errno(libc::EXDEV))
        });
        assert_eq!(removals, 2);
    }

    /// SESSION-2: a write reports the metadata the new file has on disk once it is in place —
    /// the read state is built from it — including for a file made without a name and linked
    /// to its target, whose link count was 0 when its content was written.
    #[test]
    fn session_2_a_write_reports_the_metadata_the_file_has_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.txt");
        let c = chunks("new\n");
        let written = atomic_write(
            &RealFs,
            &WriteRequest {
                target: &p,
                chunks: &c,
                existing: None,
                fsync: false,
                mode: Some(0o640),
            },
        )
        .unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        assert_eq!(written.meta, RealFs.symlink_metadata(&p).unwrap());
        assert!(residue(dir.path()).is_empty());
    }

    /// SESSION-3: a change between the load and the write is caught when either the size or
    /// the modification time differs — a rewrite of the same length shows only in the time, a
    /// rewrite with the time put back only in the size — and the edit is refused as stale,
    /// leaving the other writer's bytes.
    #[test]
    fn session_3_a_change_in_size_or_time_alone_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        let c = chunks("mine");
        for (theirs, keep_time) in [(&b"THEIRS!!"[..], false), (&b"theirs, longer"[..], true)] {
            std::fs::write(&p, b"original").unwrap();
            let loaded = load(&RealFs, &p, 1 << 20).unwrap();
            let then = std::fs::metadata(&p).unwrap().modified().unwrap();
            std::fs::write(&p, theirs).unwrap();
            let when = if keep_time {
                then
            } else {
                then + std::time::Duration::from_secs(1)
            };
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(when).unwrap();
            drop(f);
            let err = replace(&RealFs, &p, &loaded, &c).unwrap_err();
            assert_eq!(err.code, Code::Stale, "{keep_time}");
            assert_eq!(std::fs::read(&p).unwrap(), theirs);
            assert!(residue(dir.path()).is_empty());
        }
    }
}
