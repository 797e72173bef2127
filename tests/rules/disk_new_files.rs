//! DISK-1 and D35: a file a tool creates looks like one the user's own programs create — the
//! mode `open(O_CREAT, 0666)` gets under the umask, the directory's group where it is setgid,
//! the directory's default ACL — whichever tool creates it.
//!
//! The umask belongs to the whole process, and the other tests run in threads beside this one,
//! so each umask is set in a child: the test runs its own binary again with only
//! [`new_files_child`] selected and the umask to use in the environment.

use crate::{sb, Sb};
use editref::api::{ApplyPatchInput, SearchReplaceInput};
use serde_json::json;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

const UMASK_VAR: &str = "EDITREF_TEST_CHILD_UMASK";
const ACCESS: &str = "system.posix_acl_access";
const UNDEFINED: u32 = u32::MAX;

/// A default ACL with an entry for uid 4242 (encoded as in `disk_attrs.rs`).
fn default_acl() -> Vec<u8> {
    let mut blob = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in [
        (0x01u16, 7u16, UNDEFINED),
        (0x02, 6, 4242),
        (0x04, 5, UNDEFINED),
        (0x10, 7, UNDEFINED),
        (0x20, 5, UNDEFINED),
    ] {
        blob.extend_from_slice(&tag.to_le_bytes());
        blob.extend_from_slice(&perm.to_le_bytes());
        blob.extend_from_slice(&id.to_le_bytes());
    }
    blob
}

/// What a new file looks like, apart from its bytes: mode, group, access ACL.
fn look(p: &Path) -> (u32, u32, Option<Vec<u8>>) {
    let m = std::fs::metadata(p).unwrap();
    let acl = xattr::get(p, ACCESS).ok().flatten();
    (m.permissions().mode() & 0o7777, m.gid(), acl)
}

/// Every tool that creates a file, creating `dir/<tool>.txt` (and `dir/deep/<tool>.txt`
/// through directories it must make); returns the names made.
fn create_with_every_tool(t: &Sb, dir: &str) -> Vec<String> {
    let p = |name: &str| format!("{dir}/{name}");
    t.call(
        "Write",
        json!({"file_path": p("write.txt"), "content": "w\n"}),
    )
    .unwrap();
    t.call(
        "Write",
        json!({"file_path": p("deep/er/write.txt"), "content": "w\n"}),
    )
    .unwrap();
    t.edit(&p("edit.txt"), "", "e\n").unwrap();
    t.call(
        "MultiEdit",
        json!({"file_path": p("multi.txt"), "edits": [{"old_string": "", "new_string": "m\n"}]}),
    )
    .unwrap();
    let patch = format!(
        "*** Begin Patch\n*** Add File: {}\n+a\n*** End Patch\n",
        p("add.txt")
    );
    t.s.apply_patch(ApplyPatchInput::new(patch)).unwrap();
    t.call(
        "str_replace_based_edit_tool",
        json!({"command": "create", "path": p("editor.txt"), "file_text": "c\n"}),
    )
    .unwrap();
    let reply = format!(
        "{}\n<<<<<<< SEARCH\n=======\nb\n>>>>>>> REPLACE\n",
        p("block.txt")
    );
    t.s.search_replace(SearchReplaceInput::new(reply)).unwrap();
    [
        "write.txt",
        "deep/er/write.txt",
        "edit.txt",
        "multi.txt",
        "add.txt",
        "editor.txt",
        "block.txt",
    ]
    .iter()
    .map(|n| p(n))
    .collect()
}

/// Run only in the child (the umask in the environment): in a plain directory, a setgid one
/// of another group and one with a default ACL, each created file looks exactly like a file
/// `File::create` makes beside it, in this process, under the same umask.
#[test]
fn new_files_child() {
    let Ok(umask) = std::env::var(UMASK_VAR) else {
        return;
    };
    let umask = u32::from_str_radix(&umask, 8).unwrap();
    // SAFETY: sets the process umask; this process runs this test alone.
    unsafe { libc::umask(umask as libc::mode_t) };
    let t = sb();
    for dir in ["plain", "sgid", "acl"] {
        std::fs::create_dir(t.p(dir)).unwrap();
    }
    std::os::unix::fs::chown(t.p("sgid"), None, Some(4243)).unwrap();
    std::fs::set_permissions(t.p("sgid"), std::fs::Permissions::from_mode(0o2775)).unwrap();
    xattr::set(t.p("acl"), "system.posix_acl_default", &default_acl()).unwrap();
    for dir in ["plain", "sgid", "acl"] {
        for made in create_with_every_tool(&t, dir) {
            let made = t.p(&made);
            let model = made.with_file_name("model");
            std::fs::File::create(&model).unwrap();
            assert_eq!(
                look(&made),
                look(&model),
                "{} under umask {umask:03o}",
                made.display()
            );
            std::fs::remove_file(&model).unwrap();
        }
    }
    assert_eq!(look(&t.p("sgid/write.txt")).1, 4243);
    assert!(look(&t.p("acl/write.txt")).2.is_some());
    t.assert_no_residue();
    println!("child checked umask {umask:03o}");
}

#[test]
fn disk_1_new_files_look_like_files_the_user_made_under_every_umask() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: a setgid directory of another group needs root");
        return;
    }
    let probe = tempfile::tempdir().unwrap();
    if let Err(e) = xattr::set(probe.path(), "system.posix_acl_default", &default_acl()) {
        eprintln!("skipped: POSIX default ACLs are not supported here ({e})");
        return;
    }
    for umask in ["022", "002", "077"] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "disk_new_files::new_files_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(UMASK_VAR, umask)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(&format!("child checked umask {umask}")),
            "umask {umask}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
