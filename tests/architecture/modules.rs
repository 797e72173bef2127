//! A crate's module tree and its file-to-file imports, read from the source the way rustc
//! finds modules: from the crate root through `mod x;` (and `#[path]`), with inline `mod x { }`
//! blocks as modules of the file that holds them.
//!
//! Every use of a path counts: `use` declarations (grouped, nested and multi-line included) and
//! paths in code that start with `crate::`, `super::` (any number of them) or `self::`. A path
//! is followed through re-exports (`pub use`) and imports to the file that defines what it
//! names, so `crate::Session` counts as a use of the file that defines `Session`, not of the
//! crate root that re-exports it. A `pub use` of a module's own children is its facade, not a
//! dependency, and makes no edge.

use super::lex::{tokens, Tok};
use std::collections::{BTreeMap, BTreeSet};

/// One file of the crate.
#[derive(Debug)]
pub struct File {
    /// Path relative to the directory of the crate root (`disk/atomic.rs`).
    pub rel: String,
    /// Its module path (`["disk", "atomic"]`; empty for the crate root).
    pub module: Vec<String>,
    uses: Vec<UseDecl>,
    refs: Vec<(Vec<String>, Vec<String>)>,
}

/// One path bound by a `use` declaration, in the module (inline ones included) that holds it.
#[derive(Debug)]
struct UseDecl {
    scope: Vec<String>,
    path: Vec<String>,
    /// The name it binds (`None` for a glob).
    name: Option<String>,
    public: bool,
}

/// A crate: its files and which file holds each module.
#[derive(Debug)]
pub struct Crate {
    pub files: Vec<File>,
    modules: BTreeMap<Vec<String>, usize>,
}

impl Crate {
    /// Reads the crate whose root is `root` (`lib.rs`), with `read` giving a file's text by its
    /// path relative to the root's directory (`None` when it does not exist).
    pub fn load(root: &str, read: &dyn Fn(&str) -> Option<String>) -> Result<Crate, String> {
        let mut krate = Crate {
            files: Vec::new(),
            modules: BTreeMap::new(),
        };
        // (file, its module path, the directory its `mod x;` children are in)
        let mut queue = vec![(root.to_string(), Vec::new(), String::new())];
        while let Some((rel, module, dir)) = queue.pop() {
            let text = read(&rel).ok_or_else(|| format!("{rel}: not found"))?;
            let id = krate.files.len();
            krate.modules.insert(module.clone(), id);
            let scan = scan(&tokens(&text), &module);
            for (inline, _) in &scan.inline {
                krate.modules.insert(inline.clone(), id);
            }
            for child in scan.children {
                let file = match &child.path_attr {
                    Some(p) => Some(format!("{}{p}", parent_dir(&rel))),
                    None => {
                        let sub = child.inline.join("/");
                        let base = if sub.is_empty() {
                            dir.clone()
                        } else {
                            format!("{dir}{sub}/")
                        };
                        [
                            format!("{base}{}.rs", child.name),
                            format!("{base}{}/mod.rs", child.name),
                        ]
                        .into_iter()
                        .find(|f| read(f).is_some())
                    }
                };
                let file =
                    file.ok_or_else(|| format!("{rel}: no file for `mod {}`", child.name))?;
                let child_dir = if file.ends_with("/mod.rs") || child.path_attr.is_some() {
                    parent_dir(&file)
                } else {
                    format!("{}/", file.trim_end_matches(".rs"))
                };
                let mut path = module.clone();
                path.extend(child.inline.iter().cloned());
                path.push(child.name.clone());
                queue.push((file, path, child_dir));
            }
            krate.files.push(File {
                rel,
                module,
                uses: scan.uses,
                refs: scan.refs,
            });
        }
        Ok(krate)
    }

    /// The file of the module at `path`, if it is one.
    fn module_file(&self, path: &[String]) -> Option<usize> {
        self.modules.get(path).copied()
    }

    /// The binding of `name` by a `use` in module `scope`, from the crate root.
    fn binding(&self, scope: &[String], name: &str, depth: usize) -> Option<Vec<String>> {
        let file = &self.files[self.module_file(scope)?];
        file.uses
            .iter()
            .find(|u| u.scope == scope && u.name.as_deref() == Some(name))
            .and_then(|u| self.absolute_at(&u.scope, &u.path, depth + 1))
    }

    /// `path` as written in module `scope`, from the crate root; `None` for an outside crate.
    fn absolute(&self, scope: &[String], path: &[String]) -> Option<Vec<String>> {
        self.absolute_at(scope, path, 0)
    }

    fn absolute_at(&self, scope: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        if depth > 16 {
            return None; // `use serde_json::{self}` binds the name it starts with
        }
        let first = path.first()?;
        let mut out: Vec<String> = scope.to_vec();
        let rest = match first.as_str() {
            "crate" => {
                out.clear();
                &path[1..]
            }
            "self" => &path[1..],
            "super" => {
                let supers = path.iter().take_while(|s| *s == "super").count();
                for _ in 0..supers {
                    out.pop()?;
                }
                &path[supers..]
            }
            _ => {
                let mut child = scope.to_vec();
                child.push(first.clone());
                if self.modules.contains_key(&child) {
                    path
                } else {
                    let bound = self.binding(scope, first, depth)?;
                    let mut abs = bound;
                    abs.extend(path[1..].iter().cloned());
                    return Some(abs);
                }
            }
        };
        out.extend(rest.iter().filter(|s| *s != "self").cloned());
        Some(out)
    }

    /// The file that defines what the absolute `path` names, following imports and
    /// re-exports.
    fn defining_file(&self, path: &[String], depth: usize) -> Option<usize> {
        let mut module = Vec::new();
        let mut i = 0;
        while i < path.len() {
            let mut next = module.clone();
            next.push(path[i].clone());
            if !self.modules.contains_key(&next) {
                break;
            }
            module = next;
            i += 1;
        }
        if i < path.len() && depth < 16 {
            if let Some(mut target) = self.binding(&module, &path[i], 0) {
                target.extend(path[i + 1..].iter().cloned());
                if target != path {
                    return self.defining_file(&target, depth + 1);
                }
            }
        }
        self.module_file(&module)
    }

    /// The files each file uses (itself excluded), by index.
    pub fn edges(&self) -> Vec<BTreeSet<usize>> {
        self.files
            .iter()
            .enumerate()
            .map(|(id, f)| {
                let mut to = BTreeSet::new();
                let used = f
                    .uses
                    .iter()
                    .filter(|u| !(u.public && self.is_own_child(&u.scope, &u.path)))
                    .map(|u| (&u.scope, &u.path))
                    .chain(f.refs.iter().map(|(s, p)| (s, p)));
                for (scope, path) in used {
                    if let Some(abs) = self.absolute(scope, path) {
                        if let Some(target) = self.defining_file(&abs, 0) {
                            if target != id {
                                to.insert(target);
                            }
                        }
                    }
                }
                to
            })
            .collect()
    }

    /// Whether `path`, written in `scope`, names something inside a child module of `scope`.
    fn is_own_child(&self, scope: &[String], path: &[String]) -> bool {
        match self.absolute(scope, path) {
            Some(abs) => {
                abs.len() > scope.len() + 1
                    && abs.starts_with(scope)
                    && self.modules.contains_key(&abs[..scope.len() + 1])
            }
            None => false,
        }
    }
}

fn parent_dir(rel: &str) -> String {
    match rel.rfind('/') {
        Some(at) => rel[..=at].to_string(),
        None => String::new(),
    }
}

/// A `mod x;` declaration.
struct Child {
    name: String,
    /// The inline modules it is declared in.
    inline: Vec<String>,
    path_attr: Option<String>,
}

#[derive(Default)]
struct Scan {
    children: Vec<Child>,
    /// Inline modules: full module path and brace depth.
    inline: Vec<(Vec<String>, usize)>,
    uses: Vec<UseDecl>,
    refs: Vec<(Vec<String>, Vec<String>)>,
}

/// Module declarations, `use` declarations and `crate::`/`super::`/`self::` paths of one file.
fn scan(t: &[Tok], module: &[String]) -> Scan {
    let mut out = Scan::default();
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    let scope_of = |stack: &[(String, usize)]| {
        let mut s = module.to_vec();
        s.extend(stack.iter().map(|(n, _)| n.clone()));
        s
    };
    while i < t.len() {
        match &t[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                while stack.last().is_some_and(|(_, d)| *d > depth) {
                    stack.pop();
                }
            }
            Tok::Ident(k) if k == "mod" => {
                if let Some(Tok::Ident(name)) = t.get(i + 1) {
                    match t.get(i + 2) {
                        Some(Tok::Punct('{')) => {
                            depth += 1;
                            stack.push((name.clone(), depth));
                            out.inline.push((scope_of(&stack), depth));
                            i += 3;
                            continue;
                        }
                        Some(Tok::Punct(';')) => out.children.push(Child {
                            name: name.clone(),
                            inline: stack.iter().map(|(n, _)| n.clone()).collect(),
                            path_attr: path_attr(&t[..i]),
                        }),
                        _ => {}
                    }
                }
            }
            Tok::Ident(k) if k == "use" => {
                let public = is_public(&t[..i]);
                let mut paths = Vec::new();
                let mut j = i + 1;
                if t.get(j) == Some(&Tok::Sep) {
                    j += 1; // `use ::name` is an outside crate
                    while j < t.len() && t[j] != Tok::Punct(';') {
                        j += 1;
                    }
                } else {
                    j = use_tree(t, j, &[], &mut paths);
                }
                let scope = scope_of(&stack);
                for (path, name) in paths {
                    out.uses.push(UseDecl {
                        scope: scope.clone(),
                        path,
                        name,
                        public,
                    });
                }
                i = j;
                continue;
            }
            Tok::Ident(k)
                if matches!(k.as_str(), "crate" | "super" | "self")
                    && t.get(i + 1) == Some(&Tok::Sep)
                    && !(i > 0 && t[i - 1] == Tok::Sep) =>
            {
                let mut path = vec![k.clone()];
                let mut j = i + 1;
                while t.get(j) == Some(&Tok::Sep) {
                    match t.get(j + 1) {
                        Some(Tok::Ident(seg)) => path.push(seg.clone()),
                        _ => break,
                    }
                    j += 2;
                }
                out.refs.push((scope_of(&stack), path));
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Parses a use tree at `i` with `prefix` already read; pushes (path, bound name) for every
/// leaf; returns the index after the tree (after the `;` at the top level).
fn use_tree(
    t: &[Tok],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match t.get(i) {
            Some(Tok::Ident(seg)) => {
                path.push(seg.clone());
                i += 1;
                if t.get(i) == Some(&Tok::Sep) {
                    i += 1;
                    continue;
                }
                let mut name = path.last().cloned();
                if name.as_deref() == Some("self") {
                    path.pop();
                    name = path.last().cloned();
                }
                if t.get(i).is_some_and(|x| x.is("as")) {
                    name = match t.get(i + 1) {
                        Some(Tok::Ident(alias)) if alias != "_" => Some(alias.clone()),
                        _ => None,
                    };
                    i += 2;
                }
                out.push((path, name));
                break;
            }
            Some(Tok::Punct('*')) => {
                out.push((path, None));
                i += 1;
                break;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                while i < t.len() && t[i] != Tok::Punct('}') {
                    i = use_tree(t, i, &path, out);
                    if t.get(i) == Some(&Tok::Punct(',')) {
                        i += 1;
                    }
                }
                i += 1;
                break;
            }
            _ => break,
        }
    }
    if prefix.is_empty() && t.get(i) == Some(&Tok::Punct(';')) {
        i += 1;
    }
    i
}

/// Whether the item whose tokens end at `before` is `pub` or `pub(…)`.
fn is_public(before: &[Tok]) -> bool {
    match before.last() {
        Some(t) if t.is("pub") => true,
        Some(Tok::Punct(')')) => {
            let open = before.iter().rposition(|t| *t == Tok::Punct('('));
            open.is_some_and(|o| o > 0 && before[o - 1].is("pub"))
        }
        _ => false,
    }
}

/// The `#[path = "…"]` among the attributes right before a `mod` (visibility skipped).
fn path_attr(before: &[Tok]) -> Option<String> {
    let mut end = before.len();
    while end > 0 && (before[end - 1].is("pub") || before[end - 1] == Tok::Punct(')')) {
        if before[end - 1] == Tok::Punct(')') {
            end = before[..end].iter().rposition(|t| *t == Tok::Punct('('))?;
        } else {
            end -= 1;
        }
    }
    // Attributes: `# [ … ]`, read backwards.
    while end > 0 && before[end - 1] == Tok::Punct(']') {
        let open = before[..end].iter().rposition(|t| *t == Tok::Punct('#'))?;
        let attr = &before[open..end];
        if let [Tok::Punct('#'), Tok::Punct('['), name, Tok::Punct('='), Tok::Str(p), Tok::Punct(']')] =
            attr
        {
            if name.is("path") {
                return Some(p.clone());
            }
        }
        end = open;
    }
    None
}

/// Every circle in `edges`, each as the files along it (a file's index to its name by `name`).
pub fn circles(edges: &[BTreeSet<usize>], name: &dyn Fn(usize) -> String) -> Vec<String> {
    // 0 unvisited, 1 on the stack, 2 done.
    fn visit(
        n: usize,
        edges: &[BTreeSet<usize>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
        found: &mut Vec<Vec<usize>>,
    ) {
        state[n] = 1;
        stack.push(n);
        for &m in &edges[n] {
            if state[m] == 1 {
                let from = stack.iter().position(|&s| s == m).unwrap_or(0);
                found.push(stack[from..].to_vec());
            } else if state[m] == 0 {
                visit(m, edges, state, stack, found);
            }
        }
        stack.pop();
        state[n] = 2;
    }
    let mut state = vec![0u8; edges.len()];
    let mut found = Vec::new();
    for n in 0..edges.len() {
        if state[n] == 0 {
            visit(n, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
        .into_iter()
        .map(|c| {
            // Told from its smallest name, so that the same circle always reads the same.
            let mut names: Vec<String> = c.iter().map(|&f| name(f)).collect();
            let first = (0..names.len()).min_by_key(|&i| &names[i]).unwrap_or(0);
            names.rotate_left(first);
            names.push(names[0].clone());
            names.join(" → ")
        })
        .collect()
}
