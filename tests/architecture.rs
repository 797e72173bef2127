//! The library's layering, as ARCHITECTURE.md draws it, checked on the source: every module of
//! `src/` may use only the modules listed for it below, so the imports go one way down and no
//! circle can come back unnoticed (the one the first version had — the session dispatching to
//! the tools, which used the session — included). Inside a module, the files import one another
//! one way too, and no source file grows past [`MAX_LINES`].
//!
//! The imports are read with a small lexer and module resolver (`architecture/lex.rs`,
//! `architecture/modules.rs`): comments and string literals never count, `use` declarations
//! count however they are grouped or wrapped, `super::super::` paths are followed, and a name
//! re-exported by the crate root or a module (`crate::Session`) counts as a use of the file that
//! defines it. A new module, or a new use across layers, must be added here on purpose.

#[path = "architecture/lex.rs"]
mod lex;
#[path = "architecture/modules.rs"]
mod modules;

use modules::{circles, Crate};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What each top-level module may use, from the entry down. The crate root itself (`lib`:
/// re-exports, resolved to the module that defines each name, and `VERSION`) may be used by
/// any module.
const ALLOWED: &[(&str, &[&str])] = &[
    // `serve` writes a tool's typed output (`call::CallOutput`) into its reply line.
    ("protocol", &["call", "error", "session", "undo"]),
    // The MCP server is a front end above the JSON dispatch (it lists `call::ALL_TOOLS`) and
    // routes a dialect call by the paths its own parsers find in it.
    (
        "mcp",
        &["api", "call", "dialects", "error", "session", "undo"],
    ),
    ("call", &["api", "dialects", "error", "session", "tools"]),
    (
        "dialects",
        &[
            "api", "disk", "engine", "error", "matching", "patch", "session", "text", "tools",
        ],
    ),
    ("api", &["error", "patch"]),
    (
        "tools",
        &[
            "api", "disk", "engine", "error", "patch", "session", "text", "undo",
        ],
    ),
    ("session", &["disk", "error", "text", "undo"]),
    ("undo", &["disk"]),
    ("engine", &["error", "matching", "repair", "text"]),
    ("repair", &["matching"]),
    ("matching", &["text"]),
    ("patch", &["text"]),
    ("disk", &["error", "text"]),
    ("text", &[]),
    ("error", &[]),
];

/// The longest a source file may be.
const MAX_LINES: usize = 650;

/// Files over [`MAX_LINES`] that are being split: none. A file that grows too long is split
/// by concept, never added here.
const TOO_LONG_FOR_NOW: &[&str] = &[];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_under(dir: &Path) -> impl Fn(&str) -> Option<String> + '_ {
    move |rel: &str| std::fs::read_to_string(dir.join(rel)).ok()
}

/// The library crate and the binary crate of `src/`.
fn crates() -> (Crate, Crate) {
    let src = root().join("src");
    let lib = Crate::load("lib.rs", &read_under(&src)).unwrap();
    let bin = Crate::load("main.rs", &read_under(&src)).unwrap();
    (lib, bin)
}

/// The top-level module of a file of the library (`lib` for the crate root).
fn top(krate: &Crate, file: usize) -> &str {
    krate.files[file]
        .module
        .first()
        .map(String::as_str)
        .unwrap_or("lib")
}

/// Every use across layers that `allowed` does not permit.
fn layer_problems(krate: &Crate, allowed: &[(&str, &[&str])]) -> Vec<String> {
    let allowed: BTreeMap<&str, BTreeSet<&str>> = allowed
        .iter()
        .map(|(m, deps)| (*m, deps.iter().copied().collect()))
        .collect();
    let mut problems = Vec::new();
    for (id, targets) in krate.edges().iter().enumerate() {
        let module = top(krate, id);
        if module == "lib" {
            continue;
        }
        let Some(ok) = allowed.get(module) else {
            problems.push(format!(
                "{}: module `{module}` is not in the layer map",
                krate.files[id].rel
            ));
            continue;
        };
        for &t in targets {
            let used = top(krate, t);
            if used != module && used != "lib" && !ok.contains(used) {
                problems.push(format!(
                    "{}: `{module}` uses `{}` of `{used}`, which is not below it",
                    krate.files[id].rel, krate.files[t].rel
                ));
            }
        }
    }
    problems.sort();
    problems
}

fn file_circles(krate: &Crate) -> Vec<String> {
    circles(&krate.edges(), &|f| krate.files[f].rel.clone())
}

/// The members of the workspace, as the root `Cargo.toml` lists them (`.` is the root package).
fn workspace_members(manifest: &str) -> Vec<String> {
    let Some(at) = manifest.find("\nmembers = [") else {
        return Vec::new();
    };
    let list = &manifest[at + "\nmembers = [".len()..];
    let list = &list[..list.find(']').unwrap_or(0)];
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The crate roots of one package, relative to its folder: `src/lib.rs`, `src/main.rs` and
/// `src/bin/*.rs` when they exist, and every `path = "…"` of its `[lib]` and `[[bin]]` tables.
fn crate_roots(package: &Path) -> Vec<String> {
    let mut roots: BTreeSet<String> = ["src/lib.rs", "src/main.rs"]
        .into_iter()
        .filter(|r| package.join(r).is_file())
        .map(str::to_string)
        .collect();
    if let Ok(entries) = std::fs::read_dir(package.join("src/bin")) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".rs") {
                roots.insert(format!("src/bin/{name}"));
            }
        }
    }
    let manifest = std::fs::read_to_string(package.join("Cargo.toml")).unwrap_or_default();
    let mut table = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line;
        } else if let Some(path) = line.strip_prefix("path = ") {
            if table == "[lib]" || table == "[[bin]]" {
                roots.insert(path.trim_matches('"').to_string());
            }
        }
    }
    roots.into_iter().collect()
}

/// Every crate of every workspace member (a library, a binary), each named by its root file
/// relative to the repository, with the directory its module paths start from.
fn workspace_crates() -> Vec<(String, Crate)> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let mut out = Vec::new();
    for member in workspace_members(&manifest) {
        let package = root().join(&member);
        for krate_root in crate_roots(&package) {
            let file = package.join(&krate_root);
            let dir = file.parent().unwrap().to_path_buf();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let krate = Crate::load(&name, &read_under(&dir))
                .unwrap_or_else(|e| panic!("{member}/{krate_root}: {e}"));
            let shown = rel_to(root(), &dir);
            out.push((shown, krate));
        }
    }
    out
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let (lib, _) = crates();
    let problems = layer_problems(&lib, ALLOWED);
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

/// Every crate of the workspace — the library and its binary, the protocol, the harness and
/// its binary, the fuzzing kit and its tools — has no circle between its files.
#[test]
fn the_files_of_a_module_import_one_another_one_way() {
    let crates = workspace_crates();
    let roots: Vec<&str> = crates.iter().map(|(dir, _)| dir.as_str()).collect();
    for expected in [
        "src",
        "conformance/protocol/src",
        "conformance/src",
        "fuzz/invariants/src",
    ] {
        assert!(
            roots.contains(&expected),
            "{expected} not checked: {roots:?}"
        );
    }
    let found: Vec<String> = crates
        .iter()
        .flat_map(|(dir, krate)| {
            file_circles(krate)
                .into_iter()
                .map(move |c| format!("{dir}: {c}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "import circles between files:\n{}",
        found.join("\n")
    );
}

/// Every `.rs` file of `src/` is a module of the library or of the binary, so none escapes
/// the checks above.
#[test]
fn every_source_file_is_in_the_module_tree() {
    let (lib, bin) = crates();
    let known: BTreeSet<String> = lib
        .files
        .iter()
        .chain(&bin.files)
        .map(|f| f.rel.clone())
        .collect();
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    let unreached: Vec<String> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .map(|f| rel_to(&root().join("src"), f))
        .filter(|f| !known.contains(f))
        .collect();
    assert!(
        unreached.is_empty(),
        "not in the module tree: {unreached:?}"
    );
}

/// The map itself has no circle: following "may use" from any module never comes back to it.
#[test]
fn the_layer_map_has_no_circle() {
    let names: Vec<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    let edges: Vec<BTreeSet<usize>> = ALLOWED
        .iter()
        .map(|(_, deps)| {
            deps.iter()
                .filter_map(|d| names.iter().position(|n| n == d))
                .collect()
        })
        .collect();
    let found = circles(&edges, &|i| names[i].to_string());
    assert!(found.is_empty(), "the layer map has circles: {found:?}");
}

/// ARCHITECTURE.md lists the allowed uses exactly as [`ALLOWED`] has them, so the document
/// and the check cannot part ways.
#[test]
fn architecture_md_lists_the_allowed_uses_of_the_map() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let line = doc
        .lines()
        .find_map(|l| l.strip_prefix("Allowed uses, as `tests/architecture.rs` checks them: "))
        .expect("ARCHITECTURE.md keeps the line of allowed uses");
    let listed: BTreeMap<String, Vec<String>> = line
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|entry| entry.split_once(" → "))
        .map(|(m, deps)| {
            let deps = deps.split(", ").filter(|d| *d != "—");
            (m.to_string(), deps.map(str::to_string).collect())
        })
        .collect();
    let map: BTreeMap<String, Vec<String>> = ALLOWED
        .iter()
        .map(|(m, d)| (m.to_string(), d.iter().map(|x| x.to_string()).collect()))
        .collect();
    assert_eq!(
        listed, map,
        "ARCHITECTURE.md's allowed uses differ from the test's map"
    );
}

/// The parsers and seekers of the dialects: pure, like the core — they use only `text`, one
/// another and the types their dialect's `mod.rs` declares (ARCHITECTURE.md, "The pure core").
const PURE_DIALECT_FILES: &[&str] = &[
    "dialects/apply_patch/parse.rs",
    "dialects/apply_patch/lines.rs",
    "dialects/apply_patch/seek.rs",
    "dialects/apply_patch/align.rs",
    "dialects/apply_patch/locate_error.rs",
    "dialects/search_replace/parse.rs",
    "dialects/search_replace/markers.rs",
    "dialects/search_replace/lines.rs",
    "dialects/search_replace/flex.rs",
];

/// What the pure files reach, following uses file by file, that is not pure.
fn impure_reach(krate: &Crate, pure: &[&str]) -> Vec<String> {
    let edges = krate.edges();
    let ok = |rel: &str| {
        rel.starts_with("text/")
            || rel == "text.rs"
            || pure.contains(&rel)
            || pure
                .iter()
                .any(|p| rel.ends_with("/mod.rs") && p.starts_with(rel.trim_end_matches("mod.rs")))
    };
    let mut seen = BTreeSet::new();
    let mut todo: Vec<usize> = (0..krate.files.len())
        .filter(|&f| pure.contains(&krate.files[f].rel.as_str()))
        .collect();
    assert_eq!(
        todo.len(),
        pure.len(),
        "a pure file is missing from the module tree"
    );
    let mut found = Vec::new();
    while let Some(f) = todo.pop() {
        for &t in &edges[f] {
            if !ok(&krate.files[t].rel) {
                found.push(format!(
                    "{} uses {}",
                    krate.files[f].rel, krate.files[t].rel
                ));
            } else if seen.insert(t) {
                todo.push(t);
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn the_parsers_and_seekers_of_the_dialects_are_pure() {
    let (lib, _) = crates();
    let found = impure_reach(&lib, PURE_DIALECT_FILES);
    assert!(found.is_empty(), "not pure:\n{}", found.join("\n"));
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skip = name.starts_with('.')
                || matches!(
                    name.as_str(),
                    "target" | "__pycache__" | "node_modules" | "corpus" | "artifacts"
                );
            if !skip {
                walk(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

fn rel_to(base: &Path, file: &Path) -> String {
    file.strip_prefix(base)
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned()
}

/// The source files whose length is checked: Rust under `src/`, `conformance/`, `fuzz/`,
/// `tests/` and `benches/`; Python, JavaScript, shell and extension-less scripts (a `#!` first
/// line) under `scripts/`, `tests/` and `conformance/`.
fn source_files(base: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (dir, scripts) in [
        ("src", false),
        ("conformance", true),
        ("fuzz", false),
        ("tests", true),
        ("benches", false),
        ("scripts", true),
    ] {
        let mut files = Vec::new();
        walk(&base.join(dir), &mut files);
        for f in files {
            let ext = f.extension().map(|e| e.to_string_lossy().into_owned());
            let counted = match ext.as_deref() {
                Some("rs") => true,
                Some("py" | "mjs" | "sh") => scripts,
                None => {
                    scripts
                        && std::fs::read(&f)
                            .map(|b| b.starts_with(b"#!"))
                            .unwrap_or(false)
                }
                _ => false,
            };
            if counted {
                out.push(rel_to(base, &f));
            }
        }
    }
    out.sort();
    out
}

/// Every source file over [`MAX_LINES`] lines, with its length.
fn too_long(base: &Path, allowed: &[&str]) -> Vec<String> {
    source_files(base)
        .into_iter()
        .filter(|f| !allowed.contains(&f.as_str()))
        .filter_map(|f| {
            let text = std::fs::read_to_string(base.join(&f)).ok()?;
            let lines = text.lines().count();
            (lines > MAX_LINES).then(|| format!("{f}: {lines} lines"))
        })
        .collect()
}

#[test]
fn no_source_file_is_over_the_line_limit() {
    let long = too_long(root(), TOO_LONG_FOR_NOW);
    assert!(
        long.is_empty(),
        "split these by concept, one job per file (at most {MAX_LINES} lines):\n{}",
        long.join("\n")
    );
    for f in TOO_LONG_FOR_NOW {
        assert!(
            root().join(f).exists(),
            "{f} is gone: take it off TOO_LONG_FOR_NOW"
        );
    }
}

// The checks above must be able to fail: each one against a small crate made to break it.

fn krate(files: &[(&str, &str)]) -> Crate {
    let map: BTreeMap<String, String> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    Crate::load("lib.rs", &|rel: &str| map.get(rel).cloned()).unwrap()
}

const NOTHING: &[(&str, &[&str])] = &[("a", &[]), ("b", &[]), ("call", &[]), ("mcp", &[])];

#[test]
fn a_root_reexport_counts_as_a_use_of_its_defining_module() {
    let k = krate(&[
        (
            "lib.rs",
            "mod call;\nmod mcp;\npub use call::{ALL_TOOLS, TOOLS};\n",
        ),
        ("call.rs", "pub const ALL_TOOLS: [&str; 0] = [];\n"),
        ("mcp.rs", "fn f() { for t in crate::ALL_TOOLS {} }\n"),
    ]);
    assert_eq!(
        layer_problems(&k, NOTHING),
        ["mcp.rs: `mcp` uses `call.rs` of `call`, which is not below it"]
    );
}

#[test]
fn grouped_and_wrapped_imports_count() {
    let k = krate(&[
        ("lib.rs", "mod a;\nmod b;\nmod call;\n"),
        (
            "a.rs",
            "use crate::{\n    call::{\n        self,\n        X as Y},\n    b::*,\n};\n",
        ),
        ("b.rs", ""),
        ("call.rs", ""),
    ]);
    assert_eq!(
        layer_problems(&k, NOTHING),
        [
            "a.rs: `a` uses `b.rs` of `b`, which is not below it",
            "a.rs: `a` uses `call.rs` of `call`, which is not below it"
        ]
    );
}

#[test]
fn super_super_paths_are_followed() {
    let k = krate(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a/mod.rs", "mod inner;\n"),
        ("a/inner.rs", "fn f() { super::super::b::g(); }\n"),
        ("b.rs", "pub fn g() {}\n"),
    ]);
    assert_eq!(
        layer_problems(&k, NOTHING),
        ["a/inner.rs: `a` uses `b.rs` of `b`, which is not below it"]
    );
}

#[test]
fn strings_and_comments_are_not_code() {
    let k = krate(&[
        ("lib.rs", "mod a;\nmod b;\nmod call;\n"),
        (
            "a.rs",
            "// crate::b::x\nconst U: &str = \"http://x/crate::b\"; fn f() { call(U, r#\"\"// \"#); crate::call::g(); }\nconst C: char = '\"'; /* crate::b */\n",
        ),
        ("b.rs", ""),
        ("call.rs", "pub fn g() {}\n"),
    ]);
    assert_eq!(
        layer_problems(&k, NOTHING),
        ["a.rs: `a` uses `call.rs` of `call`, which is not below it"]
    );
}

#[test]
fn a_circle_between_the_files_of_a_module_is_found() {
    let disk = |staged: &str| {
        krate(&[
            ("lib.rs", "mod disk;\n"),
            (
                "disk/mod.rs",
                "mod atomic;\nmod staged;\npub use atomic::{write, WriteRequest};\n",
            ),
            (
                "disk/atomic.rs",
                "use super::staged::prepare;\npub struct WriteRequest;\n#[cfg(test)]\nmod tests { use super::super::staged::X; }\n",
            ),
            ("disk/staged.rs", staged),
        ])
    };
    assert_eq!(
        file_circles(&disk("use super::WriteRequest;\npub fn prepare() {}\n")),
        ["disk/atomic.rs → disk/staged.rs → disk/atomic.rs"]
    );
    assert!(file_circles(&disk("pub fn prepare() {}\n")).is_empty());
}

#[test]
fn a_path_attribute_names_the_module_file() {
    let k = krate(&[
        ("lib.rs", "mod a;\n"),
        (
            "a.rs",
            "#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n",
        ),
        ("a_tests.rs", "use super::*;\n"),
    ]);
    let files: Vec<&str> = k.files.iter().map(|f| f.rel.as_str()).collect();
    assert!(files.contains(&"a_tests.rs"), "{files:?}");
}

#[test]
fn an_over_long_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
    std::fs::write(dir.path().join("src/long.rs"), "\n".repeat(MAX_LINES + 1)).unwrap();
    std::fs::write(dir.path().join("src/short.rs"), "\n".repeat(MAX_LINES)).unwrap();
    let script = format!("#!/bin/sh\n{}", "\n".repeat(MAX_LINES));
    std::fs::write(dir.path().join("scripts/tool"), script).unwrap();
    std::fs::write(dir.path().join("scripts/data"), "\n".repeat(MAX_LINES + 1)).unwrap();
    assert_eq!(
        too_long(dir.path(), &[]),
        [
            format!("scripts/tool: {} lines", MAX_LINES + 1),
            format!("src/long.rs: {} lines", MAX_LINES + 1)
        ]
    );
    assert!(too_long(dir.path(), &["scripts/tool", "src/long.rs"]).is_empty());
}

#[test]
fn a_parser_that_reaches_the_session_is_not_pure() {
    let k = krate(&[
        ("lib.rs", "mod dialects;\nmod session;\nmod text;\n"),
        ("dialects/mod.rs", "mod v4a;\n"),
        (
            "dialects/v4a/mod.rs",
            "mod parse;\nmod seek;\npub struct Op;\n",
        ),
        (
            "dialects/v4a/parse.rs",
            "use super::Op;\nuse crate::text::Line;\n",
        ),
        (
            "dialects/v4a/seek.rs",
            "use super::parse;\nfn f() { crate::session::g(); }\n",
        ),
        ("session.rs", "pub fn g() {}\n"),
        ("text.rs", "pub struct Line;\n"),
    ]);
    let pure = ["dialects/v4a/parse.rs", "dialects/v4a/seek.rs"];
    assert_eq!(
        impure_reach(&k, &pure),
        ["dialects/v4a/seek.rs uses session.rs"]
    );
    assert!(impure_reach(&k, &pure[..1]).is_empty());
}

#[test]
fn every_member_and_every_crate_root_of_a_workspace_is_found() {
    let manifest = "[workspace]\nmembers = [\".\", \"tools/a\",\n  \"b\"]\nresolver = \"2\"\n";
    assert_eq!(workspace_members(manifest), [".", "tools/a", "b"]);
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path();
    std::fs::create_dir_all(pkg.join("src/bin")).unwrap();
    std::fs::create_dir_all(pkg.join("other")).unwrap();
    for f in ["src/lib.rs", "src/bin/tool.rs", "other/main.rs"] {
        std::fs::write(pkg.join(f), "").unwrap();
    }
    std::fs::write(
        pkg.join("Cargo.toml"),
        "[package]\nname = \"p\"\n\n[[bin]]\nname = \"x\"\npath = \"other/main.rs\"\n\n[dependencies]\nq = { path = \"../q\" }\n",
    )
    .unwrap();
    assert_eq!(
        crate_roots(pkg),
        ["other/main.rs", "src/bin/tool.rs", "src/lib.rs"]
    );
}
