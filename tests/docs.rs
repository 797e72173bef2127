//! What the documentation states about the repository stays true: the corpus size the README
//! gives, `--locked` on every install command, a release build without debug info (and a
//! profile with it), and byte dumps in the demo that never wrap in the middle of a line.

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
