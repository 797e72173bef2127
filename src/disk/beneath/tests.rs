//! PATH-2 / D30: calls beneath the root, with `openat2` and with the walk alike.

use super::{BeneathFs, Resolver};
use crate::disk::{atomic_write, load, Fs, Kind, WriteRequest};
use crate::text::Chunk;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

const BOTH: [Resolver; 2] = [Resolver::Kernel, Resolver::Walk];

/// `top/root` with `sub/f.txt`, an inside link `in -> sub`, links out `out -> ../outside`
/// and `abs -> /…/outside`; `top/outside/f.txt` next to it.
fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let root = top.join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(top.join("outside")).unwrap();
    std::fs::write(root.join("sub/f.txt"), "inside\n").unwrap();
    std::fs::write(top.join("outside/f.txt"), "outside\n").unwrap();
    symlink("sub", root.join("in")).unwrap();
    symlink("../outside", root.join("out")).unwrap();
    symlink(top.join("outside"), root.join("abs")).unwrap();
    (dir, root)
}

fn exdev<T>(r: std::io::Result<T>) -> bool {
    matches!(r, Err(e) if crate::error::is_escape(&e))
}

fn write(fs: &dyn Fs, target: &Path, bytes: &[u8]) -> Result<(), crate::ToolError> {
    let existing = load(fs, target, 1 << 20).ok();
    atomic_write(
        fs,
        &WriteRequest {
            target,
            chunks: &[Chunk::Original(bytes)],
            existing: existing.as_ref(),
            fsync: false,
            mode: None,
        },
    )
    .map(drop)
}

#[test]
fn path_2_reads_and_writes_inside_the_root_work() {
    for how in BOTH {
        let (_d, root) = tree();
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let f = root.join("sub/f.txt");
        assert_eq!(&*load(&fs, &f, 1 << 20).unwrap().bytes, b"inside\n");
        // A symlink inside the root that stays inside is followed (DISK-2).
        assert_eq!(
            &*load(&fs, &root.join("in/f.txt"), 99).unwrap().bytes,
            b"inside\n"
        );
        write(&fs, &f, b"new\n").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new\n");
        write(&fs, &root.join("a/b/new.txt"), b"created\n").unwrap();
        assert_eq!(
            std::fs::read(root.join("a/b/new.txt")).unwrap(),
            b"created\n"
        );
        assert_eq!(fs.symlink_metadata(&root).unwrap().kind, Kind::Dir);
        assert_eq!(
            fs.symlink_metadata(&root.join("out")).unwrap().kind,
            Kind::Symlink
        );
        assert_eq!(
            fs.read_link(&root.join("out")).unwrap(),
            Path::new("../outside")
        );
        let mut names = fs.read_dir(&root.join("sub")).unwrap();
        names.sort();
        assert_eq!(names, ["f.txt"]);
        let leftovers: Vec<_> = std::fs::read_dir(root.join("sub")).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "{how:?}: no temp file left");
    }
}

#[test]
fn path_2_every_call_through_a_link_to_the_outside_is_refused_as_an_escape() {
    for how in BOTH {
        let (_d, root) = tree();
        let top = root.parent().unwrap().to_path_buf();
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        for link in ["out", "abs"] {
            let f = root.join(link).join("f.txt");
            let new = root.join(link).join("new.txt");
            assert!(exdev(fs.open_read(&f)), "{how:?} {link}: open_read");
            assert!(exdev(fs.symlink_metadata(&f)), "{how:?} {link}: lstat");
            assert!(
                exdev(fs.create_unnamed(&root.join(link), 0o600)),
                "{how:?} {link}"
            );
            assert!(
                exdev(fs.create_exclusive(&new, 0o600)),
                "{how:?} {link}: create"
            );
            assert!(
                exdev(fs.rename(&root.join("sub/f.txt"), &f)),
                "{how:?} {link}"
            );
            assert!(exdev(fs.remove_file(&f)), "{how:?} {link}: unlink");
            assert!(
                exdev(fs.create_dir_all(&root.join(link).join("d"))),
                "{how:?}"
            );
            assert!(exdev(fs.sync_dir(&root.join(link))), "{how:?} {link}: sync");
            assert!(
                exdev(fs.read_dir(&root.join(link))),
                "{how:?} {link}: read_dir"
            );
            let err = write(&fs, &f, b"PWNED").unwrap_err();
            assert_eq!(err.code.as_str(), "outside_root", "{how:?} {link}");
        }
        // `..` climbing out of the root is refused the same way.
        assert!(exdev(fs.open_read(&root.join("sub/../../outside/f.txt"))));
        assert_eq!(
            std::fs::read(top.join("outside/f.txt")).unwrap(),
            b"outside\n"
        );
        assert_eq!(std::fs::read_dir(top.join("outside")).unwrap().count(), 1);
        assert_eq!(std::fs::read(root.join("sub/f.txt")).unwrap(), b"inside\n");
    }
}

#[test]
fn path_2_paths_outside_the_root_are_left_to_the_plain_file_system() {
    let (_d, root) = tree();
    let outside = root.parent().unwrap().join("outside/f.txt");
    let fs = BeneathFs::new(&root).unwrap();
    assert_eq!(fs.symlink_metadata(&outside).unwrap().kind, Kind::File);
    assert_eq!(fs.root(), root);
}

#[test]
fn path_2_a_final_symlink_is_not_followed_by_open_read() {
    for how in BOTH {
        let (_d, root) = tree();
        symlink("sub/f.txt", root.join("flink")).unwrap();
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let r = fs.open_read(&root.join("flink"));
        assert!(
            matches!(r, Err(e) if e.raw_os_error() == Some(libc::ELOOP)),
            "{how:?}"
        );
    }
}

/// PATH-2: a path that goes through a regular file as if it were a directory fails with
/// ENOTDIR with either resolver — what the kernel says, and what resolution reports as a
/// missing file. The walk looks at such a name once more in case it was a symlink swapped
/// back meanwhile, finds it is none, and gives the lookup's own error back.
#[test]
fn path_2_a_path_through_a_regular_file_is_not_a_directory() {
    for how in BOTH {
        let (_d, root) = tree();
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let through = root.join("sub/f.txt/x");
        for r in [
            fs.open_read(&through).map(drop),
            fs.symlink_metadata(&through).map(drop),
        ] {
            let e = r.unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?}: {e}");
        }
        assert_eq!(std::fs::read(root.join("sub/f.txt")).unwrap(), b"inside\n");
    }
}

/// D30: the walk is a resolver of its own, used as asked even where the kernel has
/// `openat2`. It reads every symlink it meets itself, so a `/proc` magic link is taken for
/// the absolute path its text names and refused as an escape; `openat2` refuses magic links
/// outright (ELOOP, `RESOLVE_NO_MAGICLINKS`). Either way nothing beyond the link is reached.
#[test]
fn path_2_the_walk_reads_a_magic_link_as_its_absolute_target_and_refuses_it() {
    let me = PathBuf::from(format!("/proc/{}", std::process::id()));
    let cwd = me.join("cwd");
    let walk = BeneathFs::with_resolver(&me, Resolver::Walk).unwrap();
    assert!(exdev(walk.read_dir(&cwd)), "the walk");
    assert!(exdev(walk.open_read(&cwd.join("Cargo.toml"))), "the walk");
    let kernel = BeneathFs::with_resolver(&me, Resolver::Kernel).unwrap();
    assert!(kernel.read_dir(&cwd).is_err(), "openat2");
}

/// PATH-2: a temp file made beneath the root — unnamed, or named and exclusive — is created
/// private to its owner exactly as the plain file system creates it (0600 less the umask),
/// with either resolver: its content is readable by no one else before its final mode is set.
#[test]
fn path_2_temp_files_beneath_the_root_are_created_private_like_plain_ones() {
    let (_dir, root) = tree();
    let sub = root.join("sub");
    let mode = |h: Box<dyn crate::disk::FileHandle>| h.meta().unwrap().mode & 0o7777;
    let plain_unnamed = mode(crate::disk::RealFs.create_unnamed(&sub, 0o600).unwrap());
    let plain_named = mode(
        crate::disk::RealFs
            .create_exclusive(&sub.join("plain"), 0o600)
            .unwrap(),
    );
    assert_eq!(plain_unnamed & 0o077, 0);
    assert_eq!(plain_named & 0o077, 0);
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        assert_eq!(
            mode(fs.create_unnamed(&sub, 0o600).unwrap()),
            plain_unnamed,
            "{how:?}"
        );
        let named = sub.join(format!("named-{how:?}"));
        assert_eq!(
            mode(fs.create_exclusive(&named, 0o600).unwrap()),
            plain_named,
            "{how:?}"
        );
    }
}

/// PATH-2 / DISK-1: an exclusive create beneath the root refuses a name already taken, by a
/// file or by a symlink (never followed), with `EEXIST` as the plain create does, and leaves
/// what is there untouched.
#[test]
fn path_2_an_exclusive_create_beneath_the_root_refuses_a_taken_name_like_a_plain_one() {
    let (_dir, root) = tree();
    let taken = root.join("sub/f.txt");
    let link = root.join("sub/link");
    symlink("f.txt", &link).unwrap();
    for name in [&taken, &link] {
        let plain = crate::disk::RealFs.create_exclusive(name, 0o600).map(drop);
        assert_eq!(plain.unwrap_err().raw_os_error(), Some(libc::EEXIST));
        for how in BOTH {
            let fs = BeneathFs::with_resolver(&root, how).unwrap();
            let e = fs.create_exclusive(name, 0o600).map(drop).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::EEXIST), "{how:?} {name:?}");
        }
    }
    assert_eq!(std::fs::read(&taken).unwrap(), b"inside\n");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("f.txt"));
}

/// PATH-2: making directories beneath the root fails where a file holds the name, as the
/// plain call does, and leaves the file as it was: what is there must be a directory.
#[test]
fn path_2_making_directories_beneath_the_root_fails_on_a_file_like_a_plain_call() {
    let (_dir, root) = tree();
    let file = root.join("sub/f.txt");
    assert!(crate::disk::RealFs.create_dir_all(&file).is_err());
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let e = fs.create_dir_all(&file).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"inside\n");
}

/// PATH-2: reading a link beneath the root answers as `readlink(2)` does — its target for a
/// symlink, `EINVAL` for anything else — with either resolver.
#[test]
fn path_2_read_link_beneath_the_root_answers_as_readlink_does() {
    let (_dir, root) = tree();
    let plain = std::fs::read_link(root.join("sub/f.txt")).unwrap_err();
    assert_eq!(plain.raw_os_error(), Some(libc::EINVAL));
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        assert_eq!(
            fs.read_link(&root.join("in")).unwrap(),
            Path::new("sub"),
            "{how:?}"
        );
        let e = fs.read_link(&root.join("sub/f.txt")).unwrap_err();
        assert_eq!(e.raw_os_error(), plain.raw_os_error(), "{how:?}");
        let e = fs.read_link(&root.join("sub")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{how:?}");
    }
}

/// PATH-2: a directory the kernel refuses to make beneath the root is reported with the
/// kernel's own error, as a plain `mkdir` reports it — not as the missing path that looking
/// it up afterwards would find. sysfs makes no directories for anyone.
#[test]
fn path_2_a_refused_mkdir_beneath_the_root_reports_the_kernels_error() {
    let sys = Path::new("/sys");
    let plain = std::fs::create_dir(sys.join("editref-probe")).unwrap_err();
    assert_ne!(plain.kind(), std::io::ErrorKind::NotFound);
    for how in BOTH {
        let fs = BeneathFs::with_resolver(sys, how).unwrap();
        let e = fs
            .create_dir_all(&sys.join("editref-probe/deeper"))
            .unwrap_err();
        assert_eq!(e.raw_os_error(), plain.raw_os_error(), "{how:?}");
    }
}

/// PATH-2: a path through a FIFO is not a directory, with either resolver — refused with
/// `ENOTDIR` at once, the FIFO never opened (opening one for reading waits for a writer).
#[test]
fn path_2_a_path_through_a_fifo_is_not_a_directory_and_opens_nothing() {
    let (_dir, root) = tree();
    let fifo = root.join("pipe");
    crate::disk::mkfifo(&fifo);
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let e = fs.open_read(&fifo.join("x")).err().unwrap();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?}");
    }
}

/// DISK-2: a file made beneath the root changes owner as a plain one does (given to another
/// user where the process may, refused alike where it may not).
#[test]
fn disk_2_an_owner_change_beneath_the_root_is_made_as_on_a_plain_file() {
    let (_dir, root) = tree();
    let sub = root.join("sub");
    let fs = BeneathFs::new(&root).unwrap();
    let mut beneath = fs.create_unnamed(&sub, 0o600).unwrap();
    let mut plain = crate::disk::RealFs.create_unnamed(&sub, 0o600).unwrap();
    let want = plain.set_owner(4321, 4322).map_err(|e| e.kind());
    assert_eq!(beneath.set_owner(4321, 4322).map_err(|e| e.kind()), want);
    let owner = |h: &dyn crate::disk::FileHandle| h.meta().map(|m| (m.uid, m.gid)).unwrap();
    assert_eq!(owner(beneath.as_ref()), owner(plain.as_ref()));
}

/// DISK-6: a file opened beneath the root syncs as a plain one does, and answers what `fsync`
/// answers — the `EINVAL` of a FIFO, which a write must see rather than take for durability.
#[test]
fn disk_6_a_sync_beneath_the_root_reports_what_fsync_answers() {
    let (_dir, root) = tree();
    let fifo = root.join("sub/pipe");
    crate::disk::mkfifo(&fifo);
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        // Opened for reading without waiting for a writer (`O_NONBLOCK`).
        let e = fs.open_read(&fifo).unwrap().sync().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{how:?}");
        fs.open_read(&root.join("sub/f.txt"))
            .unwrap()
            .sync()
            .unwrap();
    }
}

/// PATH-2: a path through a chain of symlinks resolves beneath the root up to the kernel's
/// limit of 40 links, and one more is `ELOOP`, with either resolver alike.
#[test]
fn path_2_forty_links_resolve_and_the_forty_first_is_a_loop() {
    let (_dir, root) = tree();
    // l0 -> l1 -> … -> l40 -> sub: from l1 on, 40 links to the directory; from l0, 41.
    symlink("sub", root.join("l40")).unwrap();
    for i in 0..40 {
        symlink(format!("l{}", i + 1), root.join(format!("l{i}"))).unwrap();
    }
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let mut f = fs.open_read(&root.join("l1/f.txt")).unwrap();
        assert_eq!(f.read_all(1 << 20).unwrap(), b"inside\n", "{how:?}");
        let e = fs.open_read(&root.join("l0/f.txt")).err().unwrap();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{how:?}");
    }
}

/// D10 / PATH-2: where the file system does not know `RENAME_NOREPLACE`, the rename beneath
/// the root falls back to `linkat` and `unlinkat` in handles opened beneath it: the file moves
/// to a free name, a taken name is `EEXIST` with both files left as they were, and a name
/// through a link to the outside is refused as an escape.
#[test]
fn d10_the_link_fallback_beneath_the_root_moves_to_a_free_name_and_never_replaces() {
    for how in BOTH {
        let (_dir, root) = tree();
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let (a, b, taken) = (
            root.join("sub/a"),
            root.join("in/b"),
            root.join("sub/f.txt"),
        );
        std::fs::write(&a, b"moved\n").unwrap();
        fs.rename_by_link(&a, &b).unwrap();
        assert!(!a.exists(), "{how:?}");
        assert_eq!(
            std::fs::read(root.join("sub/b")).unwrap(),
            b"moved\n",
            "{how:?}"
        );
        let e = fs.rename_by_link(&b, &taken).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EEXIST), "{how:?}");
        assert_eq!(std::fs::read(&b).unwrap(), b"moved\n", "{how:?}");
        assert_eq!(std::fs::read(&taken).unwrap(), b"inside\n", "{how:?}");
        assert!(exdev(fs.rename_by_link(&b, &root.join("out/b"))), "{how:?}");
        assert_eq!(std::fs::read(&b).unwrap(), b"moved\n", "{how:?}");
        assert!(!root.join("../outside/b").exists(), "{how:?}");
    }
}

/// D28 / PATH-2: a large file opened beneath the root is mapped exactly when a plain handle
/// maps it, and the mapping holds its bytes. (Where the system grants no read lease, neither
/// maps.)
#[test]
fn d28_a_large_file_beneath_the_root_is_mapped_as_a_plain_one_is() {
    let (_dir, root) = tree();
    let big = root.join("sub/big");
    let content: Vec<u8> = (0..1 << 20).map(|i| b"0123456789\n"[i % 11]).collect();
    std::fs::write(&big, &content).unwrap();
    let mapped =
        |b: &Option<crate::disk::FileBytes>| matches!(b, Some(crate::disk::FileBytes::Mapped(_)));
    let plain = crate::disk::RealFs
        .open_read(&big)
        .unwrap()
        .map_all(1 << 30)
        .unwrap();
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let got = fs.open_read(&big).unwrap().map_all(1 << 30).unwrap();
        assert_eq!(mapped(&got), mapped(&plain), "{how:?}");
        if let Some(bytes) = got {
            assert_eq!(&bytes[..], &content[..], "{how:?}");
        }
    }
}

/// DISK-6: a directory sync is of a directory: a regular file is `ENOTDIR`, beneath the root
/// with either resolver as on the plain file system, rather than a file's fsync taken for the
/// directory's.
#[test]
fn disk_6_a_directory_sync_of_a_regular_file_is_not_a_directory() {
    let (_dir, root) = tree();
    let file = root.join("sub/f.txt");
    let e = crate::disk::RealFs.sync_dir(&file).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR));
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        fs.sync_dir(&root.join("sub")).unwrap();
        let e = fs.sync_dir(&file).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?}");
    }
}

/// PATH-2: renames between paths outside the root are the plain file system's, each with its
/// own kind: a rename replaces the name it goes to, a no-replace rename refuses it (`EEXIST`)
/// and leaves both files as they were.
#[test]
fn path_2_renames_outside_the_root_keep_their_kind() {
    let (_dir, root) = tree();
    let outside = root.parent().unwrap().join("outside");
    let (a, b, c) = (outside.join("a"), outside.join("b"), outside.join("f.txt"));
    std::fs::write(&a, b"a\n").unwrap();
    std::fs::write(&b, b"b\n").unwrap();
    let fs = BeneathFs::new(&root).unwrap();
    let e = fs.rename_noreplace(&a, &b).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EEXIST));
    assert_eq!(std::fs::read(&a).unwrap(), b"a\n");
    assert_eq!(std::fs::read(&b).unwrap(), b"b\n");
    fs.rename(&a, &c).unwrap();
    assert!(!a.exists());
    assert_eq!(std::fs::read(&c).unwrap(), b"a\n");
}

/// D28: a large file read beneath the root is mapped, and reports its content stable while
/// no writer has asked, just as a plain read does — were it never stable, every mapped edit
/// under a root would be refused as stale.
#[test]
fn d28_a_mapped_read_beneath_the_root_is_stable_as_a_plain_one() {
    let (_dir, root) = tree();
    let big = root.join("sub/big");
    std::fs::write(&big, vec![b'x'; crate::disk::MAP_MIN as usize]).unwrap();
    let mut plain = crate::disk::RealFs.open_read(&big).unwrap();
    let plain_mapped = plain.map_all(1 << 30).unwrap().is_some();
    let plain_stable = plain.content_stable();
    assert!(!plain_mapped || plain_stable, "a fresh mapping is stable");
    drop(plain);
    for how in BOTH {
        let fs = BeneathFs::with_resolver(&root, how).unwrap();
        let mut h = fs.open_read(&big).unwrap();
        let mapped = h.map_all(1 << 30).unwrap();
        assert_eq!(mapped.is_some(), plain_mapped, "{how:?}");
        assert_eq!(h.content_stable(), plain_stable, "{how:?}");
    }
}

/// PATH-2 / D30: a socket or a FIFO is no directory — `ENOTDIR`, as without a root — whether
/// it is listed or a name under it is created or removed. Directories are opened as
/// directories (`O_DIRECTORY`), never as plain reads, which a socket refuses with another
/// error and a FIFO answers by waiting for a writer.
#[test]
fn path_2_a_socket_or_fifo_is_no_directory() {
    let (_dir, root) = tree();
    let sock = root.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let fifo = root.join("pipe");
    crate::disk::mkfifo(&fifo);
    for special in [&sock, &fifo] {
        let name = special.join("x");
        let plain = std::fs::remove_file(&name).unwrap_err();
        assert_eq!(plain.raw_os_error(), Some(libc::ENOTDIR));
        for how in BOTH {
            let fs = BeneathFs::with_resolver(&root, how).unwrap();
            let e = fs.remove_file(&name).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?} {name:?}");
            let e = fs.create_exclusive(&name, 0o600).err().unwrap();
            assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?} {name:?}");
            let e = fs.read_dir(special).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR), "{how:?} {special:?}");
        }
    }
}
