//! UNDO-6 and UNDO-7 on the journal itself: its limits at their exact boundaries, and where the
//! default journal lives — one per root in the user's state directory, private, naming its root,
//! sweeping the journals of roots that are gone — with nothing ever written into the root.

use editref::disk::RealFs;
use editref::undo::{
    journal_dir, state_base_from, After, Before, BeforeRecord, Change, FileRecord, Journal,
    UndoConfig, UndoPlace, UnitRecord,
};
use editref::{Code, Config, Session};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn kept<'a>(target: &Path, bytes: &'a [u8]) -> Change<'a> {
    Change {
        target: target.to_path_buf(),
        before: Before::File { bytes, mode: 0o644 },
        after: After::Bytes(vec![b"new"]),
    }
}

/// xxh3-128 of `b"new"` (what `kept` says a write left), from another implementation.
const NEW_XXH3: &str = "4268207a5959016d4db73088ace631b8";

/// The units of `target` in `journal`, oldest first, by their old bytes.
fn old_bytes(journal: &Journal<'_>, target: &Path) -> Vec<Vec<u8>> {
    let mut units = journal.for_file(target).unwrap();
    units.reverse();
    units.iter().map(|u| journal.blob(u, 0).unwrap()).collect()
}

#[test]
fn undo_6_twenty_units_per_file_then_the_oldest_goes() {
    let dir = tempfile::tempdir().unwrap();
    let config = UndoConfig::new(dir.path().join("journal"));
    let journal = Journal::new(&RealFs, &config);
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    journal.record("Edit", &[kept(&b, b"b")]).unwrap();
    let versions: Vec<Vec<u8>> = (0..21).map(|i| format!("v{i}").into_bytes()).collect();
    for v in &versions[..20] {
        journal.record("Edit", &[kept(&a, v)]).unwrap();
    }
    assert_eq!(
        old_bytes(&journal, &a),
        &versions[..20],
        "20 units of a file are kept"
    );
    journal.record("Edit", &[kept(&a, &versions[20])]).unwrap();
    assert_eq!(
        old_bytes(&journal, &a),
        &versions[1..],
        "the 21st drops the oldest"
    );
    assert_eq!(old_bytes(&journal, &b), [b"b"], "another file's unit stays");
}

#[test]
fn undo_6_two_thousand_units_then_the_oldest_goes() {
    let dir = tempfile::tempdir().unwrap();
    let config = UndoConfig::new(dir.path().join("journal"));
    std::fs::create_dir(&config.dir).unwrap();
    // 1999 units of a journal written before the index existed, each creating a file.
    let created = |i: usize| UnitRecord {
        version: 1,
        tool: "Write".into(),
        files: vec![FileRecord {
            path: dir.path().join(format!("f{i}")),
            before: BeforeRecord::Absent,
            after: None,
        }],
    };
    let id = |i: usize| format!("u{:020}-0000000001-000000", 1_000 + i);
    for i in 0..1999 {
        let json = serde_json::to_vec(&created(i)).unwrap();
        std::fs::write(config.dir.join(format!("{}.json", id(i))), json).unwrap();
    }
    let journal = Journal::new(&RealFs, &config);
    let target = dir.path().join("a.txt");
    journal.record("Edit", &[kept(&target, b"2000th")]).unwrap();
    let units = journal.units().unwrap();
    assert_eq!(units.len(), 2000, "2000 units are kept");
    assert_eq!(units[0].id, id(0));
    journal.record("Edit", &[kept(&target, b"2001st")]).unwrap();
    let units = journal.units().unwrap();
    assert_eq!(units.len(), 2000);
    assert_eq!(units[0].id, id(1), "the 2001st drops the oldest");
    assert!(!config.dir.join(format!("{}.json", id(0))).exists());
    assert_eq!(old_bytes(&journal, &target), [&b"2000th"[..], b"2001st"]);
}

#[test]
fn undo_6_sixty_four_mib_of_old_bytes_then_the_oldest_goes() {
    const MIB64: usize = 64 << 20;
    let dir = tempfile::tempdir().unwrap();
    let config = UndoConfig::new(dir.path().join("journal"));
    let journal = Journal::new(&RealFs, &config);
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    let big = vec![b'x'; MIB64 - 1];
    journal.record("Edit", &[kept(&a, b"1")]).unwrap();
    journal.record("Edit", &[kept(&b, &big)]).unwrap();
    assert_eq!(journal.units().unwrap().len(), 2, "exactly 64 MiB is kept");
    journal.record("Edit", &[kept(&c, b"2")]).unwrap();
    let units = journal.units().unwrap();
    assert_eq!(units.len(), 2, "one byte more drops the oldest");
    assert!(journal.for_file(&a).unwrap().is_empty());
    assert_eq!(
        journal.blob(&journal.for_file(&b).unwrap()[0], 0).unwrap(),
        big
    );
    drop(big);
    // A unit's own old bytes: 64 MiB are kept (and leave room for nothing older), one byte
    // more is recorded without them.
    let exactly = vec![b'y'; MIB64];
    journal.record("Edit", &[kept(&a, &exactly)]).unwrap();
    let units = journal.units().unwrap();
    assert_eq!(units.len(), 1);
    assert!(matches!(
        units[0].record.files[0].before,
        BeforeRecord::Kept { len, .. } if len == MIB64 as u64
    ));
    // UNDO-1: a kept unit has the hash of what it left, for undo to check.
    let after = units[0].record.files[0].after.as_ref().unwrap();
    assert_eq!((after.xxh3.as_str(), after.len), (NEW_XXH3, 3));
    drop(exactly);
    let over = vec![b'z'; MIB64 + 1];
    journal.record("Edit", &[kept(&b, &over)]).unwrap();
    let newest = journal.for_file(&b).unwrap();
    assert_eq!(
        newest[0].record.files[0].before,
        BeforeRecord::Omitted {
            len: MIB64 as u64 + 1
        }
    );
    // UNDO-2: a unit that cannot be undone needs no hash of what it left; none is taken.
    assert_eq!(newest[0].record.files[0].after, None);
}

#[test]
fn undo_7_the_default_base_is_the_users_state_directory() {
    let tmp = Path::new("/scratch");
    let at = |xdg: Option<&str>, home: Option<&str>| {
        state_base_from(
            xdg.map(std::ffi::OsStr::new),
            home.map(std::ffi::OsStr::new),
            tmp,
            1000,
        )
    };
    assert_eq!(
        at(Some("/x/state"), Some("/home/u")),
        Path::new("/x/state/editref/undo")
    );
    assert_eq!(
        at(None, Some("/home/u")),
        Path::new("/home/u/.local/state/editref/undo")
    );
    // Relative values are ignored, as the XDG base directory specification asks.
    assert_eq!(
        at(Some("state"), Some("/home/u")),
        Path::new("/home/u/.local/state/editref/undo")
    );
    assert_eq!(at(Some(""), None), Path::new("/scratch/editref-undo-1000"));
    assert_eq!(
        at(None, Some("home")),
        Path::new("/scratch/editref-undo-1000")
    );
}

#[test]
fn undo_7_one_journal_per_root_named_by_its_last_component_and_a_hash() {
    let base = Path::new("/s");
    let hash = |root: &str| format!("{:016x}", xxhash_rust::xxh3::xxh3_64(root.as_bytes()));
    for (root, name) in [
        ("/home/u/project", "project"),
        ("/home/u/My Project.d", "My_Project.d"),
        ("/srv/.hidden", "_hidden"),
        ("/srv/caf\u{e9}", "caf__"),
        (
            "/srv/a-very-long-directory-name-that-goes-on-and-on",
            "a-very-long-directory-name-that-",
        ),
        ("/", "root"),
    ] {
        assert_eq!(
            journal_dir(base, Path::new(root)),
            base.join(format!("{name}-{}", hash(root))),
            "{root}"
        );
    }
}

/// A session as the CLI and `mcp` make it: rooted at `root`, journal per root under `state`.
fn session(root: &Path, state: &Path) -> Session {
    let mut config = Config::new(root).with_root(root);
    config.fsync = false;
    config.undo = UndoPlace::PerRoot(state.to_path_buf()).config_for(root);
    Session::new(config)
}

fn edit(s: &Session, old: &str, new: &str) {
    s.call("Read", &json!({"file_path": "f.txt"})).unwrap();
    s.call(
        "Edit",
        &json!({"file_path": "f.txt", "old_string": old, "new_string": new}),
    )
    .unwrap();
}

struct Place {
    _dir: tempfile::TempDir,
    state: PathBuf,
    a: PathBuf,
    b: PathBuf,
}

fn place() -> Place {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let (a, b) = (top.join("a"), top.join("b"));
    for root in [&a, &b] {
        std::fs::create_dir(root).unwrap();
        std::fs::write(root.join("f.txt"), b"one\n").unwrap();
    }
    Place {
        state: top.join("state/editref/undo"),
        _dir: dir,
        a,
        b,
    }
}

#[test]
fn undo_7_the_journal_lives_outside_the_root_one_per_root_and_private() {
    let p = place();
    let (sa, sb) = (session(&p.a, &p.state), session(&p.b, &p.state));
    edit(&sa, "one", "two");
    edit(&sb, "one", "uno");
    assert_eq!(
        names(&p.a),
        ["f.txt"],
        "nothing but the user's file in the root"
    );
    assert_eq!(names(&p.b), ["f.txt"]);
    let (ja, jb) = (journal_dir(&p.state, &p.a), journal_dir(&p.state, &p.b));
    assert_eq!(
        names(&p.state),
        [&ja, &jb].map(|j| j.file_name().unwrap().to_string_lossy().into_owned()),
        "two roots, two journals"
    );
    let mut root_file = p.a.as_os_str().as_encoded_bytes().to_vec();
    root_file.push(b'\n');
    assert_eq!(std::fs::read(ja.join("root")).unwrap(), root_file);
    for private in [&p.state, &ja, &jb, p.state.parent().unwrap()] {
        assert_eq!(mode(private), 0o700, "{}", private.display());
    }
    sa.call("Undo", &json!({"file_path": "f.txt"})).unwrap();
    assert_eq!(std::fs::read(p.a.join("f.txt")).unwrap(), b"one\n");
    assert_eq!(std::fs::read(p.b.join("f.txt")).unwrap(), b"uno\n");
    // Another session on the same root, given another spelling of it, finds the same journal.
    let link = p.a.parent().unwrap().join("link-to-b");
    std::os::unix::fs::symlink(&p.b, &link).unwrap();
    let again = session(&link, &p.state);
    again.call("Undo", &json!({"file_path": "f.txt"})).unwrap();
    assert_eq!(std::fs::read(p.b.join("f.txt")).unwrap(), b"one\n");
    assert_eq!(names(&p.b), ["f.txt"]);
}

#[test]
fn undo_7_a_refused_write_leaves_nothing_anywhere() {
    let p = place();
    let s = session(&p.a, &p.state);
    s.call("Read", &json!({"file_path": "f.txt"})).unwrap();
    let e = s
        .call(
            "Edit",
            &json!({"file_path": "f.txt", "old_string": "absent", "new_string": "x"}),
        )
        .unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(std::fs::read(p.a.join("f.txt")).unwrap(), b"one\n");
    assert_eq!(names(&p.a), ["f.txt"]);
    assert!(
        !p.state.exists(),
        "no journal is made for a write that did not happen"
    );
}

/// Writes a journal of `root` under `state` as an earlier process left it: its `root` file and
/// one unit.
fn old_journal(state: &Path, root: &Path) -> PathBuf {
    let dir = journal_dir(state, root);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut bytes = root.as_os_str().as_encoded_bytes().to_vec();
    bytes.push(b'\n');
    std::fs::write(dir.join("root"), bytes).unwrap();
    std::fs::write(
        dir.join("u00000000000000000001-0000000001-000000.json"),
        b"{}",
    )
    .unwrap();
    dir
}

#[test]
fn undo_7_a_new_journal_sweeps_those_of_roots_that_are_gone() {
    let p = place();
    let top = p.a.parent().unwrap();
    std::fs::create_dir_all(&p.state).unwrap();
    std::fs::set_permissions(&p.state, std::fs::Permissions::from_mode(0o700)).unwrap();
    let dead = old_journal(&p.state, &top.join("deleted"));
    let live = old_journal(&p.state, &p.b);
    let held = old_journal(&p.state, &top.join("deleted-too"));
    let nameless = p.state.join("not-a-journal");
    std::fs::create_dir(&nameless).unwrap();
    // A live process holds the lock of a journal whose root is gone: it is left alone.
    let lock = std::fs::File::open(&held).unwrap();
    lock.lock().unwrap();

    edit(&session(&p.a, &p.state), "one", "two");
    let ja = journal_dir(&p.state, &p.a);
    assert!(!dead.exists(), "the journal of a deleted root is removed");
    for kept in [&live, &held, &nameless, &ja] {
        assert!(kept.is_dir(), "{} stays", kept.display());
    }
    assert!(live.join("root").is_file() && held.join("root").is_file());

    // The sweep runs when a journal is made, not on every write.
    drop(lock);
    let dead_again = old_journal(&p.state, &top.join("deleted-later"));
    edit(&session(&p.a, &p.state), "two", "three");
    assert!(dead_again.is_dir() && held.is_dir());
    let c = top.join("c");
    std::fs::create_dir(&c).unwrap();
    std::fs::write(c.join("f.txt"), b"one\n").unwrap();
    edit(&session(&c, &p.state), "one", "uno");
    assert!(!dead_again.exists() && !held.exists());
    assert!(ja.is_dir() && live.is_dir());
    assert_eq!(names(&p.a), ["f.txt"]);
    assert_eq!(names(&c), ["f.txt"]);
}

/// UNDO-7: a per-root journal outside the user's home may sit where others can reach; one whose
/// directory others may write to is not used: the write stands, undo is refused.
#[test]
fn undo_7_a_journal_others_may_write_to_is_not_used() {
    let p = place();
    std::fs::create_dir_all(&p.state).unwrap();
    std::fs::set_permissions(&p.state, std::fs::Permissions::from_mode(0o777)).unwrap();
    let s = session(&p.a, &p.state);
    edit(&s, "one", "two");
    assert_eq!(std::fs::read(p.a.join("f.txt")).unwrap(), b"two\n");
    let e = s.call("Undo", &json!({"file_path": "f.txt"})).unwrap_err();
    assert_eq!(e.code, Code::Io, "{}", e.message);
    assert!(e.message.contains("not private"), "{}", e.message);
    assert_eq!(std::fs::read(p.a.join("f.txt")).unwrap(), b"two\n");
    let journal = journal_dir(&p.state, &p.a);
    assert!(
        !journal.exists() || names(&journal).is_empty(),
        "nothing recorded"
    );
}
