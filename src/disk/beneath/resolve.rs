//! Opening a path beneath a root directory handle (PATH-2): [`open`] and [`parent`].
//!
//! The kernel does it where it can: `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`
//! (Linux 5.6 and later) refuses, atomically with the lookup, any path that would leave the
//! root — through `..`, an absolute symlink, or a relative one climbing out — with `EXDEV`.
//! Where the system call is missing (`ENOSYS`) or filtered (`EPERM` under seccomp), the same
//! rules are kept by a walk: one `openat` per component with `O_NOFOLLOW`, every symlink met
//! read with `readlinkat` and followed by hand only while it stays beneath the root (relative
//! targets; `..` never above the root), absolute targets refused with `EXDEV` as the kernel
//! does. Either way a directory swapped for a symlink to the outside between resolution and
//! use makes the call fail instead of following it.

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Escaped;

/// How paths are resolved beneath the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolver {
    /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`, falling back to the walk
    /// when the kernel does not offer it.
    Kernel,
    /// The component-by-component `O_NOFOLLOW` walk only.
    Walk,
}

/// Set once `openat2` answered `ENOSYS`: every later call walks without asking again.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// Most symlinks followed in one resolution, as the kernel's limit (`ELOOP` past it).
const MAX_LINKS: u32 = 40;

/// Looks again at a name that failed as a directory but is no symlink either, before giving
/// the failure back (it may have been swapped back to a directory in between).
const MAX_RETRIES: u32 = 2;

/// Whether an `openat2` failure hands the call to the walk.
#[derive(Debug, PartialEq, Eq)]
enum Fallback {
    /// No: the answer is the kernel's.
    None,
    /// This call and every later one: the kernel has no `openat2` (`ENOSYS`).
    Always,
    /// This call: a seccomp filter refuses `openat2` (`EPERM`; a genuine `EPERM` from the
    /// file system comes back from the walk too).
    Once,
}

/// How an `openat2` error is taken: kept apart so that kernels and filters no test runs on
/// are tested by their error numbers.
fn fallback(e: &io::Error) -> Fallback {
    match e.raw_os_error() {
        Some(libc::ENOSYS) => Fallback::Always,
        Some(libc::EPERM) => Fallback::Once,
        _ => Fallback::None,
    }
}

fn errno(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

pub(super) fn c_name(name: &std::ffi::OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))
}

pub(super) fn check(fd: libc::c_int) -> io::Result<OwnedFd> {
    // open, openat and openat2 answer -1 and nothing else on failure.
    if fd == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a non-negative result of open/openat/openat2 is a new descriptor that nothing
    // else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens `rel` (relative to the root; empty means the root itself) with `flags` and `mode`.
/// `O_CLOEXEC` is always added. An escape from the root fails with [`Escaped`].
pub fn open(
    root: BorrowedFd<'_>,
    rel: &Path,
    flags: libc::c_int,
    mode: u32,
    how: Resolver,
) -> io::Result<OwnedFd> {
    resolve(root, rel, flags, mode, how).map_err(|e| {
        if e.raw_os_error() == Some(libc::EXDEV) {
            io::Error::other(Escaped)
        } else {
            e
        }
    })
}

fn resolve(
    root: BorrowedFd<'_>,
    rel: &Path,
    flags: libc::c_int,
    mode: u32,
    how: Resolver,
) -> io::Result<OwnedFd> {
    let flags = flags | libc::O_CLOEXEC;
    if how == Resolver::Kernel && !NO_OPENAT2.load(Ordering::Relaxed) {
        let answer = openat2(root, rel, flags, mode);
        match answer.as_ref().err().map_or(Fallback::None, fallback) {
            Fallback::None => return answer,
            Fallback::Always => NO_OPENAT2.store(true, Ordering::Relaxed),
            Fallback::Once => {}
        }
    }
    walk(root, rel, flags, mode)
}

/// The directory holding `rel`'s last component, opened beneath the root (`O_PATH`), and
/// that component's name: for the calls that act on a name in a directory (`renameat2`,
/// `unlinkat`, `mkdirat`, `linkat`, `openat` with `O_CREAT`). `rel` must name something
/// below the root, not the root itself.
pub fn parent(root: BorrowedFd<'_>, rel: &Path, how: Resolver) -> io::Result<(OwnedFd, CString)> {
    let name = match rel.components().next_back() {
        Some(Component::Normal(n)) => c_name(n)?,
        _ => return Err(errno(libc::EINVAL)),
    };
    let dir = rel.parent().unwrap_or(Path::new(""));
    let fd = open(root, dir, libc::O_PATH | libc::O_DIRECTORY, 0, how)?;
    Ok((fd, name))
}

fn openat2(root: BorrowedFd<'_>, rel: &Path, flags: libc::c_int, mode: u32) -> io::Result<OwnedFd> {
    let path = if rel.as_os_str().is_empty() {
        c".".to_owned()
    } else {
        c_name(rel.as_os_str())?
    };
    // `mode` is only valid (and only allowed to be non-zero) with O_CREAT or O_TMPFILE.
    let creates = flags & libc::O_CREAT != 0 || flags & libc::O_TMPFILE == libc::O_TMPFILE;
    // SAFETY: open_how is a plain C struct for which all-zero is a valid value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.mode = if creates { u64::from(mode) } else { 0 };
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: the path is a valid NUL-terminated string and `how` a valid open_how whose size
    // is passed with it; both outlive the call. The descriptor is borrowed for its duration.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            root.as_raw_fd(),
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    check(fd as libc::c_int)
}

/// The parts of a relative path, `..` kept (symlink targets may hold it).
fn parts(p: &Path) -> Vec<OsString> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect()
}

fn openat(dir: libc::c_int, name: &CString, flags: libc::c_int, mode: u32) -> io::Result<OwnedFd> {
    // SAFETY: `name` is a valid NUL-terminated string; `dir` is a descriptor the caller keeps
    // open for the call.
    check(unsafe { libc::openat(dir, name.as_ptr(), flags, mode as libc::c_uint) })
}

/// The target of the symlink `name` in `dir`, or `None` when it is not a symlink.
fn link_target(dir: libc::c_int, name: &CString) -> io::Result<Option<OsString>> {
    let mut buf = vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: `buf` is writable for its full length, which is what is passed.
    let n = unsafe { libc::readlinkat(dir, name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::EINVAL) => Ok(None),
            _ => Err(e),
        };
    }
    buf.truncate(n as usize);
    Ok(Some(OsString::from_vec(buf)))
}

/// The two system calls of one step of the walk, behind a trait so that a test can put a
/// change of the file system between them — the race the walk's second look is for.
trait Lookup {
    /// `openat` of `name` in `dir`.
    fn open(
        &self,
        dir: libc::c_int,
        name: &CString,
        flags: libc::c_int,
        mode: u32,
    ) -> io::Result<OwnedFd>;
    /// The target of the symlink `name` in `dir`; `None` when it is no symlink.
    fn link_target(&self, dir: libc::c_int, name: &CString) -> io::Result<Option<OsString>>;
}

/// The real system calls.
struct Syscalls;

impl Lookup for Syscalls {
    fn open(
        &self,
        dir: libc::c_int,
        name: &CString,
        flags: libc::c_int,
        mode: u32,
    ) -> io::Result<OwnedFd> {
        openat(dir, name, flags, mode)
    }

    fn link_target(&self, dir: libc::c_int, name: &CString) -> io::Result<Option<OsString>> {
        link_target(dir, name)
    }
}

/// The walk: directories opened one by one with `O_PATH | O_NOFOLLOW`, symlinks followed by
/// hand while they stay beneath the root, the last component opened with the caller's flags
/// (following it only when they do not say `O_NOFOLLOW`, and then by hand too).
fn walk(root: BorrowedFd<'_>, rel: &Path, flags: libc::c_int, mode: u32) -> io::Result<OwnedFd> {
    walk_with(&Syscalls, root, rel, flags, mode)
}

fn walk_with(
    sys: &impl Lookup,
    root: BorrowedFd<'_>,
    rel: &Path,
    flags: libc::c_int,
    mode: u32,
) -> io::Result<OwnedFd> {
    // The directories entered below the root; empty means at the root.
    let mut stack: Vec<OwnedFd> = Vec::new();
    let mut pending: std::collections::VecDeque<OsString> = parts(rel).into();
    let (mut links, mut retries) = (0, 0);
    let follow_last = flags & libc::O_NOFOLLOW == 0;
    loop {
        let cur = stack.last().map_or(root.as_raw_fd(), |fd| fd.as_raw_fd());
        let Some(name) = pending.pop_front() else {
            // The path ends in a directory already entered (or is the root): open it anew
            // with the caller's flags.
            return sys.open(cur, &c".".to_owned(), flags, mode);
        };
        if name == ".." {
            if stack.pop().is_none() {
                return Err(errno(libc::EXDEV));
            }
            continue;
        }
        let last = pending.is_empty();
        let c = c_name(&name)?;
        let attempt = if last {
            sys.open(cur, &c, flags | libc::O_NOFOLLOW, mode)
        } else {
            sys.open(
                cur,
                &c,
                libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0,
            )
        };
        let err = match attempt {
            Ok(fd) if last => return Ok(fd),
            Ok(fd) => {
                stack.push(fd);
                continue;
            }
            Err(e) => e,
        };
        // A symlink refuses O_NOFOLLOW with ELOOP, or with ENOTDIR under O_DIRECTORY.
        let maybe_link = matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR));
        if !maybe_link || (last && !follow_last) {
            return Err(err);
        }
        let Some(target) = sys.link_target(cur, &c)? else {
            // Not a symlink: a file where a directory was needed, or a symlink swapped back
            // for a directory meanwhile, which a second look up finds.
            retries += 1;
            if retries > MAX_RETRIES {
                return Err(err);
            }
            pending.push_front(name);
            continue;
        };
        links += 1;
        if links > MAX_LINKS {
            return Err(errno(libc::ELOOP));
        }
        let target = Path::new(&target);
        if target.is_absolute() {
            return Err(errno(libc::EXDEV));
        }
        for p in parts(target).into_iter().rev() {
            pending.push_front(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::os::fd::AsFd;

    /// PATH-2: a kernel without `openat2` hands every call to the walk from then on, a
    /// seccomp filter's `EPERM` hands that call to it, and any other failure is the answer.
    #[test]
    fn path_2_openat2_gives_way_to_the_walk_only_where_it_cannot_answer() {
        let of = |code| fallback(&io::Error::from_raw_os_error(code));
        assert_eq!(of(libc::ENOSYS), Fallback::Always);
        assert_eq!(of(libc::EPERM), Fallback::Once);
        for code in [
            libc::EXDEV,
            libc::ELOOP,
            libc::ENOENT,
            libc::EACCES,
            libc::EINVAL,
        ] {
            assert_eq!(of(code), Fallback::None, "errno {code}");
        }
    }

    /// A file system on which the directory `name` is seen as a symlink by the first `swaps`
    /// opens (`ELOOP` under `O_NOFOLLOW`) and as the directory it is by every read of the
    /// link: a symlink swapped back for the directory between the two calls, `swaps` times.
    struct Swapped {
        name: &'static str,
        swaps: Cell<u32>,
    }

    impl Lookup for Swapped {
        fn open(
            &self,
            dir: libc::c_int,
            name: &CString,
            flags: libc::c_int,
            mode: u32,
        ) -> io::Result<OwnedFd> {
            if name.as_bytes() == self.name.as_bytes() && self.swaps.get() > 0 {
                self.swaps.set(self.swaps.get() - 1);
                return Err(errno(libc::ELOOP));
            }
            Syscalls.open(dir, name, flags, mode)
        }

        fn link_target(&self, dir: libc::c_int, name: &CString) -> io::Result<Option<OsString>> {
            Syscalls.link_target(dir, name)
        }
    }

    /// PATH-2: a name that refused to open as a directory but reads as no symlink is looked
    /// up again, up to two more times, and the path then opens; a third such swap gives the
    /// failure back (`ELOOP`, as the first look saw it).
    #[test]
    fn path_2_the_walk_looks_again_at_a_name_swapped_back_to_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/f.txt"), b"inside\n").unwrap();
        let root = std::fs::File::open(dir.path()).unwrap();
        let rel = Path::new("d/f.txt");
        for swaps in 0..=MAX_RETRIES {
            let sys = Swapped {
                name: "d",
                swaps: Cell::new(swaps),
            };
            let fd = walk_with(&sys, root.as_fd(), rel, libc::O_RDONLY, 0).unwrap();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::fs::File::from(fd), &mut bytes).unwrap();
            assert_eq!(bytes, b"inside\n", "{swaps} swaps");
        }
        let sys = Swapped {
            name: "d",
            swaps: Cell::new(MAX_RETRIES + 1),
        };
        let e = walk_with(&sys, root.as_fd(), rel, libc::O_RDONLY, 0).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    }
}
