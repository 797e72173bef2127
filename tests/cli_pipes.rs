//! Every subcommand that prints, when its reader has gone — stdout a pipe already closed at
//! the other end, as `editref … | head -c1` leaves it — ends quietly with its own exit status:
//! the work it was asked to do is done (the edit on disk, the man pages written), a refusal is
//! still a refusal, and nothing is said on stderr. `println!` panics on a closed pipe (exit
//! 101, "failed printing to stdout"); `editref call` has its own test in `cli.rs`, the
//! harness's run in `conformance/tests/binary.rs`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_editref");

/// Runs `editref args` in `cwd` with `stdin` and stdout a pipe whose reader is gone; returns
/// the exit code and stderr.
fn into_closed_pipe(args: &[&str], cwd: &Path, stdin: &str) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
        )
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The child may end before reading it all; a write it did not wait for is no failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn read_and_edit_into_a_closed_pipe_end_with_their_own_status() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let many: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(d.join("f.txt"), &many).unwrap();
    let ok = (Some(0), String::new());
    assert_eq!(into_closed_pipe(&["read", "f.txt"], d, ""), ok);
    assert_eq!(into_closed_pipe(&["read", "f.txt", "--json"], d, ""), ok);
    let edit = [
        "edit",
        "f.txt",
        "--old-string",
        "line 7\n",
        "--new-string",
        "seven\n",
    ];
    assert_eq!(into_closed_pipe(&edit, d, ""), ok);
    assert_eq!(
        std::fs::read(d.join("f.txt")).unwrap(),
        many.replacen("line 7\n", "seven\n", 1).as_bytes()
    );
    // Refused: exit 1, and the refusal still reaches stderr; the file as it was.
    let (code, err) = into_closed_pipe(&edit, d, "");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.starts_with("editref: refused (not_found)"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, err) = into_closed_pipe(&["write", "new.txt"], d, "content\n");
    assert_eq!((code, err), ok);
    assert_eq!(std::fs::read(d.join("new.txt")).unwrap(), b"content\n");
}

/// `serve` whose client closed its end of the replies: the session is over, as when the
/// client closes the requests — exit 0, not an error.
#[test]
fn serve_into_a_closed_pipe_ends_as_the_session_does() {
    let dir = tempfile::tempdir().unwrap();
    let hello = "{\"type\": \"hello\", \"protocol\": 1}\n";
    assert_eq!(
        into_closed_pipe(&["serve"], dir.path(), hello),
        (Some(0), String::new())
    );
}

#[test]
fn man_and_completions_into_a_closed_pipe_end_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = (Some(0), String::new());
    assert_eq!(into_closed_pipe(&["man"], d, ""), ok);
    assert_eq!(into_closed_pipe(&["completions", "bash"], d, ""), ok);
    assert_eq!(into_closed_pipe(&["edit", "--help"], d, ""), ok);
    // The pages are written, though the line that says where cannot be.
    assert_eq!(into_closed_pipe(&["man", "--out", "pages"], d, ""), ok);
    let page = std::fs::read_to_string(d.join("pages/editref-edit.1")).unwrap();
    assert!(page.contains(".TH editref-edit 1"), "{page}");
}
