//! The harness as its own program, as a user meets it: `editref-conform` certifies the reference
//! on a slice of the built-in corpus and writes its reports, and every way of running it — a
//! selection that matches nothing, a stale expectations list, parallel cases, `--fail-fast`,
//! `--rerun-failed`, kept sandboxes, per-case timeouts, `list` and `show` — answers with the
//! exit status and the words its documentation promises. Every child's stderr is captured and
//! checked, so none of it reaches the test output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

/// Runs the harness with `args` in `cwd`.
fn conform_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn conform(args: &[&str]) -> Output {
    conform_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A corpus in a temp directory, with the cases given as (id, YAML after the `id:` line).
struct Corpus {
    dir: tempfile::TempDir,
}

impl Corpus {
    fn new(cases: &[(&str, &str)]) -> Corpus {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("VERSION"), "0.1.0\n").unwrap();
        for (id, body) in cases {
            let file = dir.path().join("cases").join(format!("{id}.yaml"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, format!("id: {id}\n{body}")).unwrap();
        }
        Corpus { dir }
    }

    fn path(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    fn report(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// A case at `level` whose Edit must give `expect` (the reference answers `ok`).
fn edit_case(level: &str, expect: &str) -> String {
    format!(
        "title: an edit\nspec: [EDIT-1]\nlevel: {level}\nrequires: [read, edit]\nsince: \"0.1.0\"\n\
         files:\n  a.txt: {{text: \"one\\n\"}}\n  ../outside.txt: {{text: \"x\"}}\nsteps:\n  - call: {{tool: Read, input: {{file_path: a.txt}}}}\n  \
         - call: {{tool: Edit, input: {{file_path: a.txt, old_string: one, new_string: \"1\"}}}}\n    \
         expect: {expect}\nexpect_files:\n  a.txt: {{text: \"1\\n\"}}\n"
    )
}

const PASSES: &str = "{ok: true, output: {replacements: 1}}";
const FAILS: &str = "{error: ambiguous}";

fn read_report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path.join("report.json")).unwrap()).unwrap()
}

#[test]
fn builtin_run_of_one_area_passes_and_writes_the_reports() {
    let out = tempfile::tempdir().unwrap();
    let run = conform(&[
        "--builtin",
        "--only",
        "eol/*",
        "--quiet",
        "--report",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0), "stderr: {}", text(&run.stderr));
    let report = read_report(out.path());
    let cases = report["cases"].as_array().unwrap();
    let on_disk = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/cases/eol"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".yaml"))
        })
        .count();
    assert_eq!(cases.len(), on_disk, "every eol case ran");
    assert!(cases
        .iter()
        .all(|c| c["id"].as_str().unwrap().starts_with("eol/")));
    assert_eq!(report["totals"]["pass"].as_u64(), Some(on_disk as u64));
    for name in ["summary.md", "report.html", "junit.xml", "report.tap"] {
        assert!(out.path().join(name).is_file(), "{name} written");
    }
    let stdout = text(&run.stdout);
    let last = stdout.lines().last().unwrap();
    assert_eq!(
        last,
        format!(
            "reports in {}/: summary.md, report.html, report.json, junit.xml, report.tap",
            out.path().display()
        )
    );
}

#[test]
fn the_reference_reads_green_on_its_own_corpus() {
    let out = tempfile::tempdir().unwrap();
    let run = conform(&["--builtin", "--report", out.path().to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "stderr: {}", text(&run.stderr));
    let stdout = text(&run.stdout);
    let totals = stdout.lines().find(|l| l.starts_with("editref ")).unwrap();
    assert!(totals.contains(" pass (corpus"), "only passes: {totals}");
    assert!(
        stdout
            .contains("\ncertified extended for Read, Edit, MultiEdit, Write, NotebookEdit, Undo,"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    assert!(summary.contains("| fail | 0 | 0 | 0 | 0 |"), "{summary}");
    let junit = std::fs::read_to_string(out.path().join("junit.xml")).unwrap();
    assert!(
        junit.contains("failures=\"0\" errors=\"0\" skipped=\"0\""),
        "{}",
        &junit[..400]
    );
}

#[test]
fn usage_errors_exit_2_and_say_what_is_wrong() {
    let run = conform(&["--no-such-flag"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("unexpected argument '--no-such-flag'"));
    let run = conform(&["--builtin", "--jobs", "0"]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        text(&run.stderr),
        "editref conform: --jobs must be at least 1\n"
    );
    let run = conform(&[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("say what to certify"));
}

#[test]
fn a_selection_that_matches_nothing_exits_4() {
    let run = conform(&["--builtin", "--only", "nosuch/*"]);
    assert_eq!(
        run.status.code(),
        Some(editref_conform::EXIT_NO_CASES as i32)
    );
    assert_eq!(editref_conform::EXIT_NO_CASES, 4);
    let err = text(&run.stderr);
    assert!(
        err.starts_with("editref conform: no case matches --only 'nosuch/*' among the "),
        "{err}"
    );
    assert!(
        err.contains("`editref conform list` shows the ids"),
        "{err}"
    );
    assert!(
        run.stdout.is_empty(),
        "no totals line for a run that ran nothing"
    );
    let run = conform(&["list", "--only", "nosuch"]);
    assert_eq!(run.status.code(), Some(4));
}

#[test]
fn an_unknown_id_in_the_expectations_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("known.txt");
    std::fs::write(
        &list,
        "eol/crlf-single-line-edit\neol/crlf-singel-line-edit # typo\n",
    )
    .unwrap();
    let run = conform(&[
        "--builtin",
        "--only",
        "eol",
        "--expectations",
        list.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(
        err.contains("eol/crlf-singel-line-edit is not a case of corpus"),
        "{err}"
    );
    assert!(run.stdout.is_empty(), "nothing ran");
}

#[test]
fn list_and_show_read_the_built_in_corpus() {
    let elsewhere = tempfile::tempdir().unwrap();
    let run = conform_in(
        elsewhere.path(),
        &["list", "--only", "unique", "--level", "core"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    let line = out
        .lines()
        .find(|l| l.starts_with("unique/ambiguous-two-hits "))
        .unwrap();
    assert!(
        line.contains(" core ") && line.contains("MATCH-3"),
        "{line}"
    );
    assert!(out
        .lines()
        .all(|l| l.starts_with("unique/") && l.contains(" core ")));

    let run = conform_in(elsewhere.path(), &["show", "unique/ambiguous-two-hits"]);
    assert_eq!(run.status.code(), Some(0));
    let on_disk = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/cases/unique/ambiguous-two-hits.yaml"
    ))
    .unwrap();
    assert_eq!(run.stdout, on_disk, "the file as the corpus holds it");

    let run = conform_in(elsewhere.path(), &["show", "unique/ambiguous-two"]);
    assert_eq!(run.status.code(), Some(4));
    assert!(
        text(&run.stderr).contains("did you mean unique/ambiguous-two-hits"),
        "{}",
        text(&run.stderr)
    );
    let run = conform_in(elsewhere.path(), &["show", "../../etc/passwd"]);
    assert_eq!(run.status.code(), Some(4), "only ids of the corpus");
}

#[test]
fn differences_pass_fail_fast_stops_and_rerun_failed_reruns() {
    let corpus = Corpus::new(&[
        ("edit/a-fails", &edit_case("core", FAILS)),
        ("edit/b-passes", &edit_case("core", PASSES)),
        (
            "edit/c-differs",
            &edit_case("implementation-defined", FAILS),
        ),
        ("edit/d-fails", &edit_case("extended", FAILS)),
    ]);
    let first = corpus.report("first");
    let run = conform(&[
        "--builtin",
        "-j",
        "3",
        "--corpus",
        corpus.path(),
        "--report",
        first.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1), "a core case failed");
    let stdout = text(&run.stdout);
    assert!(
        stdout.contains("4 cases, 1 pass, 2 fail, 1 differs"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("FAIL ").count(),
        2,
        "each failing case printed once: {stdout}"
    );
    assert!(
        stdout.contains("param_aliases: 1 core case did not pass"),
        "{stdout}"
    );
    let report = read_report(&first);
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "edit/a-fails",
            "edit/b-passes",
            "edit/c-differs",
            "edit/d-fails"
        ],
        "by id, whatever the jobs"
    );
    let failed = &report["cases"][0];
    assert_eq!(failed["about"]["title"], "an edit");
    assert_eq!(failed["about"]["spec"], serde_json::json!(["EDIT-1"]));
    assert_eq!(failed["about"]["files"]["a.txt"], "text \"one\\n\"");
    assert_eq!(report["cases"][2]["status"], "differs");
    assert!(
        report["cases"][1].get("about").is_none(),
        "passes carry no details"
    );
    let junit = std::fs::read_to_string(first.join("junit.xml")).unwrap();
    assert!(
        junit.contains("tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"0\""),
        "{junit}"
    );

    // Only the extended failure: exit 0 by default, 1 when extended is required.
    let only_d = [
        "--builtin",
        "--corpus",
        corpus.path(),
        "--only",
        "edit/d-fails",
        "-q",
    ];
    assert_eq!(conform(&only_d).status.code(), Some(0));
    let mut gated = only_d.to_vec();
    gated.extend(["--require", "extended"]);
    assert_eq!(conform(&gated).status.code(), Some(1));
    let mut gated = only_d.to_vec();
    gated.extend(["--require", "core"]);
    assert_eq!(conform(&gated).status.code(), Some(0));

    let stopped = corpus.report("stopped");
    let run = conform(&[
        "--builtin",
        "-j",
        "1",
        "--fail-fast",
        "--corpus",
        corpus.path(),
        "--report",
        stopped.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let report = read_report(&stopped);
    assert_eq!(
        report["cases"].as_array().unwrap().len(),
        1,
        "stopped after the first failure"
    );
    assert_eq!(
        report["stopped_early"],
        "Stopped early (--fail-fast) after edit/a-fails: 3 cases not run."
    );
    assert!(text(&run.stdout).contains("Stopped early (--fail-fast)"));

    let again = corpus.report("again");
    let run = conform(&[
        "--builtin",
        "--corpus",
        corpus.path(),
        "--rerun-failed",
        first.join("report.json").to_str().unwrap(),
        "--report",
        again.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let report = read_report(&again);
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["edit/a-fails", "edit/d-fails"],
        "fail, not pass or differs"
    );
    assert!(report["certification"]["note"]
        .as_str()
        .unwrap()
        .starts_with("Partial run"));

    let run = conform(&[
        "--builtin",
        "--corpus",
        corpus.path(),
        "--rerun-failed",
        corpus.report("nope.json").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("cannot read"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn kept_sandboxes_are_named_by_case_id() {
    let corpus = Corpus::new(&[
        ("edit/a-fails", &edit_case("core", FAILS)),
        ("edit/b-passes", &edit_case("core", PASSES)),
        ("other/c-passes", &edit_case("core", PASSES)),
    ]);
    let kept = corpus.report("kept");
    std::fs::create_dir_all(kept.join("edit/a-fails/sandbox")).unwrap();
    std::fs::write(
        kept.join("edit/a-fails/sandbox/stale.txt"),
        "from an earlier run",
    )
    .unwrap();
    let run = conform(&[
        "--builtin",
        "-q",
        "--corpus",
        corpus.path(),
        "--keep-sandboxes",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let root = kept.join("edit/a-fails");
    assert_eq!(
        std::fs::read_to_string(root.join("sandbox/a.txt")).unwrap(),
        "1\n",
        "as the case left it"
    );
    assert!(
        root.join("outside.txt").is_file(),
        "the case's ../ files beside the sandbox"
    );
    assert!(
        !root.join("sandbox/stale.txt").exists(),
        "an earlier run's tree is replaced"
    );
    assert!(
        !kept.join("edit/b-passes").exists(),
        "a passing case leaves nothing"
    );
    assert!(!kept.join("other").exists(), "nor an empty area");
    assert!(
        text(&run.stdout).contains(&format!(
            "sandboxes of the 1 case that did not pass are kept in {}",
            kept.display()
        )),
        "{}",
        text(&run.stdout)
    );
}

#[test]
fn a_case_meant_to_hang_has_its_own_short_timeout() {
    let hang = "title: a hang\nspec: [PATH-4]\nlevel: core\nrequires: [read]\nsince: \"0.1.0\"\ntimeout: 0.3\nfiles: {}\nsteps:\n  - call: {tool: Read, input: {file_path: a.txt}}\n";
    let corpus = Corpus::new(&[("read/hangs", hang)]);
    let adapter = corpus.report("hang.py");
    std::fs::write(
        &adapter,
        "import json, sys, time\nfor line in sys.stdin:\n    m = json.loads(line)\n    t = m['type']\n    if t == 'hello':\n        r = {'type': 'hello', 'protocol': 1, 'implementation': {'name': 'hang', 'version': '0'}, 'features': ['read', 'edit']}\n    elif t == 'case_start':\n        r = {'type': 'ready'}\n    elif t == 'case_end':\n        r = {'type': 'done'}\n    elif t == 'bye':\n        break\n    else:\n        time.sleep(600)\n    print(json.dumps(r), flush=True)\n",
    )
    .unwrap();
    let out = corpus.report("out");
    let run = conform(&[
        "--impl",
        &format!("python3 {}", adapter.display()),
        "--corpus",
        corpus.path(),
        "--timeout",
        "600",
        "--report",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let report = read_report(&out);
    assert_eq!(report["cases"][0]["status"], "timeout");
    // Its second attempt, alone, is held to five times the case's own limit, not the run's.
    assert_eq!(
        report["cases"][0]["reason"],
        "step 1: no reply to call 1 (Read) within 1.5 s (run again alone with 5× the limits \
         after the first attempt's step 1: no reply to call 1 (Read) within 0.3 s)"
    );
}

#[test]
fn the_help_is_complete_and_agrees_with_the_readme() {
    let run = conform(&["--help"]);
    assert_eq!(run.status.code(), Some(0));
    let help = text(&run.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for needle in [
        "--jobs <N>",
        "--fail-fast",
        "--rerun-failed <REPORT>",
        "--require <[CLASS:]LEVEL>",
        "--write-expectations <FILE>",
        "--keep-sandboxes [<DIR>]",
        "--timeout <SECS>",
        "list List the corpus's cases",
        "show Print one case's YAML file",
        "4 no case was selected",
    ] {
        assert!(
            help.contains(needle),
            "{needle} missing from the help:\n{help}"
        );
    }
    // Which sandboxes are kept: the same words in both places.
    let kept = "every case that does not pass — fail (xfail included), differs, crash, timeout, harness_error —";
    assert!(help.contains(kept), "{help}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains(kept),
        "conformance/README.md must say: {kept}"
    );
}

/// `--version` (and `-V`) print the harness's version and exit 0, as `editref --version` does;
/// they are not a usage error.
#[test]
fn the_version_is_printed() {
    for flag in ["--version", "-V"] {
        let run = conform(&[flag]);
        assert_eq!(run.status.code(), Some(0), "{flag}: {}", text(&run.stderr));
        assert_eq!(
            text(&run.stdout),
            format!("editref conform {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

/// A run whose reader has gone (stdout a pipe closed at the other end, as `| head` leaves it)
/// still runs every case, writes its reports and exits with the run's own status, quietly:
/// printing its summary used to panic and exit 101.
#[test]
fn a_run_into_a_closed_pipe_ends_with_its_own_status() {
    let corpus = Corpus::new(&[
        ("edit/passes", &edit_case("core", PASSES)),
        ("edit/fails", &edit_case("core", FAILS)),
    ]);
    let run = |only: &str, report: &str| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BIN)
            .args([
                "--builtin",
                "--corpus",
                corpus.path(),
                "--only",
                only,
                "--report",
            ])
            .arg(corpus.report(report))
            .stdout(writer)
            .output()
            .unwrap();
        (out.status.code(), text(&out.stderr))
    };
    assert_eq!(run("edit/passes", "passes"), (Some(0), String::new()));
    assert!(corpus.report("passes").join("report.json").is_file());
    assert_eq!(run("edit/*", "both"), (Some(1), String::new()));
    assert_eq!(read_report(&corpus.report("both"))["totals"]["fail"], 1);
}
