//! What the documentation states about the repository stays true: the corpus size the README
//! gives, `--locked` on every install command, a release build without debug info (and a
//! profile with it), byte dumps in the demo that never wrap in the middle of a line, and
//! ARCHITECTURE.md's map — every path it names exists, and every file of `src/` is named.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_readme_gives_the_corpus_size_the_corpus_has() {
    let corpus = editref_conform::load::load_dir(&Path::new(ROOT).join("conformance/cases"))
        .expect("the corpus");
    let cases = corpus.cases.len() + corpus.broken.len();
    let areas: std::collections::BTreeSet<&str> = corpus
        .cases
        .iter()
        .map(|c| c.area.as_str())
        .chain(corpus.broken.iter().filter_map(|b| b.id.split('/').next()))
        .collect();
    let want = format!("{cases} cases in {} areas", areas.len());
    let readme = read("README.md");
    assert!(
        readme.contains(&format!("(`conformance/cases/<area>/*.yaml`, {want},")),
        "README.md must say \"{want}\" where it describes the corpus (`editref conform list | wc -l` counts the cases)"
    );
}

#[test]
fn every_install_command_is_locked() {
    let mut files = vec![
        "README.md".to_string(),
        "conformance/README.md".to_string(),
        ".ci/run".to_string(),
    ];
    for dir in ["docs", "scripts", ".github/workflows"] {
        for e in std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .flatten()
        {
            if e.path().is_file() {
                files.push(format!("{dir}/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    let mut unlocked = Vec::new();
    for f in &files {
        for (n, line) in read(f).lines().enumerate() {
            let code = line.split('#').next().unwrap_or("");
            if code.contains("cargo install ") && !code.contains("--locked") {
                unlocked.push(format!("{f}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        unlocked.is_empty(),
        "without --locked, cargo install re-resolves every dependency: {unlocked:#?}"
    );
}

/// The lines of `[profile.NAME]` in Cargo.toml, up to the next section.
fn profile(toml: &str, name: &str) -> Vec<String> {
    toml.lines()
        .skip_while(|l| l.trim() != format!("[profile.{name}]"))
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn release_builds_carry_no_debug_info_and_profiling_builds_do() {
    let toml = read("Cargo.toml");
    let release = profile(&toml, "release");
    assert!(!release.is_empty(), "a [profile.release]");
    assert!(
        release.iter().all(|l| !l.starts_with("debug")),
        "{release:?}"
    );
    let profiling = profile(&toml, "profiling");
    assert!(
        profiling.contains(&"inherits = \"release\"".to_string()),
        "{profiling:?}"
    );
    assert!(
        profiling.contains(&"debug = true".to_string()),
        "{profiling:?}"
    );
}

#[test]
fn demo_byte_dumps_break_only_after_a_line_break() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], usize); 3] = [
        (
            "crlf",
            b"first line is long enough to wrap\r\nsecond\r\nthird\r\n",
            3,
        ),
        (
            "utf16",
            b"\xff\xfeh\x00i\x00\r\x00\n\x00y\x00o\x00\n\x00",
            2,
        ),
        ("no-final-newline", b"caf\xe9 cr\xe8me\nlast", 2),
    ];
    for (name, bytes, lines) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let out = Command::new(Path::new(ROOT).join("scripts/show-bytes"))
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let dump: Vec<&str> = text.lines().collect();
        assert_eq!(dump.len(), lines, "{name}:\n{text}");
        for l in &dump[..lines - 1] {
            assert!(
                l.ends_with("\\n") || l.ends_with("\\n  \\0"),
                "{name}: {l:?}"
            );
        }
        // Every byte is there: od shows each in a 4-column field.
        let fields: usize = dump.iter().map(|l| (l.len() - 4) / 4).sum();
        assert_eq!(fields, bytes.len(), "{name}:\n{text}");
    }
}

/// The fuzz workspace has a lockfile of its own (`fuzz/Cargo.lock`), which `cargo test --locked`
/// at the root does not check: a dependency added to the library must be recorded there too,
/// or the fuzz build rewrites a tracked file. `cargo metadata --locked` refuses a stale one.
#[test]
fn the_fuzz_lockfile_is_current() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--locked", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "fuzz/Cargo.lock is out of date (run `cargo metadata --manifest-path fuzz/Cargo.toml` and commit it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file and directory of the checkout (build output, VCS data and fuzz corpora left
/// out), relative to the root with `/`; directories end with `/`.
fn checkout_paths() -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = format!("{rel}{name}");
            if e.path().is_dir() {
                let skipped = matches!(name.as_str(), ".git" | "target" | "__pycache__")
                    || matches!(path.as_str(), "fuzz/corpus" | "fuzz/artifacts");
                if !skipped {
                    out.push(format!("{path}/"));
                    walk(&e.path(), &format!("{path}/"), out);
                }
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(ROOT), "", &mut out);
    out
}

/// `a/{b,c}.rs` as `a/b.rs` and `a/c.rs` (one group of braces).
fn expand_braces(path: &str) -> Vec<String> {
    match (path.find('{'), path.find('}')) {
        (Some(open), Some(close)) if open < close => path[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{}{}", &path[..open], alt.trim(), &path[close + 1..]))
            .collect(),
        _ => vec![path.to_string()],
    }
}

/// The paths a Markdown text names in inline code outside fenced blocks: spans that look like
/// a path (a `/`, or a file extension), with a trailing `::item` dropped and braces expanded.
/// Placeholders (`<area>`, `*`) and anything with a space are not paths.
fn named_paths(markdown: &str) -> Vec<String> {
    const EXTENSIONS: [&str; 11] = [
        ".rs", ".py", ".mjs", ".sh", ".md", ".toml", ".yml", ".yaml", ".json", ".jsonl", ".svg",
    ];
    let mut fenced = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for span in line.split('`').skip(1).step_by(2) {
            let span = span.split("::").next().unwrap_or("");
            // `a/{b, c}.rs`: the spaces of a brace group are not part of the path.
            let span = &if span.contains('{') {
                span.replace(' ', "")
            } else {
                span.to_string()
            };
            let placeholder = span.contains(['<', '*', ' ', ':', '|', '(', '=', '@']);
            let pathlike = span.contains('/') || EXTENSIONS.iter().any(|e| span.ends_with(e));
            let extension_only = span.starts_with('.') && !span.contains('/');
            if !placeholder && pathlike && !extension_only && !span.starts_with('-') {
                out.extend(expand_braces(span));
            }
        }
    }
    out
}

/// Whether `named` is a path of the checkout: exactly, when it starts at a top-level folder or
/// file; else as the tail of one (`session/state.rs`, `state.rs`), as the tables name files
/// inside the module of their row.
fn exists_in(paths: &[String], named: &str) -> bool {
    let top = named.split('/').next().unwrap_or("");
    let at_root = Path::new(ROOT).join(top).exists() && !top.is_empty();
    paths.iter().any(|p| {
        p == named
            || (p.strip_suffix('/') == Some(named))
            || (!at_root
                && (p.ends_with(&format!("/{named}")) || p.ends_with(&format!("/{named}/"))))
    })
}

/// Names ARCHITECTURE.md gives to what runs write, not to files of the checkout.
const WRITTEN_BY_RUNS: [&str; 3] = ["target/", "bench.json", "bench.md"];

#[test]
fn every_path_architecture_md_names_exists() {
    let paths = checkout_paths();
    let missing: Vec<String> = named_paths(&read("ARCHITECTURE.md"))
        .into_iter()
        .filter(|n| !WRITTEN_BY_RUNS.contains(&n.as_str()) && !exists_in(&paths, n))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

/// Every file of the library and the binary is named in ARCHITECTURE.md (by its name, in the
/// row of its module), tests and `mod.rs` files aside: a new module enters the map with its
/// first commit.
#[test]
fn architecture_md_names_every_file_of_src() {
    let named = named_paths(&read("ARCHITECTURE.md"));
    let unnamed: Vec<String> = checkout_paths()
        .into_iter()
        .filter(|p| p.starts_with("src/") && p.ends_with(".rs"))
        .filter(|p| !p.contains("/tests/"))
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or("");
            !matches!(name, "mod.rs" | "lib.rs" | "tests.rs") && !name.ends_with("_tests.rs")
        })
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or("");
            !named
                .iter()
                .any(|n| n == name || p.ends_with(&format!("/{n}")))
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md does not name: {unnamed:?}"
    );
}

#[test]
fn path_spans_are_read_as_the_document_means_them() {
    let doc = "`src/api/{fields, files}.rs` and `text/eol.rs::normalize_crlf`, `--root`,\n\
               `cases/<area>/*.yaml`, `editref conform list`\n```\n`src/gone.rs`\n```\n";
    assert_eq!(
        named_paths(doc),
        ["src/api/fields.rs", "src/api/files.rs", "text/eol.rs"]
    );
    let paths = ["src/".to_string(), "src/text/eol.rs".to_string()];
    assert!(exists_in(&paths, "text/eol.rs"));
    assert!(exists_in(&paths, "eol.rs"));
    assert!(exists_in(&paths, "src/text/eol.rs"));
    assert!(!exists_in(&paths, "src/eol.rs"));
    assert!(!exists_in(&paths, "text/quotes.rs"));
}
