//! DISK-1, DISK-5, DISK-6, BATCH-2 and UNDO-1/2/4 across a power cut, explored state by state.
//!
//! A kill keeps the page cache; a power cut does not. Each tool call runs once on a small tree
//! through `editref::disk::RecordFs`, which records every call that changes the disk; the
//! persistence model (`model.rs`) turns that trace into every state a power cut at any point
//! may leave; each state is written back to the sandbox (`tree.rs`) and checked:
//!
//! - every path the call changes holds exactly its old or its new bytes, with the mode that
//!   goes with them (a new file: absent or new; a new directory: absent or there); after the
//!   call has returned (fsync on, DISK-6) exactly the new ones;
//! - nothing else changed — temp files of the documented shape aside, which are counted
//!   (D10, D24);
//! - the undo journal claims no change that did not persist (UNDO-1), and an Undo run on the
//!   state either restores every file of the call to its old bytes and mode or is refused with
//!   everything left as it was (UNDO-2, UNDO-4: undo never restores wrongly).
//!
//! A multi-file `apply_patch` is allowed to leave some of its files old and some new after a
//! cut, each whole (BATCH-2); such states are counted.

#[path = "../reliability_support/mod.rs"]
mod reliability_support;

mod model;
mod tree;

use editref::disk::{Call, Fault, FaultFs, Fs, Op, RealFs, RecordFs};
use editref::undo::{ContentHash, Journal, UndoConfig};
use editref::{Config, Session};
use model::{crash_states, Node, State, Tree};
use reliability_support as rs;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const TEXT: &str = "alpha\nbeta\ngamma\n";

const NOTEBOOK: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \
    \"execution_count\": null,\n   \"id\": \"c1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \
    \"source\": [\n    \"print(1)\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \
    \"nbformat_minor\": 5\n}\n";

const PATCH: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n\
    *** Add File: sub/b.txt\n+bee\n*** Delete File: c.txt\n*** End Patch\n";

/// A tool call: its name and its input.
type ToolCall = (&'static str, fn() -> Value);

/// One tool call on a small tree.
struct Scenario {
    name: &'static str,
    /// Files present before the call (mode 0644).
    files: fn() -> Vec<(&'static str, String)>,
    /// A call made first, untraced (the write an Undo scenario takes back).
    first: Option<ToolCall>,
    /// Files read (in full) before the call.
    reads: &'static [&'static str],
    tool: &'static str,
    input: fn() -> Value,
    /// The file an Undo is asked for afterwards.
    undo: &'static str,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "Edit",
            files: || vec![("f.txt", TEXT.into())],
            first: None,
            reads: &["f.txt"],
            tool: "Edit",
            input: || json!({"file_path": "f.txt", "old_string": "beta", "new_string": "BETA"}),
            undo: "f.txt",
        },
        Scenario {
            name: "MultiEdit",
            files: || vec![("f.txt", TEXT.into())],
            first: None,
            reads: &["f.txt"],
            tool: "MultiEdit",
            input: || {
                json!({"file_path": "f.txt", "edits": [
                    {"old_string": "alpha", "new_string": "ALPHA"},
                    {"old_string": "gamma\n", "new_string": "gamma\ndelta\n"}]})
            },
            undo: "f.txt",
        },
        Scenario {
            name: "Write (existing file)",
            files: || vec![("f.txt", TEXT.into())],
            first: None,
            reads: &["f.txt"],
            tool: "Write",
            input: || json!({"file_path": "f.txt", "content": "replaced\n"}),
            undo: "f.txt",
        },
        Scenario {
            name: "Write (new file)",
            files: || vec![("f.txt", TEXT.into())],
            first: None,
            reads: &[],
            tool: "Write",
            input: || json!({"file_path": "new.txt", "content": "created\n"}),
            undo: "new.txt",
        },
        Scenario {
            name: "Write (new file in new directories)",
            files: || vec![("f.txt", TEXT.into())],
            first: None,
            reads: &[],
            tool: "Write",
            input: || json!({"file_path": "sub/dir/new.txt", "content": "created\n"}),
            undo: "sub/dir/new.txt",
        },
        Scenario {
            name: "Edit (a 10 KiB file)",
            files: || vec![("big.txt", big_text())],
            first: None,
            reads: &["big.txt"],
            tool: "Edit",
            input: || json!({"file_path": "big.txt", "old_string": "line 0099\n", "new_string": "LINE 99\n"}),
            undo: "big.txt",
        },
        Scenario {
            name: "NotebookEdit",
            files: || vec![("nb.ipynb", NOTEBOOK.into())],
            first: None,
            reads: &["nb.ipynb"],
            tool: "NotebookEdit",
            input: || json!({"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "print(2)"}),
            undo: "nb.ipynb",
        },
        Scenario {
            name: "apply_patch (update, add in a new directory, delete)",
            files: || vec![("a.txt", TEXT.into()), ("c.txt", "sea\n".into())],
            first: None,
            reads: &[],
            tool: "apply_patch",
            input: || json!({ "input": PATCH }),
            undo: "a.txt",
        },
        Scenario {
            name: "Undo (of an Edit)",
            files: || vec![("f.txt", TEXT.into())],
            first: Some((
                "Edit",
                || json!({"file_path": "f.txt", "old_string": "beta", "new_string": "BETA"}),
            )),
            reads: &["f.txt"],
            tool: "Undo",
            input: || json!({"file_path": "f.txt"}),
            undo: "f.txt",
        },
    ]
}

/// 10 KiB of numbered lines: more than two blocks, so that writes not yet fsynced can persist
/// in part.
fn big_text() -> String {
    (0..1024).map(|i| format!("line {i:04}\n")).collect()
}

/// What one scenario's exploration found.
#[derive(Default, Debug)]
struct Tally {
    states: u64,
    ordered: u64,
    after_return: u64,
    with_temp_files: u64,
    mixed: u64,
    undo_restored: u64,
    undo_refused: u64,
    lost: u64,
    broken: Vec<String>,
}

/// The paths a user sees: everything but the journal and temp files of the documented shape.
fn user_view(tree: &Tree) -> Tree {
    tree.iter()
        .filter(|(p, _)| !p.starts_with("root/.editref"))
        .filter(|(p, _)| !is_temp(p))
        .map(|(p, n)| (p.clone(), n.clone()))
        .collect()
}

fn is_temp(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| editref::disk::is_temp_name(&n.to_string_lossy()))
}

fn config(root: &Path) -> Config {
    Config::new(root)
        .with_root(root)
        .with_undo(root.join(".editref/undo"))
}

/// Runs the scenario once through a recording seam: the tree before, the tree after, the
/// trace.
/// The seam under the recording: the real file system, or — `named` — one that cannot make
/// unnamed files (`O_TMPFILE` answers EOPNOTSUPP), so that the named temp-file fallback is
/// what gets recorded (DISK-1, D10).
fn seam(named: bool) -> Arc<dyn Fs> {
    if !named {
        return Arc::new(RealFs);
    }
    let mut fs = FaultFs::new(Arc::new(RealFs));
    for n in 1..=64 {
        fs = fs.fail(Op::CreateUnnamed, n, Fault::Errno(libc::EOPNOTSUPP));
    }
    Arc::new(fs)
}

fn record(s: &Scenario, top: &Path, named: bool) -> (Tree, Tree, Vec<Call>) {
    use std::os::unix::fs::PermissionsExt;
    let root = top.join("root");
    for (name, text) in (s.files)() {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write fixture");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    let reader = Session::new(config(&root));
    for p in s.reads {
        reader
            .call("Read", &json!({ "file_path": p }))
            .expect("the Read before the call");
    }
    let fs = RecordFs::new(seam(named));
    let session = Session::with_fs(config(&root), Arc::new(fs.clone()));
    session.set_read_state(reader.read_state());
    if let Some((tool, input)) = s.first {
        session.call(tool, &input()).expect("the first call");
    }
    let start = fs.calls().len();
    let before = tree::read(top);
    let r = session.call(s.tool, &(s.input)());
    assert!(r.is_ok(), "{}: the call failed: {r:?}", s.name);
    let calls = fs.calls().split_off(start);
    (before, tree::read(top), calls)
}

/// DISK-1, DISK-5, DISK-6, BATCH-2: the user's paths in one crash state.
fn check_paths(state: &State, before: &Tree, after: &Tree, t: &mut Tally, what: &str) {
    let (b, a, now) = (user_view(before), user_view(after), user_view(&state.tree));
    let mut paths: Vec<&PathBuf> = b.keys().chain(a.keys()).chain(now.keys()).collect();
    paths.sort();
    paths.dedup();
    let (mut old, mut new) = (0, 0);
    for p in paths {
        let (was, will, is) = (b.get(p), a.get(p), now.get(p));
        if was == will {
            if is != was {
                t.broken.push(format!(
                    "{what}: {} changed by a call that does not change it",
                    p.display()
                ));
            }
        } else if state.after_return && is != will {
            t.lost += 1;
            t.broken.push(format!(
                "{what}: {} lost its change although the call had returned (DISK-6)",
                p.display()
            ));
        } else if is == was || is == will {
            // Only files count towards a batch left part old, part new (BATCH-2).
            if matches!(was, Some(Node::File { .. })) || matches!(will, Some(Node::File { .. })) {
                if is == was {
                    old += 1;
                } else {
                    new += 1;
                }
            }
        } else {
            t.broken.push(format!(
                "{what}: {} holds neither its old nor its new content: {:?}",
                p.display(),
                is
            ));
        }
    }
    if old > 0 && new > 0 {
        t.mixed += 1;
    }
    check_parked(state, before, t, what);
}

/// BATCH-2: a file a batch moved aside to delete it is, after a cut, the only copy of its old
/// content, so the parked file must hold exactly that.
fn check_parked(state: &State, before: &Tree, t: &mut Tally, what: &str) {
    for (p, node) in &state.tree {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(name) = name.filter(|n| n.ends_with(".parked.tmp")) else {
            continue;
        };
        let original = name
            .strip_prefix('.')
            .and_then(|n| n.rfind(".editref-").map(|at| &n[..at]))
            .map(|n| p.with_file_name(n));
        if original.and_then(|o| before.get(&o)) != Some(node) {
            t.broken.push(format!(
                "{what}: {} does not hold the old content of the file it parks",
                p.display()
            ));
        }
    }
}

/// UNDO-1: every unit the call recorded that the journal holds in this state names changes
/// that are on disk. (A unit recorded before the call, which an Undo cut short may leave
/// behind, is refused by its own check once its files have moved on: UNDO-2.)
fn check_journal(state: &State, top: &Path, before: &Tree, t: &mut Tally, what: &str) {
    let undo = UndoConfig::new(top.join("root/.editref/undo"));
    let units = Journal::new(&RealFs, &undo)
        .units()
        .expect("list the journal");
    let journal = Path::new("root/.editref/undo");
    for u in units
        .iter()
        .filter(|u| !before.contains_key(&journal.join(format!("{}.json", u.id))))
    {
        for f in &u.record.files {
            let rel = f.path.strip_prefix(top).expect("under the sandbox");
            let holds = match (&f.after, state.tree.get(rel)) {
                (Some(h), Some(Node::File { bytes, .. })) => h.matches(&ContentHash::of(bytes)),
                (None, None) => true,
                _ => false,
            };
            if !holds {
                t.broken.push(format!(
                    "{what}: the journal claims a change of {} that did not persist (UNDO-1)",
                    rel.display()
                ));
            }
        }
    }
}

/// UNDO-2, UNDO-4: an Undo on the state restores `undone` — the tree before the call, or for an
/// Undo scenario the tree before the write it took back — or changes nothing.
fn check_undo(s: &Scenario, state: &State, top: &Path, undone: &Tree, t: &mut Tally, what: &str) {
    let root = top.join("root");
    let mut c = config(&root);
    c.fsync = false;
    let r = Session::new(c).call("Undo", &json!({ "file_path": s.undo }));
    let now = user_view(&tree::read(top));
    match r {
        Ok(_) => {
            t.undo_restored += 1;
            // New directories stay (UNDO-4); everything else is as before the call.
            let b = user_view(undone);
            let differs: Vec<&PathBuf> = b
                .keys()
                .chain(now.keys())
                .filter(|p| b.get(*p) != now.get(*p))
                .filter(|p| b.contains_key(*p) || now.get(*p) != Some(&Node::Dir))
                .collect();
            if !differs.is_empty() {
                t.broken.push(format!(
                    "{what}: Undo succeeded but did not restore {differs:?} (UNDO-4)"
                ));
            }
        }
        Err(e) => {
            t.undo_refused += 1;
            if now != user_view(&state.tree) {
                t.broken.push(format!(
                    "{what}: Undo was refused ({}) but changed the tree (UNDO-2)",
                    e.code.as_str()
                ));
            }
        }
    }
}

/// Every crash state of one scenario, each checked.
fn explore(s: &Scenario, named: bool) -> Tally {
    let dir = rs::sandbox();
    let top = dir.path().join("top");
    std::fs::create_dir(&top).expect("mkdir");
    let (before, after, calls) = record(s, &top, named);
    assert!(
        !named
            || !calls
                .iter()
                .any(|c| matches!(c, Call::CreateUnnamed { .. })),
        "{}: an unnamed file was made although the seam cannot",
        s.name
    );
    let states = crash_states(&top, &before, &calls);
    let mut t = Tally::default();
    for (i, state) in states.iter().enumerate() {
        let what = format!("{} state {i}", s.name);
        t.states += 1;
        t.ordered += u64::from(state.ordered);
        t.after_return += u64::from(state.after_return);
        t.with_temp_files += u64::from(state.tree.keys().any(|p| is_temp(p)));
        tree::write(&top, &state.tree);
        check_paths(state, &before, &after, &mut t, &what);
        check_journal(state, &top, &before, &mut t, &what);
        let undone = if s.first.is_some() { &after } else { &before };
        check_undo(s, state, &top, undone, &mut t, &what);
    }
    t
}

/// Every tool, every state a power cut may leave: old or new bytes with their mode, nothing
/// else changed, the change there once the call has returned, the journal truthful and undo
/// never wrong.
#[test]
fn every_power_cut_state_keeps_old_or_new() {
    let mut rec = rs::Record::new("power", "crash_states");
    let mut rows = Vec::new();
    let mut broken = Vec::new();
    let (mut lost, mut corrupted) = (0, 0);
    let unnamed = scenarios().into_iter().map(|s| (s, false));
    for (s, named) in unnamed.chain(scenarios().into_iter().map(|s| (s, true))) {
        let t = explore(&s, named);
        lost += t.lost;
        corrupted += t.broken.len() as u64 - t.lost;
        rows.push(json!({
            "tool": s.name,
            "temp_file": if named { "named" } else { "unnamed" },
            "states": t.states,
            "ordered": t.ordered,
            "after_return": t.after_return,
            "with_temp_files": t.with_temp_files,
            "mixed": t.mixed,
            "undo_restored": t.undo_restored,
            "undo_refused": t.undo_refused,
            "broken": t.broken.len(),
        }));
        broken.extend(t.broken);
    }
    let total: u64 = rows.iter().filter_map(|r| r["states"].as_u64()).sum();
    rec.set("tools", json!(rows))
        .set("states", total)
        .set("broken", broken.len() as u64)
        .set("lost", lost)
        .set("corrupted", corrupted);
    rec.write();
    assert!(
        broken.is_empty(),
        "{} broken states: {:#?}",
        broken.len(),
        &broken[..broken.len().min(200)]
    );
    for row in &rows {
        assert!(
            row["states"].as_u64() > Some(1),
            "{row}: no states explored"
        );
    }
}

/// The model permits what RELIABILITY.md says it does: a rename not followed by an fsync of its
/// directory may be lost, a write not fsynced may be lost or read back as zeros, an fsynced
/// one may not, and the ordered variant is a subset.
#[test]
fn the_model_permits_what_it_states() {
    let top = Path::new("/t");
    let p = |s: &str| top.join(s);
    let mut initial = Tree::new();
    initial.insert(
        PathBuf::from("old"),
        Node::File {
            bytes: b"old".to_vec(),
            mode: 0o644,
        },
    );
    let synced = vec![
        Call::Create {
            file: 1,
            path: p("tmp"),
        },
        Call::Write {
            file: 1,
            offset: 0,
            bytes: b"new".to_vec(),
        },
        Call::Sync { file: 1 },
        Call::Rename {
            from: p("tmp"),
            to: p("old"),
            replace: true,
        },
    ];
    let states = crash_states(top, &initial, &synced);
    let at_end: Vec<&Tree> = states
        .iter()
        .filter(|s| s.after_return)
        .map(|s| &s.tree)
        .collect();
    let holds = |t: &Tree, b: &[u8]| matches!(t.get(Path::new("old")), Some(Node::File { bytes, .. }) if bytes == b);
    assert!(
        at_end.iter().any(|t| holds(t, b"old")),
        "a rename without a directory fsync may be lost"
    );
    assert!(at_end.iter().any(|t| holds(t, b"new")));
    assert!(states
        .iter()
        .all(|s| holds(&s.tree, b"old") || holds(&s.tree, b"new")));
    let mut durable = synced.clone();
    durable.push(Call::SyncDir(top.to_path_buf()));
    let end: Vec<State> = crash_states(top, &initial, &durable)
        .into_iter()
        .filter(|s| s.after_return)
        .collect();
    assert_eq!(
        end.len(),
        1,
        "after the directory fsync only the new file remains"
    );
    assert!(holds(&end[0].tree, b"new"));
    let unsynced: Vec<Call> = synced
        .iter()
        .filter(|c| !matches!(c, Call::Sync { .. }))
        .cloned()
        .collect();
    let states = crash_states(top, &initial, &unsynced);
    assert!(
        states.iter().any(|s| holds(&s.tree, b"\0\0\0")),
        "unsynced data may read as zeros"
    );
    assert!(
        states.iter().any(|s| holds(&s.tree, b"")),
        "unsynced data may be lost"
    );
    // A file made in a new directory, only that directory fsynced: the directory's own entry
    // may be lost with the file (per directory), but not in the ordered variant.
    let nested = vec![
        Call::Mkdir(p("d")),
        Call::Create {
            file: 1,
            path: p("d/x"),
        },
        Call::Write {
            file: 1,
            offset: 0,
            bytes: b"x".to_vec(),
        },
        Call::Sync { file: 1 },
        Call::SyncDir(p("d")),
    ];
    let end: Vec<State> = crash_states(top, &initial, &nested)
        .into_iter()
        .filter(|s| s.after_return)
        .collect();
    assert!(end
        .iter()
        .any(|s| !s.tree.contains_key(Path::new("d/x")) && !s.ordered));
    assert!(end
        .iter()
        .filter(|s| s.ordered)
        .all(|s| s.tree.contains_key(Path::new("d/x"))));
}
