//! SESSION-1..5 (SPEC §9, sessions and staleness): read before write, both staleness checks, no
//! lost update, the bounded read state.
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
