//! A sandbox tree read from disk into the model's [`Tree`], and a crash state written back to
//! disk at the same place (so that the absolute paths the undo journal recorded still name it).

use crate::model::{Node, Tree};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// Every directory and regular file under `top`, by relative path.
pub fn read(top: &Path) -> Tree {
    let mut out = Tree::new();
    let mut stack = vec![top.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).expect("list a sandbox directory");
        for e in entries {
            let p = e.expect("a directory entry").path();
            let rel = p
                .strip_prefix(top)
                .expect("under the sandbox")
                .to_path_buf();
            let m = std::fs::symlink_metadata(&p).expect("lstat");
            if m.is_dir() {
                out.insert(rel, Node::Dir);
                stack.push(p);
            } else if m.is_file() {
                let bytes = std::fs::read(&p).expect("read a sandbox file");
                out.insert(
                    rel,
                    Node::File {
                        bytes,
                        mode: m.mode() & 0o7777,
                    },
                );
            } else {
                panic!("unexpected entry {}", p.display());
            }
        }
    }
    out
}

/// Makes `top` hold exactly `tree`.
pub fn write(top: &Path, tree: &Tree) {
    if top.exists() {
        std::fs::remove_dir_all(top).expect("clear the sandbox");
    }
    std::fs::create_dir(top).expect("make the sandbox");
    // A BTreeMap of paths sorts every directory before what it holds.
    for (rel, node) in tree {
        let p = top.join(rel);
        match node {
            Node::Dir => std::fs::create_dir(&p).expect("make a directory"),
            Node::File { bytes, mode } => {
                std::fs::write(&p, bytes).expect("write a file");
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(*mode))
                    .expect("chmod");
            }
        }
    }
}
