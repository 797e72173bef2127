//! SESSION-6 and D34 between processes: an editref process that wants to change a file waits
//! while another holds the file's turn, goes ahead once it is released — also when its holder
//! was killed — and a write by another process is still `stale` for a session that did not read
//! it (SESSION-2, SESSION-7).
//!
//! The holder is this test binary started again with [`HOLDER_ENV`] naming the target: it takes
//! the turn through the library, says `held`, and keeps it until its stdin closes. That a call
//! is waiting is seen in `/proc/locks` (a blocked `flock` is listed with `->`), never guessed
//! from time; every wait is bounded only so that a broken lock fails the test instead of
//! hanging it.

use editref::{Code, Config, Session};
use serde_json::json;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// Set in the environment of this test binary when it is started as a holder: the path whose
/// turn it takes.
const HOLDER_ENV: &str = "EDITREF_TEST_TURN_HOLDER";

/// Upper bound for a call to end once it may: a hang guard, not a measurement.
const WAIT: Duration = Duration::from_secs(60);

/// The holder. Runs before `main` in this test binary (from `.init_array`) and does nothing
/// unless [`HOLDER_ENV`] is set: then it takes the turn on that path as any editref call
/// would, prints `held`, keeps it until stdin reaches its end, and exits without starting the
/// test harness.
extern "C" fn holder() {
    let Some(target) = std::env::var_os(HOLDER_ENV) else {
        return;
    };
    let session = Session::new(Config::new("/"));
    let turn = session.turn(&[Path::new(&target)]);
    println!("held");
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
    drop(turn);
    // SAFETY: ends this holder process at once, as intended; nothing else runs in it.
    unsafe { libc::_exit(0) };
}

#[used]
#[link_section = ".init_array"]
static HOLDER: extern "C" fn() = holder;

/// A child process holding the turn on `target`, returned once it says so.
fn hold(target: &Path) -> Child {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .env(HOLDER_ENV, target)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the holder");
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .expect("the holder's word");
    assert_eq!(line, "held\n");
    child
}

/// A directory holding `f.txt` with `bytes`, and a session rooted there; the target's
/// resolved path.
fn sandbox(bytes: &[u8]) -> (tempfile::TempDir, PathBuf, Session) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("f.txt"), bytes).unwrap();
    let mut config = Config::new(&root).with_root(&root);
    config.fsync = false;
    (dir, root.join("f.txt"), Session::new(config))
}

/// Runs a Read and an Edit of `f.txt` (`a` → `A`) in `session` on a thread; its answer comes
/// on the channel.
fn edit_on_a_thread(session: Session) -> Receiver<Result<serde_json::Value, editref::ToolError>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let answer = session
            .call("Read", &json!({"file_path": "f.txt"}))
            .and_then(|_| {
                session.call(
                    "Edit",
                    &json!({"file_path": "f.txt", "old_string": "a", "new_string": "A"}),
                )
            });
        let _ = tx.send(answer);
    });
    rx
}

/// Whether `/proc/locks` lists a blocked `flock` of this process on the inode `ino`.
fn waiting_on(ino: u64) -> bool {
    let me = format!(" {} ", std::process::id());
    let inode = format!(":{ino} ");
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .any(|l| l.contains("->") && l.contains("FLOCK") && l.contains(&me) && l.contains(&inode))
}

/// SESSION-6, D34: while another process holds the file's turn, a call waits and writes
/// nothing; once the holder lets go, the call is made, and the lock file is gone.
#[test]
fn session_6_processes_take_turns_on_one_file() {
    let (_dir, target, session) = sandbox(b"a\nb\n");
    let lock = editref::disk::turn_lock_path(&target).expect("a place for lock files");
    let mut holder = hold(&target);
    let ino = std::fs::metadata(&lock)
        .expect("the holder's lock file")
        .ino();
    let answer = edit_on_a_thread(session);
    // Poll until the call is seen blocked on the holder's lock; it must not answer meanwhile.
    while !waiting_on(ino) {
        if let Ok(early) = answer.try_recv() {
            panic!("the call ended while another process held the turn: {early:?}");
        }
        // A poll interval only: no assertion depends on it.
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        std::fs::read(&target).unwrap(),
        b"a\nb\n",
        "written out of turn"
    );
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());
    let out = answer
        .recv_timeout(WAIT)
        .expect("the call went ahead")
        .unwrap();
    assert_eq!(out["replacements"], 1);
    assert_eq!(std::fs::read(&target).unwrap(), b"A\nb\n");
    assert!(
        !lock.exists(),
        "the lock file is removed by its last holder"
    );
}

/// D34: a holder killed with the turn (SIGKILL: no chance to clean up) leaves its lock file,
/// but the kernel released the lock: the next call goes ahead and removes the file.
#[test]
fn session_6_a_killed_holder_releases_the_turn() {
    let (_dir, target, session) = sandbox(b"a\nb\n");
    let lock = editref::disk::turn_lock_path(&target).expect("a place for lock files");
    let mut holder = hold(&target);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert!(lock.exists(), "a killed holder cannot remove its lock file");
    let out = edit_on_a_thread(session)
        .recv_timeout(WAIT)
        .expect("the call went ahead")
        .unwrap();
    assert_eq!(out["replacements"], 1);
    assert_eq!(std::fs::read(&target).unwrap(), b"A\nb\n");
    assert!(!lock.exists());
}

/// SESSION-6 and SESSION-7: turns forgive no staleness. Another process's write (an `editref
/// edit`, which took the turn) is a change this session did not read: its next Edit is `stale`,
/// naming what changed, and writes nothing; after a Read it goes ahead.
#[test]
fn session_6_another_process_write_is_still_stale() {
    let (_dir, target, session) = sandbox(b"a\nb\n");
    let root = target.parent().unwrap();
    session
        .call("Read", &json!({"file_path": "f.txt"}))
        .unwrap();
    let other = Command::new(env!("CARGO_BIN_EXE_editref"))
        .current_dir(root)
        .args(["edit", "f.txt", "--no-undo", "--no-fsync"])
        .args(["--old-string", "b", "--new-string", "bb"])
        .output()
        .unwrap();
    assert!(other.status.success(), "{other:?}");
    let edit = json!({"file_path": "f.txt", "old_string": "a", "new_string": "A"});
    let e = session.call("Edit", &edit).unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert!(
        e.message.contains("its size went from 4 to 5 bytes"),
        "{}",
        e.message
    );
    assert!(!e.message.contains("user"), "{}", e.message);
    let changed = e.fields["changed"].as_array().unwrap();
    assert!(changed.contains(&json!("content")), "{changed:?}");
    assert_eq!(std::fs::read(&target).unwrap(), b"a\nbb\n");
    session
        .call("Read", &json!({"file_path": "f.txt"}))
        .unwrap();
    session.call("Edit", &edit).unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"A\nbb\n");
}
