//! SESSION-1..7 (SPEC §9, sessions and staleness): read before write, both staleness checks, no
//! lost update, the bounded read state, calls on one file taking turns, and what `stale` says.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb, sb_with};
use editref::{Code, Config, Session};
use serde_json::json;
use std::path::Path;

#[test]
fn session_1_read_before_write_and_one_shot() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.refused(
        "f.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    );
    let one = Session::new(Config::new(&t.root).one_shot());
    one.call(
        "Edit",
        &json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
    )
    .unwrap();
    assert_eq!(t.get("f.txt"), b"b\n");
}

fn set_mtime(p: &Path, delta_secs: i64) {
    let f = std::fs::File::options().write(true).open(p).unwrap();
    let m = f.metadata().unwrap().modified().unwrap();
    let t = if delta_secs >= 0 {
        m + std::time::Duration::from_secs(delta_secs as u64)
    } else {
        m - std::time::Duration::from_secs((-delta_secs) as u64)
    };
    f.set_modified(t).unwrap();
}

#[test]
fn session_2_changed_stale_touched_forgiven_backwards_counts() {
    let t = sb();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    std::fs::write(t.p("f.txt"), b"b\n").unwrap();
    set_mtime(&t.p("f.txt"), 2);
    t.refused(
        "f.txt",
        Code::Stale,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "b", "new_string": "c"}),
    );
    t.read("f.txt");
    set_mtime(&t.p("f.txt"), 5);
    t.edit("f.txt", "b", "c").expect("touched only: not stale");
    assert_eq!(t.get("f.txt"), b"c\n");
    let m = std::fs::metadata(t.p("f.txt")).unwrap().modified().unwrap();
    std::fs::write(t.p("f.txt"), b"d\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(t.p("f.txt"))
        .unwrap()
        .set_modified(m - std::time::Duration::from_secs(5))
        .unwrap();
    t.refused(
        "f.txt",
        Code::Stale,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "d", "new_string": "e"}),
    );
}

#[test]
fn session_3_change_just_before_rename_is_stale() {
    use editref::disk::{FaultFs, Op, RealFs};
    use std::sync::Arc;
    let t = sb();
    t.put("f.txt", b"a\n");
    let target = t.p("f.txt");
    let fs = FaultFs::new(Arc::new(RealFs)).with_hook(move |op, _| {
        if op == Op::Lock {
            std::fs::write(&target, b"other\n").unwrap();
        }
    });
    let s = Session::with_fs(Config::new(&t.root).one_shot(), Arc::new(fs));
    let e = s
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::Stale);
    // SESSION-7: it says what happened, and blames no one it cannot know.
    assert!(
        e.message
            .contains("while this call was writing it, its content changed"),
        "{}",
        e.message
    );
    assert!(!e.message.contains("user"), "{}", e.message);
    assert_eq!(t.get("f.txt"), b"other\n");
    t.assert_no_residue();
}

#[test]
fn session_4_two_sessions_one_file_no_lost_update() {
    let t = sb();
    t.put("f.txt", b"a b\n");
    let other = Session::new(Config::new(&t.root).with_root(&t.root));
    t.read("f.txt");
    other.call("Read", &json!({"file_path": "f.txt"})).unwrap();
    t.edit("f.txt", "a", "x").unwrap();
    let e = other
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "b", "new_string": "y"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert_eq!(t.get("f.txt"), b"x b\n");
    t.assert_no_residue();
}

#[test]
fn session_5_evicted_file_needs_a_reread() {
    let t = sb_with(|mut c| {
        c.max_entries = 2;
        c
    });
    for n in ["a", "b", "c"] {
        t.put(n, b"x\n");
        t.read(n);
    }
    t.refused(
        "a",
        Code::NotRead,
        "Edit",
        json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
    );
    t.edit("c", "x", "y").unwrap();
    assert_eq!(t.get("c"), b"y\n");
}

/// The file of the parallel tests: `lines` numbered lines.
fn numbered(lines: usize, edited: impl Fn(usize) -> bool) -> Vec<u8> {
    (0..lines)
        .map(|i| {
            if edited(i) {
                format!("line {i:02}: EDITED by call {i}\n")
            } else {
                format!("line {i:02}: as it was\n")
            }
        })
        .collect::<String>()
        .into_bytes()
}

/// SESSION-6: 40 Edits of distinct lines of one file, after one shared Read, released together
/// from 40 threads on one session, all apply: each call in turn is checked against the file as
/// the previous one left it, which the session knows as read (EDIT-4). The file's final bytes
/// are exactly the 40 edits, each once.
#[test]
fn session_6_forty_parallel_edits_of_one_file_all_apply() {
    const N: usize = 40;
    let t = sb();
    t.put("f.txt", &numbered(N, |_| false));
    t.read("f.txt");
    let start = std::sync::Barrier::new(N);
    let answers: Vec<Result<serde_json::Value, editref::ToolError>> = std::thread::scope(|s| {
        let calls: Vec<_> = (0..N)
            .map(|i| {
                let (t, start) = (&t, &start);
                s.spawn(move || {
                    start.wait();
                    t.edit(
                        "f.txt",
                        &format!("line {i:02}: as it was"),
                        &format!("line {i:02}: EDITED by call {i}"),
                    )
                })
            })
            .collect();
        calls.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let refused: Vec<String> = answers
        .iter()
        .filter_map(|a| a.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert!(refused.is_empty(), "{} refused: {refused:?}", refused.len());
    // Each answer is the truth: one replacement, in the line it named.
    for (i, a) in answers.iter().enumerate() {
        let out = a.as_ref().unwrap();
        assert_eq!(out["replacements"], 1);
        assert_eq!(out["structuredPatch"][0]["newStart"], i + 1 - i.min(3));
    }
    assert_eq!(t.get("f.txt"), numbered(N, |_| true));
    t.assert_no_residue();
    // And the session knows the last write as read: one more Edit needs no Read.
    t.edit("f.txt", "line 00: EDITED", "line 00: edited")
        .unwrap();
}

/// SESSION-6: a session's own writes do not make its next call stale — Edit, MultiEdit,
/// Write, LineEdit and Edit again, one after the other, after a single Read.
#[test]
fn session_6_own_writes_are_not_stale() {
    let t = sb();
    t.put("f.txt", b"a\nb\nc\n");
    t.read("f.txt");
    t.edit("f.txt", "a", "A").unwrap();
    t.call(
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [{"old_string": "b", "new_string": "B"}]}),
    )
    .unwrap();
    t.call(
        "Write",
        json!({"file_path": "f.txt", "content": "A\nB\nc\nd\n"}),
    )
    .unwrap();
    t.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 4, "end_line": 4, "new_content": "D\n"}),
    )
    .unwrap();
    t.edit("f.txt", "c", "C").unwrap();
    assert_eq!(t.get("f.txt"), b"A\nB\nC\nD\n");
}

/// SESSION-2 and SESSION-7: a change by another program is still `stale`, however the calls
/// are scheduled, and the message names what changed — size, modification time, text — without
/// blaming the user or a linter; the `changed` field lists the same. Nothing is written.
#[test]
fn session_7_an_outside_change_is_stale_and_named() {
    let t = sb();
    t.put("f.txt", b"a\nb\n");
    t.read("f.txt");
    t.edit("f.txt", "a", "A").unwrap();
    t.modify("f.txt", b"A\nb\nextra\n");
    let e = t.refused(
        "f.txt",
        Code::Stale,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "b", "new_string": "B"}),
    );
    assert!(
        e.message.starts_with(
            "File has been modified since read: its size went from 4 to 10 bytes, its \
             modification time moved on and its text is not the text that was read."
        ),
        "{}",
        e.message
    );
    assert!(e.message.contains("Read it again"), "{}", e.message);
    assert!(!e.message.contains("user"), "{}", e.message);
    assert!(!e.message.contains("linter"), "{}", e.message);
    assert_eq!(e.fields["changed"], json!(["size", "mtime", "content"]));
    assert_eq!(t.get("f.txt"), b"A\nb\nextra\n");
}
