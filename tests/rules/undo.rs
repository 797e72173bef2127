//! UNDO-1..8 (SPEC §15, Undo): what the journal records, when undo refuses, how it restores,
//! steps, limits and where the journal lives.
//!
//! One module per rule family, so that a failing test is found by its rule ID; the sandbox and
//! the assertions every family shares are in `main.rs`.

use crate::{sb_in, sb_undo, Sb};
use editref::disk::{self, BatchOp, RealFs, WriteRequest};
use editref::text::Chunk;
use editref::undo::{UndoConfig, UndoPlace};
use editref::Code;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;

fn undo(t: &Sb, name: &str) -> Result<Value, editref::ToolError> {
    t.call("Undo", json!({"file_path": name}))
}

fn undo_steps(t: &Sb, name: &str, steps: u64) -> Result<Value, editref::ToolError> {
    t.call("Undo", json!({"file_path": name, "steps": steps}))
}

fn mode(t: &Sb, name: &str) -> u32 {
    std::fs::metadata(t.p(name)).unwrap().permissions().mode() & 0o7777
}

/// Replaces `name` and creates `other` in one unit, through the session's batch commit: the
/// multi-file unit an apply_patch leaves.
fn two_file_unit(t: &Sb, name: &str, new: &[u8], other: &str, other_new: &[u8]) {
    let target = t.p(name);
    let loaded = disk::load(&RealFs, &target, 1 << 20).unwrap();
    let created = t.p(other);
    let a = [Chunk::Original(new)];
    let b = [Chunk::Original(other_new)];
    let ops = [
        BatchOp::Write(WriteRequest {
            target: &target,
            chunks: &a,
            existing: Some(&loaded),
            fsync: false,
            mode: None,
        }),
        BatchOp::Write(WriteRequest {
            target: &created,
            chunks: &b,
            existing: None,
            fsync: false,
            mode: None,
        }),
    ];
    t.s.write_files("apply_patch", &ops).unwrap();
}

#[test]
fn undo_1_every_writer_records_one_unit_and_nothing_else_does() {
    let t = sb_undo();
    t.put("f.txt", b"one\ntwo\nthree\n");
    t.read("f.txt");
    t.edit("f.txt", "one", "1").unwrap();
    t.call(
        "MultiEdit",
        json!({"file_path": "f.txt", "edits": [
            {"old_string": "two", "new_string": "2"},
            {"old_string": "three", "new_string": "3"}]}),
    )
    .unwrap();
    t.call(
        "LineEdit",
        json!({"file_path": "f.txt", "start_line": 1, "end_line": 1, "new_content": "uno"}),
    )
    .unwrap();
    t.call("Write", json!({"file_path": "f.txt", "content": "whole\n"}))
        .unwrap();
    // A dry run, a refusal and a Read record nothing.
    t.call(
        "Edit",
        json!({"file_path": "f.txt", "old_string": "whole", "new_string": "w", "dry_run": true}),
    )
    .unwrap();
    t.edit("f.txt", "absent", "x").unwrap_err();
    t.read("f.txt");
    let expected: [&[u8]; 4] = [
        b"uno\n2\n3\n",
        b"1\n2\n3\n",
        b"1\ntwo\nthree\n",
        b"one\ntwo\nthree\n",
    ];
    let tools = ["Write", "LineEdit", "MultiEdit", "Edit"];
    for (bytes, tool) in expected.iter().zip(tools) {
        let out = undo(&t, "f.txt").unwrap();
        assert_eq!(out["undone"][0]["tool"], tool);
        assert_eq!(t.get("f.txt"), *bytes);
    }
    let e = t.refused(
        "f.txt",
        Code::NothingToUndo,
        "Undo",
        json!({"file_path": "f.txt"}),
    );
    assert_eq!(e.fields.get("available"), Some(&json!(0)));
}

#[test]
fn undo_1_a_journal_that_cannot_be_written_does_not_fail_the_write() {
    let dir = tempfile::tempdir().unwrap();
    let journal = std::fs::canonicalize(dir.path()).unwrap().join("journal");
    let t = sb_in(dir, |c| c.with_undo(&journal));
    t.put("f.txt", b"a\nb\n");
    t.read("f.txt");
    t.edit("f.txt", "a", "A").unwrap();
    // The journal's place is taken by a file: the next record fails, the write stands.
    std::fs::rename(&journal, journal.with_extension("away")).unwrap();
    std::fs::write(&journal, b"not a directory").unwrap();
    t.edit("f.txt", "b", "B").unwrap();
    assert_eq!(t.get("f.txt"), b"A\nB\n");
    std::fs::remove_file(&journal).unwrap();
    std::fs::rename(journal.with_extension("away"), &journal).unwrap();
    // The last recorded unit left "A\nb\n"; the file holds more than that: stale, untouched.
    t.refused("f.txt", Code::Stale, "Undo", json!({"file_path": "f.txt"}));
}

/// A power cut may leave a unit's record on disk and its copy of the old bytes empty, cut short
/// or zeroed (the journal is not fsynced): undo refuses such a unit with `io` and restores
/// nothing from it; with the copy whole again it goes ahead (UNDO-1: never a wrong restore).
#[test]
fn undo_1_a_damaged_copy_of_the_old_bytes_is_refused_never_restored() {
    let dir = tempfile::tempdir().unwrap();
    let journal = std::fs::canonicalize(dir.path()).unwrap().join("journal");
    let t = sb_in(dir, |c| c.with_undo(&journal));
    t.put("f.txt", b"alpha\nbeta\n");
    t.read("f.txt");
    t.edit("f.txt", "beta", "BETA").unwrap();
    let blob = std::fs::read_dir(&journal)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "before"))
        .expect("the unit's copy of the old bytes");
    let whole = std::fs::read(&blob).unwrap();
    assert_eq!(whole, b"alpha\nbeta\n");
    for damaged in [Vec::new(), whole[..5].to_vec(), vec![0; whole.len()]] {
        std::fs::write(&blob, &damaged).unwrap();
        let e = t.refused("f.txt", Code::Io, "Undo", json!({"file_path": "f.txt"}));
        assert!(e.message.contains("damaged"), "{}", e.message);
        assert_eq!(t.get("f.txt"), b"alpha\nBETA\n");
    }
    std::fs::write(&blob, &whole).unwrap();
    undo(&t, "f.txt").unwrap();
    assert_eq!(t.get("f.txt"), b"alpha\nbeta\n");
    t.assert_no_residue();
}

#[test]
fn undo_2_a_file_changed_since_is_refused_until_it_holds_what_the_unit_left() {
    let t = sb_undo();
    t.put("f.txt", b"alpha\nbeta\n");
    t.read("f.txt");
    t.edit("f.txt", "beta", "BETA").unwrap();
    t.modify("f.txt", b"alpha\nBETA\nuser line\n");
    t.refused("f.txt", Code::Stale, "Undo", json!({"file_path": "f.txt"}));
    // The check is by content: once the file holds what the edit left, undo goes ahead.
    t.modify("f.txt", b"alpha\nBETA\n");
    undo(&t, "f.txt").unwrap();
    assert_eq!(t.get("f.txt"), b"alpha\nbeta\n");
    t.assert_no_residue();
}

#[test]
fn undo_2_a_created_file_removed_since_is_stale() {
    let t = sb_undo();
    t.call("Write", json!({"file_path": "new.txt", "content": "x\n"}))
        .unwrap();
    std::fs::remove_file(t.p("new.txt")).unwrap();
    let e = undo(&t, "new.txt").unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert!(!t.p("new.txt").exists());
    t.assert_no_residue();
}

#[test]
fn undo_2_every_file_of_a_unit_is_checked_before_any_is_written() {
    let t = sb_undo();
    t.put("a.txt", b"old a\n");
    two_file_unit(&t, "a.txt", b"new a\n", "b.txt", b"new b\n");
    t.modify("b.txt", b"changed b\n");
    t.refused("a.txt", Code::Stale, "Undo", json!({"file_path": "a.txt"}));
    assert_eq!(t.get("b.txt"), b"changed b\n");
}

#[test]
fn undo_2_read_only_and_hard_linked_files_are_refused_as_edit_would() {
    let t = sb_undo();
    t.put("f.txt", b"a\n");
    t.read("f.txt");
    t.edit("f.txt", "a", "b").unwrap();
    std::fs::set_permissions(t.p("f.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
    t.refused(
        "f.txt",
        Code::PermissionDenied,
        "Undo",
        json!({"file_path": "f.txt"}),
    );
    std::fs::set_permissions(t.p("f.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::hard_link(t.p("f.txt"), t.p("other-name.txt")).unwrap();
    t.refused(
        "f.txt",
        Code::HardLink,
        "Undo",
        json!({"file_path": "f.txt"}),
    );
    std::fs::remove_file(t.p("other-name.txt")).unwrap();
    undo(&t, "f.txt").unwrap();
    assert_eq!(t.get("f.txt"), b"a\n");
}

#[test]
fn undo_3_nothing_to_undo_says_how_many_are_available() {
    let t = sb_undo();
    t.put("f.txt", b"a\n");
    let e = t.refused(
        "f.txt",
        Code::NothingToUndo,
        "Undo",
        json!({"file_path": "f.txt"}),
    );
    assert_eq!(e.fields.get("available"), Some(&json!(0)));
    t.read("f.txt");
    t.edit("f.txt", "a", "b").unwrap();
    t.edit("f.txt", "b", "c").unwrap();
    let e = t.refused(
        "f.txt",
        Code::NothingToUndo,
        "Undo",
        json!({"file_path": "f.txt", "steps": 3}),
    );
    assert_eq!(e.fields.get("available"), Some(&json!(2)));
    // A session without a journal has nothing to undo, ever.
    let plain = crate::sb();
    plain.put("g.txt", b"a\n");
    plain.read("g.txt");
    plain.edit("g.txt", "a", "b").unwrap();
    let e = plain.refused(
        "g.txt",
        Code::NothingToUndo,
        "Undo",
        json!({"file_path": "g.txt"}),
    );
    assert_eq!(e.fields.get("available"), Some(&json!(0)));
}

#[test]
fn undo_4_restores_bytes_exactly_removes_created_files_and_keeps_links() {
    let t = sb_undo();
    // UTF-16LE with BOM and CRLF: the old bytes come back as they were.
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("é\r\nb\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    t.put("u.txt", &utf16);
    t.read("u.txt");
    t.edit("u.txt", "b", "ß").unwrap();
    assert_ne!(t.get("u.txt"), utf16);
    let out = undo(&t, "u.txt").unwrap();
    assert_eq!(out["undone"][0]["files"][0]["action"], "restored");
    assert_eq!(t.get("u.txt"), utf16);
    // A file the unit created is removed (its new parent directory stays).
    t.call("Write", json!({"file_path": "d/new.txt", "content": "x"}))
        .unwrap();
    let out = undo(&t, "d/new.txt").unwrap();
    assert_eq!(out["undone"][0]["files"][0]["action"], "removed");
    assert!(!t.p("d/new.txt").exists());
    // Through a symlink: the target is restored, the link stays a link.
    t.put("target.txt", b"one\n");
    std::os::unix::fs::symlink("target.txt", t.p("link.txt")).unwrap();
    t.read("link.txt");
    t.edit("link.txt", "one", "two").unwrap();
    undo(&t, "link.txt").unwrap();
    assert!(std::fs::symlink_metadata(t.p("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(t.get("target.txt"), b"one\n");
    t.assert_no_residue();
}

#[test]
fn undo_4_a_restored_file_keeps_its_mode_a_recreated_one_gets_the_recorded_mode() {
    let t = sb_undo();
    t.put("run.sh", b"echo 1\n");
    std::fs::set_permissions(t.p("run.sh"), std::fs::Permissions::from_mode(0o640)).unwrap();
    t.read("run.sh");
    t.edit("run.sh", "1", "2").unwrap();
    // The tools never change a mode; a chmod since is the user's, and stays.
    std::fs::set_permissions(t.p("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    undo(&t, "run.sh").unwrap();
    assert_eq!(t.get("run.sh"), b"echo 1\n");
    assert_eq!(mode(&t, "run.sh"), 0o750);
    // A unit that deleted a file: undo brings it back with its bytes and mode.
    t.put("gone.txt", b"keep me\n");
    std::fs::set_permissions(t.p("gone.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let target = t.p("gone.txt");
    let loaded = disk::load(&RealFs, &target, 1 << 20).unwrap();
    let ops = [BatchOp::Delete {
        target: &target,
        existing: &loaded,
    }];
    t.s.write_files("apply_patch", &ops).unwrap();
    drop(loaded);
    assert!(!target.exists());
    let out = undo(&t, "gone.txt").unwrap();
    assert_eq!(out["undone"][0]["files"][0]["action"], "recreated");
    assert_eq!(t.get("gone.txt"), b"keep me\n");
    assert_eq!(mode(&t, "gone.txt"), 0o600);
    t.assert_no_residue();
}

#[test]
fn undo_4_all_files_of_a_unit_are_undone_together() {
    let t = sb_undo();
    t.put("a.txt", b"old a\n");
    two_file_unit(&t, "a.txt", b"new a\n", "b.txt", b"new b\n");
    // Asked through either file, the whole unit goes.
    let out = undo(&t, "b.txt").unwrap();
    let files = &out["undone"][0]["files"];
    assert_eq!(files[0]["action"], "restored");
    assert_eq!(files[1]["action"], "removed");
    assert_eq!(t.get("a.txt"), b"old a\n");
    assert!(!t.p("b.txt").exists());
    let e = undo(&t, "a.txt").unwrap_err();
    assert_eq!(e.code, Code::NothingToUndo);
    t.assert_no_residue();
}

#[test]
fn undo_5_is_not_recorded_goes_further_back_and_forgets_the_read() {
    let t = sb_undo();
    t.put("f.txt", b"v1\n");
    t.read("f.txt");
    t.edit("f.txt", "v1", "v2").unwrap();
    t.edit("f.txt", "v2", "v3").unwrap();
    undo(&t, "f.txt").unwrap();
    assert_eq!(t.get("f.txt"), b"v2\n");
    // A second undo goes further back: it does not redo the first.
    undo(&t, "f.txt").unwrap();
    assert_eq!(t.get("f.txt"), b"v1\n");
    // The restored file counts as not read.
    t.refused(
        "f.txt",
        Code::NotRead,
        "Edit",
        json!({"file_path": "f.txt", "old_string": "v1", "new_string": "x"}),
    );
    t.refused(
        "f.txt",
        Code::NothingToUndo,
        "Undo",
        json!({"file_path": "f.txt"}),
    );
}

#[test]
fn undo_6_per_file_limit_drops_the_oldest_units() {
    let dir = tempfile::tempdir().unwrap();
    let journal = std::fs::canonicalize(dir.path()).unwrap().join("journal");
    let t = sb_in(dir, |mut c| {
        let mut u = UndoConfig::new(&journal);
        u.max_per_file = 3;
        c.undo = Some(u);
        c
    });
    t.put("f.txt", b"0\n");
    t.read("f.txt");
    for i in 1..=5 {
        t.edit("f.txt", &format!("{}", i - 1), &format!("{i}"))
            .unwrap();
    }
    let e = undo_steps(&t, "f.txt", 4).unwrap_err();
    assert_eq!(e.code, Code::NothingToUndo);
    assert_eq!(e.fields.get("available"), Some(&json!(3)));
    assert_eq!(t.get("f.txt"), b"5\n");
    undo_steps(&t, "f.txt", 3).unwrap();
    assert_eq!(t.get("f.txt"), b"2\n");
}

#[test]
fn undo_6_old_content_over_the_cap_is_not_kept_and_its_undo_is_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let journal = std::fs::canonicalize(dir.path()).unwrap().join("journal");
    let t = sb_in(dir, |mut c| {
        let mut u = UndoConfig::new(&journal);
        u.max_bytes = 16;
        c.undo = Some(u);
        c
    });
    t.put("small.txt", b"tiny\n");
    t.put("big.txt", b"0123456789 0123456789\n");
    t.read("small.txt");
    t.read("big.txt");
    t.edit("small.txt", "tiny", "TINY").unwrap();
    t.edit("big.txt", "0123456789 ", "").unwrap();
    t.refused(
        "big.txt",
        Code::TooLarge,
        "Undo",
        json!({"file_path": "big.txt"}),
    );
    // Changed since or not, a unit without its old bytes cannot be undone: too_large, before
    // the check that the file holds what the unit left (UNDO-2), and nothing is written.
    t.put("big.txt", b"changed since\n");
    t.refused(
        "big.txt",
        Code::TooLarge,
        "Undo",
        json!({"file_path": "big.txt"}),
    );
    assert_eq!(t.get("big.txt"), b"changed since\n");
    // The small unit is within the cap and still undoable.
    undo(&t, "small.txt").unwrap();
    assert_eq!(t.get("small.txt"), b"tiny\n");
    // Keeping a newer unit's old bytes drops older units beyond the cap.
    t.read("small.txt");
    t.edit("small.txt", "tiny", "0123456789ab").unwrap();
    t.edit("small.txt", "0123456789ab", "c").unwrap();
    assert_eq!(
        undo_steps(&t, "small.txt", 2)
            .unwrap_err()
            .fields
            .get("available"),
        Some(&json!(1))
    );
}

#[test]
fn undo_7_place_of_the_journal() {
    let root = std::path::Path::new("/project");
    let state = std::path::Path::new("/state/editref/undo");
    let per_root = UndoPlace::PerRoot(state.into()).config_for(root).unwrap();
    assert_eq!(per_root.dir, editref::undo::journal_dir(state, root));
    assert_eq!(per_root.root.as_deref(), Some(root));
    assert_eq!(
        UndoPlace::from_flags(Some("/j".into()), false).config_for(root),
        Some(UndoConfig::new("/j"))
    );
    assert_eq!(UndoPlace::from_flags(None, true).config_for(root), None);
    assert_eq!(
        UndoPlace::from_flags(None, false),
        UndoPlace::PerRoot(editref::undo::state_base())
    );
    // A temporary journal (serve, the built-in adapter) goes with its owner.
    let temp = editref::undo::TempJournal::new().unwrap();
    let place = temp.config().dir;
    assert!(place.is_dir());
    drop(temp);
    assert!(!place.exists());
}

#[test]
fn undo_8_steps_go_newest_first_each_step_whole() {
    let t = sb_undo();
    t.put("f.txt", b"v1\n");
    t.read("f.txt");
    t.edit("f.txt", "v1", "v2").unwrap();
    t.edit("f.txt", "v2", "v3").unwrap();
    t.edit("f.txt", "v3", "v4").unwrap();
    let out = undo_steps(&t, "f.txt", 2).unwrap();
    assert_eq!(out["undone"].as_array().map(Vec::len), Some(2));
    assert_eq!(t.get("f.txt"), b"v2\n");
    undo(&t, "f.txt").unwrap();
    assert_eq!(t.get("f.txt"), b"v1\n");
}

#[test]
fn undo_8_a_refusal_after_k_steps_says_k_were_undone() {
    let t = sb_undo();
    t.put("a.txt", b"old a\n");
    two_file_unit(&t, "a.txt", b"new a\n", "b.txt", b"new b\n");
    t.read("a.txt");
    t.edit("a.txt", "new a", "newer a").unwrap();
    t.modify("b.txt", b"changed b\n");
    let e = undo_steps(&t, "a.txt", 2).unwrap_err();
    assert_eq!(e.code, Code::Stale);
    assert_eq!(e.fields.get("undone"), Some(&json!(1)));
    // Step 1 stands; step 2 wrote nothing.
    assert_eq!(t.get("a.txt"), b"new a\n");
    assert_eq!(t.get("b.txt"), b"changed b\n");
    t.assert_no_residue();
}
