//! The library's layering, as ARCHITECTURE.md draws it, checked on the source: every module of
//! `src/` may use only the modules listed for it below, so the imports go one way down and no
//! circle can come back unnoticed (the one the first version had — the session dispatching to
//! the tools, which used the session — included).
//!
//! The check reads `crate::<module>` references in code (not in comments) of each top-level
//! module's files. A new module, or a new use across layers, must be added here on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What each top-level module may use, from the entry down.
const ALLOWED: &[(&str, &[&str])] = &[
    // `serve` writes a tool's typed output (`call::CallOutput`) into its reply line.
    ("protocol", &["call", "error", "session", "undo"]),
    ("mcp", &["api", "error", "session", "undo"]),
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

fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    Some(first.trim_end_matches(".rs").to_string())
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::x` references of a file's code lines.
fn uses(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let code = code.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(m, deps)| (*m, deps.iter().copied().collect()))
        .collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        if module == "lib" || module == "main" || module == "cli" {
            continue; // the crate root and the binary (main.rs, cli/) sit above everything
        }
        let Some(ok) = allowed.get(module.as_str()) else {
            problems.push(format!(
                "{}: module `{module}` is not in the layer map",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for used in uses(&text) {
            if used != module && !ok.contains(used.as_str()) {
                problems.push(format!(
                    "{}: `{module}` uses `crate::{used}`, which is not below it",
                    file.display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

/// The map itself has no circle: following "may use" from any module never comes back to it.
#[test]
fn the_layer_map_has_no_circle() {
    let map: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    fn reaches(
        map: &BTreeMap<&str, &[&str]>,
        from: &str,
        target: &str,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in map.get(from).copied().unwrap_or(&[]) {
            if *next == target {
                return true;
            }
            if seen.insert(next.to_string()) && reaches(map, next, target, seen) {
                return true;
            }
        }
        false
    }
    for module in map.keys() {
        assert!(
            !reaches(&map, module, module, &mut BTreeSet::new()),
            "{module} can reach itself"
        );
    }
}

#[test]
fn references_in_comments_do_not_count_and_code_does() {
    let found = uses("//! see [`crate::call`]\nuse crate::session::Session; // crate::tools\n");
    assert_eq!(found, BTreeSet::from(["session".to_string()]));
}
