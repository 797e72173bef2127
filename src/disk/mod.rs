//! Reading and writing files safely (DISK-1..6, SESSION-3/4, PATH-3).
//!
//! Writes are atomic replaces: a temp file in the target's own directory — without a name
//! (`O_TMPFILE`) where the file system allows, so that a killed writer leaves nothing — written
//! fully, fsynced, given the target's mode (and owner where permitted), then — under an
//! exclusive lock on the file that was loaded, after checking once more that nobody changed it —
//! named and renamed over the target, and the directory fsynced. Any failure removes the temp
//! file and leaves the original bytes as they were; temp files of writers that died are
//! removed by the next write in their directory.
//!
//! The parts:
//!
//! - `fs.rs` — the seam every file-system call goes through ([`Fs`], [`RealFs`]);
//! - `fault.rs` — fault injection through that seam ([`FaultFs`]);
//! - `record.rs` — the calls that change the disk, recorded through that seam ([`RecordFs`]),
//!   which the power-loss tests replay through a persistence model;
//! - `beneath/` — every call on a path inside the root made beneath a handle on the root
//!   (`openat2` with `RESOLVE_BENEATH`, or an `O_NOFOLLOW` walk), so that no symlink swapped
//!   in can lead it outside ([`BeneathFs`]);
//! - `path.rs` — normalisation and symlink resolution ([`normalize`], [`real_path`]);
//! - `load.rs` — reading a file, mapped or in memory ([`load()`], [`Loaded`]);
//! - `temp.rs` — the temp-file names ([`temp_path`], [`parked_path`], [`is_temp_name`],
//!   [`temp_owner`]);
//! - `dirs.rs` — the parent directories a new file needs, taken back if its write fails;
//! - `attrs.rs` — the old file's extended attributes (ACLs among them) carried to the inode
//!   that replaces it (D35);
//! - `staged.rs` — the new content in a temp file beside its target, unnamed until it is put
//!   in place, and putting it there;
//! - `orphans.rs` — temp files of dead writers, removed by the next write in their directory;
//! - `request.rs` — what a write is asked to do and what it returns ([`WriteRequest`],
//!   [`Written`]); `refusal.rs` — the refusals every step of a write shares (an I/O error
//!   naming the step, `stale`);
//! - `atomic.rs` — the atomic replace ([`atomic_write`]);
//! - `batch.rs` — several files changed as one unit, all or none ([`write_batch`]);
//! - `turn_lock.rs` — the lock file that makes editref processes take turns on one file
//!   ([`take_turn_lock`], SESSION-6).

mod atomic;
mod attrs;
mod batch;
mod beneath;
mod dirs;
mod fault;
mod fs;
mod link;
mod load;
mod orphans;
mod path;
mod record;
mod refusal;
mod request;
mod staged;
mod temp;
mod turn_lock;

pub use atomic::atomic_write;
pub use batch::{write_batch, BatchDone, BatchOp};
pub use beneath::{BeneathFs, Resolver};
pub use fault::{Fault, FaultFs, Op};
pub use fs::{FileBytes, FileHandle, Fs, Kind, Meta, RealFs, MAP_MIN};
pub use load::{load, LoadError, Loaded};
pub use orphans::process_alive;
pub use path::{normalize, real_path};
pub use record::{Call, RecordFs};
pub use request::{WriteRequest, Written};
pub use temp::{is_temp_name, parked_path, temp_owner, temp_path};
pub use turn_lock::{take_turn_lock, turn_lock_path, TurnLock};

/// Makes a FIFO at `path` for the tests of special files (`fsync` of one is `EINVAL`; a path
/// through one is no directory).
#[cfg(test)]
pub(crate) fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}
