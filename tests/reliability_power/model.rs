//! The persistence model: from the calls a tool made through the `Fs` seam (a
//! `editref::disk::RecordFs` trace) and the tree before them, every state a power cut may
//! leave.
//!
//! The model, as RELIABILITY.md states it:
//!
//! - **Data.** Bytes written to a file and not yet fsynced may be lost, in whole or in part: at
//!   a cut, such a file holds its durable content followed by the first k of its pending writes
//!   (k = 0 … all), or the (k + 1)-th only up to a block boundary ([`BLOCK`]), or its full new
//!   length with the pending bytes read back as zeros (size persisted, data not). A mode set
//!   and not fsynced may be lost. `fsync` of a file makes its data and mode durable.
//! - **Directory entries.** A create, link, rename, unlink, mkdir or rmdir persists only once
//!   its parent directory is fsynced. Before that, the operations of one directory persist in
//!   the order they were made (some prefix of them), and the directories are independent of
//!   each other (*per-directory* model). The stricter *ordered* variant (ext4's journal) keeps
//!   every directory operation in one order and makes every one before any fsync durable.
//!   An entry made in a directory whose own entry did not persist is lost with it.
//!
//! The states of the ordered variant are a subset of the per-directory ones; both are counted.

use editref::disk::Call;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Block size of the model: a write not yet fsynced may persist up to any multiple of it.
pub const BLOCK: usize = 4096;

/// At most this many partial lengths per write (the first blocks), to stay bounded for large
/// writes; the small files of the scenarios have none.
const MAX_PARTIALS: usize = 4;

/// An entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    /// A directory.
    Dir,
    /// A regular file: its bytes and permission bits.
    File {
        /// Content.
        bytes: Vec<u8>,
        /// `st_mode & 0o7777`.
        mode: u32,
    },
}

/// A tree by path relative to the sandbox.
pub type Tree = BTreeMap<PathBuf, Node>;

/// One crash state: the tree, and whether the cut came after the tool's last call (then the
/// call had returned, and with fsync on its change must be there).
#[derive(Debug, Clone)]
pub struct State {
    /// What the disk holds after the cut.
    pub tree: Tree,
    /// The cut came after every call of the trace.
    pub after_return: bool,
    /// The ordered variant permits it too.
    pub ordered: bool,
}

/// A file entry in a tree being replayed: one of the tree's own files, or one made by the
/// trace.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir,
    Initial(Node),
    Made(u64),
}

/// A directory operation, with the directory whose fsync makes it durable.
#[derive(Debug, Clone)]
struct DirOp {
    at: usize,
    dir: PathBuf,
    op: Op,
}

#[derive(Debug, Clone)]
enum Op {
    Mkdir(PathBuf),
    Enter(PathBuf, u64),
    Rename(PathBuf, PathBuf, bool),
    Unlink(PathBuf),
    Rmdir(PathBuf),
}

/// Every distinct state a power cut at any point of `calls` may leave, starting from
/// `initial` (all of it durable). Paths in `calls` are absolute and lie under `top`; the tree
/// is relative to it.
pub fn crash_states(top: &Path, initial: &Tree, calls: &[Call]) -> Vec<State> {
    let rel = |p: &Path| p.strip_prefix(top).unwrap_or(p).to_path_buf();
    let parent = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut ops = Vec::new();
    for (at, call) in calls.iter().enumerate() {
        let op = match call {
            Call::Mkdir(p) => Op::Mkdir(rel(p)),
            Call::Create { file, path } | Call::Link { file, path } => Op::Enter(rel(path), *file),
            Call::Rename { from, to, replace } => Op::Rename(rel(from), rel(to), *replace),
            Call::Unlink(p) => Op::Unlink(rel(p)),
            Call::Rmdir(p) => Op::Rmdir(rel(p)),
            _ => continue,
        };
        // A rename belongs to the directory of its new name: editref renames only within one
        // directory (temp name to target, target to parked name, journal files).
        let dir = match &op {
            Op::Mkdir(p) | Op::Enter(p, _) | Op::Unlink(p) | Op::Rmdir(p) => parent(p),
            Op::Rename(from, to, _) => {
                assert_eq!(parent(from), parent(to), "a rename across directories");
                parent(to)
            }
        };
        ops.push(DirOp { at, dir, op });
    }
    let mut seen: HashMap<(Tree, bool), bool> = HashMap::new();
    for cut in 0..=calls.len() {
        let before: Vec<&DirOp> = ops.iter().filter(|o| o.at < cut).collect();
        let after_return = cut == calls.len();
        for (persisted, ordered) in dir_choices(&before, &calls[..cut], top) {
            let entries = replay(initial, &persisted);
            for tree in data_choices(&entries, &calls[..cut]) {
                let flag = seen.entry((tree, after_return)).or_insert(false);
                *flag |= ordered;
            }
        }
    }
    let mut states: Vec<State> = seen
        .into_iter()
        .map(|((tree, after_return), ordered)| State {
            tree,
            after_return,
            ordered,
        })
        .collect();
    states.sort_by(|a, b| (&a.tree, a.after_return).cmp(&(&b.tree, b.after_return)));
    states
}

/// The sets of directory operations that may have persisted (each in call order), and whether
/// the ordered variant permits that set.
fn dir_choices<'o>(ops: &[&'o DirOp], calls: &[Call], top: &Path) -> Vec<(Vec<&'o DirOp>, bool)> {
    let rel = |p: &Path| p.strip_prefix(top).unwrap_or(p).to_path_buf();
    // Per directory: its operations in order, and how many of them an fsync forced.
    let mut dirs: BTreeMap<PathBuf, (Vec<&DirOp>, usize)> = BTreeMap::new();
    for o in ops {
        dirs.entry(o.dir.clone()).or_default().0.push(o);
    }
    for (at, call) in calls.iter().enumerate() {
        if let Call::SyncDir(d) = call {
            if let Some((list, forced)) = dirs.get_mut(&rel(d)) {
                *forced = list.iter().filter(|o| o.at < at).count();
            }
        }
    }
    // Ordered: the last fsync of anything forces every operation before it.
    let last_sync = calls
        .iter()
        .rposition(|c| matches!(c, Call::Sync { .. } | Call::SyncDir(_)));
    let ordered_forced = last_sync.map_or(0, |s| ops.iter().filter(|o| o.at < s).count());
    let lists: Vec<&(Vec<&DirOp>, usize)> = dirs.values().collect();
    let mut out = Vec::new();
    let mut counts: Vec<usize> = lists.iter().map(|(_, f)| *f).collect();
    loop {
        let mut persisted: Vec<&DirOp> = lists
            .iter()
            .zip(&counts)
            .flat_map(|((list, _), n)| list.iter().take(*n).copied())
            .collect();
        persisted.sort_by_key(|o| o.at);
        // The ordered variant: a prefix of all operations, at least the forced ones.
        let is_prefix = persisted.iter().zip(ops.iter()).all(|(a, b)| a.at == b.at);
        let ordered = is_prefix && persisted.len() >= ordered_forced;
        out.push((persisted, ordered));
        // Next combination of per-directory prefix lengths.
        let mut i = 0;
        loop {
            if i == lists.len() {
                return out;
            }
            if counts[i] < lists[i].0.len() {
                counts[i] += 1;
                break;
            }
            counts[i] = lists[i].1;
            i += 1;
        }
    }
}

/// The tree after the persisted directory operations, applied in call order; an operation
/// whose directory is not there (its own entry did not persist) is lost.
fn replay(initial: &Tree, persisted: &[&DirOp]) -> BTreeMap<PathBuf, Entry> {
    let mut t: BTreeMap<PathBuf, Entry> = initial
        .iter()
        .map(|(p, n)| {
            let e = match n {
                Node::Dir => Entry::Dir,
                file => Entry::Initial(file.clone()),
            };
            (p.clone(), e)
        })
        .collect();
    let dir_there = |t: &BTreeMap<PathBuf, Entry>, p: &Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => t.get(d) == Some(&Entry::Dir),
        _ => true,
    };
    for o in persisted {
        match &o.op {
            Op::Mkdir(p) => {
                if dir_there(&t, p) && !t.contains_key(p) {
                    t.insert(p.clone(), Entry::Dir);
                }
            }
            Op::Enter(p, file) => {
                if dir_there(&t, p) && !t.contains_key(p) {
                    t.insert(p.clone(), Entry::Made(*file));
                }
            }
            Op::Rename(from, to, replace) => {
                let movable = matches!(t.get(from), Some(Entry::Initial(_) | Entry::Made(_)));
                let free = *replace || !t.contains_key(to);
                if movable && free && dir_there(&t, to) {
                    if let Some(e) = t.remove(from) {
                        t.insert(to.clone(), e);
                    }
                }
            }
            Op::Unlink(p) => {
                if matches!(t.get(p), Some(Entry::Initial(_) | Entry::Made(_))) {
                    t.remove(p);
                }
            }
            Op::Rmdir(p) => {
                let empty = !t.keys().any(|k| k != p && k.starts_with(p));
                if t.get(p) == Some(&Entry::Dir) && empty {
                    t.remove(p);
                }
            }
        }
    }
    t
}

/// What a file made by the trace may hold after a cut: every (content, mode) the data model
/// permits.
fn file_variants(file: u64, calls: &[Call]) -> Vec<(Vec<u8>, u32)> {
    let last_sync = calls
        .iter()
        .rposition(|c| matches!(c, Call::Sync { file: f } if *f == file));
    let mut content = Vec::new();
    let mut mode = 0o600;
    let mut pending_writes: Vec<(u64, &[u8])> = Vec::new();
    let mut pending_mode = None;
    for (at, call) in calls.iter().enumerate() {
        let durable = last_sync.is_some_and(|s| at < s);
        match call {
            Call::Write {
                file: f,
                offset,
                bytes,
            } if *f == file => {
                if durable {
                    put(&mut content, *offset, bytes);
                } else {
                    pending_writes.push((*offset, bytes));
                }
            }
            Call::SetMode { file: f, mode: m } if *f == file => {
                if durable {
                    mode = *m;
                } else {
                    pending_mode = Some(*m);
                }
            }
            _ => {}
        }
    }
    let mut contents = Vec::new();
    let mut acc = content.clone();
    contents.push(acc.clone());
    for (offset, bytes) in &pending_writes {
        for b in (1..=MAX_PARTIALS).map(|k| k * BLOCK) {
            if b < bytes.len() {
                let mut partial = acc.clone();
                put(&mut partial, *offset, &bytes[..b]);
                contents.push(partial);
            }
        }
        put(&mut acc, *offset, bytes);
        contents.push(acc.clone());
    }
    if !pending_writes.is_empty() {
        let mut zeros = acc.clone();
        for (offset, bytes) in &pending_writes {
            put(&mut zeros, *offset, &vec![0; bytes.len()]);
        }
        contents.push(zeros);
    }
    contents.dedup();
    let mut modes = vec![mode];
    if let Some(m) = pending_mode.filter(|m| *m != mode) {
        modes.push(m);
    }
    contents
        .into_iter()
        .flat_map(|c| modes.iter().map(move |m| (c.clone(), *m)))
        .collect()
}

fn put(content: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let start = offset as usize;
    if content.len() < start + bytes.len() {
        content.resize(start + bytes.len(), 0);
    }
    content[start..start + bytes.len()].copy_from_slice(bytes);
}

/// Every tree the data model permits for the entries of one directory outcome.
fn data_choices(entries: &BTreeMap<PathBuf, Entry>, calls: &[Call]) -> Vec<Tree> {
    let mut trees = vec![Tree::new()];
    let mut variants: HashMap<u64, Vec<(Vec<u8>, u32)>> = HashMap::new();
    for (path, entry) in entries {
        let options: Vec<Node> = match entry {
            Entry::Dir => vec![Node::Dir],
            Entry::Initial(n) => vec![n.clone()],
            Entry::Made(file) => variants
                .entry(*file)
                .or_insert_with(|| file_variants(*file, calls))
                .iter()
                .map(|(bytes, mode)| Node::File {
                    bytes: bytes.clone(),
                    mode: *mode,
                })
                .collect(),
        };
        let mut next = Vec::with_capacity(trees.len() * options.len());
        for t in &trees {
            for o in &options {
                let mut t = t.clone();
                t.insert(path.clone(), o.clone());
                next.push(t);
            }
        }
        trees = next;
    }
    trees
}
