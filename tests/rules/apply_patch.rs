//! APPLY-10..20: applying a V4A patch through `Session::apply_patch`. Exact bytes after every
//! success; every refusal leaves every file as it was, creates nothing and leaves no temp file.

use super::{sb, Sb};
use editref::api::{ApplyPatchInput, FileAction, UndoInput};
use editref::{Code, Config, Session};

fn patch(body: &str) -> ApplyPatchInput {
    ApplyPatchInput::new(format!("*** Begin Patch\n{body}*** End Patch\n"))
}

impl Sb {
    /// Asserts a refusal with `code` that leaves every file in `files` as it was and leaves
    /// nothing at any path in `absent`.
    fn patch_refused(
        &self,
        input: ApplyPatchInput,
        code: Code,
        files: &[&str],
        absent: &[&str],
    ) -> editref::ToolError {
        let before: Vec<_> = files.iter().map(|f| self.get(f)).collect();
        let err = self.s.apply_patch(input).expect_err("must be refused");
        assert_eq!(err.code, code, "{}", err.message);
        for (f, b) in files.iter().zip(&before) {
            assert_eq!(&self.get(f), b, "{f} changed on refusal");
        }
        for a in absent {
            assert!(
                std::fs::symlink_metadata(self.p(a)).is_err(),
                "{a} created on refusal"
            );
        }
        self.assert_no_residue();
        err
    }
}

#[test]
fn apply_10_a_failure_in_the_third_operation_leaves_the_first_two_untouched() {
    let t = sb();
    t.put("a.txt", b"first\n");
    t.put("c.txt", b"third\n");
    let body = "*** Update File: a.txt\n-first\n+FIRST\n*** Add File: b.txt\n+second\n\
                *** Update File: c.txt\n-missing\n+THIRD\n";
    let err = t.patch_refused(patch(body), Code::NotFound, &["a.txt", "c.txt"], &["b.txt"]);
    assert_eq!(err.fields["patch_line"], 7);
    assert_eq!(err.fields["chunk_line"], 8);
}

#[test]
fn apply_10_every_operation_applied_with_exact_bytes() {
    let t = sb();
    t.put("app.py", b"import os\r\nrun()\r\n");
    t.put("old.txt", b"bye\n");
    let body = "*** Add File: pkg/sub/new.py\n+x = 1\n+\n*** Update File: app.py\n import os\n\
                -run()\n+run(fast=True)\n+done()\n*** Delete File: old.txt\n";
    let out = t.s.apply_patch(patch(body)).unwrap();
    let actions: Vec<FileAction> = out.files.iter().map(|f| f.action).collect();
    assert_eq!(
        actions,
        [
            FileAction::Created,
            FileAction::Updated,
            FileAction::Deleted
        ]
    );
    assert_eq!(t.get("pkg/sub/new.py"), b"x = 1\n\n");
    assert_eq!(
        t.get("app.py"),
        b"import os\r\nrun(fast=True)\r\ndone()\r\n"
    );
    assert!(!t.p("old.txt").exists());
    t.assert_no_residue();
}

#[test]
fn apply_11_add_file_over_an_existing_file_is_file_exists() {
    let t = sb();
    t.put("notes.txt", b"nobody read this\n");
    t.patch_refused(
        patch("*** Add File: notes.txt\n+replaced\n"),
        Code::FileExists,
        &["notes.txt"],
        &[],
    );
}

#[test]
fn apply_12_delete_of_a_binary_or_missing_file_is_refused() {
    let t = sb();
    t.put("img.bin", b"\x89PNG\0\0\x1a\n");
    t.put("keep.txt", b"keep\n");
    let body = "*** Delete File: keep.txt\n*** Delete File: img.bin\n";
    t.patch_refused(patch(body), Code::Binary, &["img.bin", "keep.txt"], &[]);
    let body = "*** Delete File: keep.txt\n*** Delete File: nothing.txt\n";
    let err = t.patch_refused(patch(body), Code::FileNotFound, &["keep.txt"], &[]);
    assert_eq!(err.fields["patch_line"], 3);
}

#[cfg(unix)]
#[test]
fn apply_13_update_keeps_bom_mixed_endings_missing_final_newline_and_mode() {
    use std::os::unix::fs::PermissionsExt;
    let t = sb();
    t.put("s.sh", b"\xef\xbb\xbfa\r\nb\nc\r\nd");
    std::fs::set_permissions(t.p("s.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    let body = "*** Update File: s.sh\n b\n-c\n+C\n+c2\n d\n";
    t.s.apply_patch(patch(body)).unwrap();
    assert_eq!(t.get("s.sh"), b"\xef\xbb\xbfa\r\nb\nC\r\nc2\r\nd");
    let mode = std::fs::metadata(t.p("s.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o750);
    t.assert_no_residue();
}

#[cfg(unix)]
#[test]
fn apply_14_move_keeps_mode_and_removes_the_old_path_and_never_overwrites() {
    use std::os::unix::fs::PermissionsExt;
    let t = sb();
    t.put("run.sh", b"#!/bin/sh\necho 1\n");
    std::fs::set_permissions(t.p("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    t.put("taken.sh", b"mine\n");
    let onto = "*** Update File: run.sh\n*** Move to: taken.sh\n@@\n-echo 1\n+echo 2\n";
    t.patch_refused(patch(onto), Code::FileExists, &["run.sh", "taken.sh"], &[]);
    let body = "*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo 1\n+echo 2\n";
    t.s.apply_patch(patch(body)).unwrap();
    assert_eq!(t.get("bin/run.sh"), b"#!/bin/sh\necho 2\n");
    let mode = std::fs::metadata(t.p("bin/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o755);
    assert!(!t.p("run.sh").exists());
    t.assert_no_residue();
}

#[test]
fn apply_15_no_read_needed_but_a_read_file_changed_since_is_stale() {
    let t = sb();
    t.put("a.txt", b"x\ny\n");
    t.put("b.txt", b"b\n");
    t.read("a.txt");
    t.put("a.txt", b"x\ny\nz\n");
    let body = "*** Update File: b.txt\n-b\n+B\n*** Update File: a.txt\n-y\n+Y\n";
    t.patch_refused(patch(body), Code::Stale, &["a.txt", "b.txt"], &[]);
    // b.txt was never read: it needs no Read (DIALECT-1).
    t.s.apply_patch(patch("*** Update File: b.txt\n-b\n+B\n"))
        .unwrap();
    assert_eq!(t.get("b.txt"), b"B\n");
}

#[test]
fn apply_16_a_path_outside_the_root_refuses_the_whole_patch() {
    let t = sb();
    t.put("a.txt", b"in\n");
    let body = "*** Update File: a.txt\n-in\n+out\n*** Add File: ../escape.txt\n+x\n";
    let err = t.patch_refused(
        patch(body),
        Code::OutsideRoot,
        &["a.txt"],
        &["../escape.txt"],
    );
    assert_eq!(err.fields["patch_line"], 5);
}

#[test]
fn apply_19_dry_run_answers_as_the_real_call_and_writes_nothing() {
    let t = sb();
    t.put("a.txt", b"one\ntwo\n");
    let body = "*** Update File: a.txt\n-one\n+uno\n*** Add File: b.txt\n+b\n";
    let mut input = patch(body);
    input.dry_run = true;
    let dry = t.s.apply_patch(input).unwrap();
    assert!(dry.dry_run);
    assert_eq!(t.get("a.txt"), b"one\ntwo\n");
    assert!(!t.p("b.txt").exists());
    let real = t.s.apply_patch(patch(body)).unwrap();
    assert!(!real.dry_run);
    let diffs = |o: &editref::api::FilesOutput| -> Vec<String> {
        o.files
            .iter()
            .map(|f| f.change.diff().to_string())
            .collect()
    };
    assert_eq!(diffs(&dry), diffs(&real));
    assert_eq!(t.get("a.txt"), b"uno\ntwo\n");
    assert_eq!(t.get("b.txt"), b"b\n");
}

#[test]
fn apply_20_one_undo_takes_back_every_file_of_the_patch() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    let s = Session::new(
        Config::new(&root)
            .with_root(&root)
            .with_undo(base.join("undo")),
    );
    std::fs::write(root.join("a.txt"), b"a\n").unwrap();
    std::fs::write(root.join("gone.txt"), b"gone\n").unwrap();
    let body = "*** Update File: a.txt\n-a\n+A\n*** Add File: new.txt\n+n\n\
                *** Delete File: gone.txt\n";
    s.apply_patch(patch(body)).unwrap();
    s.undo(UndoInput::new("a.txt")).unwrap();
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(root.join("gone.txt")).unwrap(), b"gone\n");
    assert!(!root.join("new.txt").exists());
}

/// BATCH-1 with APPLY-11: a patch whose second added file cannot be created leaves nothing,
/// not even the directories made for the first one.
#[test]
fn apply_11_a_failed_batch_takes_back_the_directories_it_made() {
    let t = sb();
    t.put("keep.txt", b"k\n");
    let body = format!(
        "*** Add File: new/dir/one.txt\n+one\n*** Add File: other/{}.txt\n+two\n",
        "n".repeat(300)
    );
    t.patch_refused(patch(&body), Code::Io, &["keep.txt"], &["new", "other"]);
}

#[test]
fn apply_19_a_dry_run_leaves_the_read_state_as_it_was() {
    sb().dry_run_keeps_the_read_state(
        "apply_patch",
        serde_json::json!({
            "input": "*** Begin Patch\n*** Update File: f.txt\n alpha\n-beta\n+BETA\n*** End Patch\n",
            "dry_run": true,
        }),
    );
    // A file the session never read stays unread: the dry run is no Read either.
    let t = sb();
    t.put("g.txt", b"one\n");
    let mut input = patch("*** Update File: g.txt\n-one\n+ONE\n*** Add File: h.txt\n+h\n");
    input.dry_run = true;
    assert!(t.s.apply_patch(input).unwrap().dry_run);
    assert_eq!(t.s.read_state().len(), 0);
    assert_eq!(t.get("g.txt"), b"one\n");
    assert!(!t.p("h.txt").exists());
    t.refused(
        "g.txt",
        Code::NotRead,
        "Edit",
        serde_json::json!({"file_path": "g.txt", "old_string": "one", "new_string": "1"}),
    );
}
