//! `editref conform`: the command line of the harness.
//!
//! `main.rs` hands the raw arguments over, so the harness owns its own flags and help text and
//! can be driven from tests as a function (`run_cli(&args) -> exit code`).
//!
//! The command line is split by what each part decides: `args` defines the flags and the help
//! text, `plan` checks and selects what a run includes, `run_cmd` runs a certification, `live`
//! shows it while it runs, `summary` prints its outcome, `fuzz_cmd` runs a differential fuzzing campaign instead, `bench_cmd` a benchmark, `browse` holds `list` and `show`, and
//! `subcommands` holds `manifest` and `matrix`. This file parses the arguments and dispatches;
//! its tests drive the whole command line through [`run_cli`], as a user would.

/// `println!` for what the harness tells a person on stdout, except that a reader that has
/// gone (`editref conform … | head`) is no error: the run goes on, writes its reports and ends
/// with its own exit status, where `println!` would panic and exit 101. The reports and the
/// status are the run's result; these lines only show it.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, $($arg)*);
    }};
}

/// `print!` with the same leniency as `say!`.
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = write!(out, $($arg)*).and_then(|()| out.flush());
    }};
}

mod args;
mod bench_cmd;
mod browse;
mod fuzz_cmd;
mod live;
mod plan;
mod run_cmd;
mod subcommands;
mod summary;
mod workers;

use crate::load::{self, Corpus};
use args::{ConformCli, Sub};
use browse::{list_cmd, show_cmd};
use clap::Parser;
use run_cmd::run_cmd;
use std::path::{Path, PathBuf};
use subcommands::{manifest_cmd, matrix_cmd};

/// The exit status of a run (or a `list`, or a `show`) that selected no case: a misspelt
/// `--only` must not look like a run that passed (pytest exits 5 here, cargo-nextest 4).
pub const EXIT_NO_CASES: u8 = 4;

/// Entry point of `editref conform`: parses `args` (without the program and subcommand names)
/// and returns the process exit code.
pub fn run_cli(args: &[String]) -> u8 {
    crate::sandbox::fix_umask();
    let argv = std::iter::once("editref conform".to_string()).chain(args.iter().cloned());
    let cli = match ConformCli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Some(Sub::Manifest { corpus, check }) => manifest_cmd(corpus, check),
        Some(Sub::Matrix {
            reports,
            not_run,
            out,
        }) => matrix_cmd(&reports, &not_run, &out),
        Some(Sub::List {
            only,
            level,
            corpus,
        }) => list_cmd(&only, level.map(Into::into), corpus),
        Some(Sub::Show { id, corpus }) => show_cmd(&id, corpus),
        None => run_cmd(cli.run),
    }
}

/// The complete help of `editref conform` (the run's flags, the subcommands, the exit
/// statuses), as `--help` prints it; `editref help conform` shows the same text.
pub fn help_text() -> String {
    use clap::CommandFactory;
    ConformCli::command().render_long_help().to_string()
}

/// The corpus of `--corpus`, else ./conformance/cases when present, else the embedded one.
fn load_corpus(corpus: Option<PathBuf>) -> Result<Corpus, String> {
    let dir = match corpus {
        Some(d) => Some(cases_dir(&d)),
        None => {
            let d = PathBuf::from("conformance/cases");
            d.is_dir().then_some(d)
        }
    };
    match dir {
        Some(d) => {
            load::load_dir(&d).map_err(|e| format!("cannot read the corpus {}: {e}", d.display()))
        }
        None => Ok(load::load_embedded()),
    }
}

/// Reports a usage error; returns the exit code for one (2).
fn usage(msg: &str) -> u8 {
    eprintln!("editref conform: {msg}");
    2
}

/// `--corpus DIR` accepts the cases directory or the directory above it.
fn cases_dir(dir: &Path) -> PathBuf {
    let inner = dir.join("cases");
    if inner.is_dir() && !dir.ends_with("cases") {
        inner
    } else {
        dir.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;
    use crate::run::Status;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// Parses without printing: clap's own errors go straight to the process's stderr, which
    /// a test must not litter.
    fn clap_error(a: &[&str]) -> clap::Error {
        let argv = std::iter::once("editref conform").chain(a.iter().copied());
        ConformCli::try_parse_from(argv).unwrap_err()
    }

    #[test]
    fn usage_errors_exit_2() {
        use clap::error::ErrorKind;
        let e = clap_error(&["--nope"]);
        assert_eq!(e.kind(), ErrorKind::UnknownArgument);
        assert!(e.use_stderr(), "exit 2");
        assert!(
            e.to_string().contains("unexpected argument '--nope'"),
            "{e}"
        );
        assert_eq!(
            clap_error(&["--builtin", "--impl", "x"]).kind(),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(
            clap_error(&["--require", "implementation-defined"]).kind(),
            ErrorKind::InvalidValue
        );
        // Errors found after parsing are printed by the harness itself, through eprintln.
        assert_eq!(run_cli(&args(&[])), 2, "neither --impl nor --builtin");
        assert_eq!(run_cli(&args(&["--builtin", "--timeout", "0"])), 2);
        assert_eq!(run_cli(&args(&["--builtin", "--jobs", "0"])), 2);
        let out = tempfile::tempdir().unwrap();
        let out = out.path().to_string_lossy().into_owned();
        assert_eq!(
            run_cli(&args(&["matrix", "--out", &out])),
            2,
            "a matrix of nothing"
        );
        let help = clap_error(&["--help"]);
        assert_eq!(help.kind(), ErrorKind::DisplayHelp);
        assert!(help.to_string().contains("--expectations <FILE>"));
    }

    #[test]
    fn the_full_help_names_every_option_subcommand_and_exit_status() {
        let help = help_text();
        for needle in [
            "--jobs <N>",
            "--fail-fast",
            "--rerun-failed <REPORT>",
            "--require <LEVEL>",
            "--keep-sandboxes [<DIR>]",
            "--timeout <SECS>",
            "list",
            "show",
            "matrix",
            "manifest",
            "Exit status:",
            "4  no case was selected",
        ] {
            assert!(help.contains(needle), "{needle} missing from:\n{help}");
        }
    }

    #[test]
    fn a_run_over_a_small_corpus_writes_every_report() {
        let dir = tempfile::tempdir().unwrap();
        let cases = dir.path().join("conformance/cases/edit");
        std::fs::create_dir_all(&cases).unwrap();
        std::fs::write(dir.path().join("conformance/VERSION"), "0.1.0\n").unwrap();
        std::fs::write(
            cases.join("one.yaml"),
            "id: edit/one\ntitle: t\nspec: [EDIT-1]\nlevel: core\nrequires: [read, edit]\nsince: \"0.1.0\"\n\
             files:\n  a.txt: {text: \"one\\n\"}\nsteps:\n  - call: {tool: Read, input: {file_path: a.txt}}\n  \
             - call: {tool: Edit, input: {file_path: a.txt, old_string: one, new_string: \"1\"}}\n    \
             expect: {ok: true, output: {replacements: 1}}\nexpect_files:\n  a.txt: {text: \"1\\n\"}\n",
        )
        .unwrap();
        std::fs::write(cases.join("broken.yaml"), "id: edit/broken\nlevel: [\n").unwrap();
        let corpus = dir.path().join("conformance");
        let report = dir.path().join("out");
        let code = run_cli(&args(&[
            "--builtin",
            "--quiet",
            "--corpus",
            corpus.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ]));
        assert_eq!(code, 1, "the broken case is a harness error");
        let r: Report =
            serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
                .unwrap();
        assert_eq!(r.cases.len(), 2);
        assert_eq!(r.cases[0].status, Status::HarnessError);
        assert_eq!(r.cases[1].status, Status::Pass, "{:?}", r.cases[1]);
        for f in ["junit.xml", "report.tap", "summary.md"] {
            assert!(report.join(f).is_file(), "{f}");
        }
        std::fs::remove_file(cases.join("broken.yaml")).unwrap();
        let c = corpus.to_str().unwrap();
        assert_eq!(run_cli(&args(&["manifest", "--corpus", c, "--check"])), 1);
        assert_eq!(run_cli(&args(&["manifest", "--corpus", c])), 0);
        assert_eq!(run_cli(&args(&["manifest", "--corpus", c, "--check"])), 0);
        let exp = dir.path().join("known.txt");
        std::fs::write(&exp, "edit/one # listed but passes\n").unwrap();
        assert_eq!(
            run_cli(&args(&[
                "--builtin",
                "-q",
                "--corpus",
                c,
                "--expectations",
                exp.to_str().unwrap()
            ])),
            1,
            "xpass"
        );
        assert_eq!(run_cli(&args(&["--builtin", "-q", "--corpus", c])), 0);
        let rj = report.join("report.json");
        let m = dir.path().join("m");
        assert_eq!(
            run_cli(&args(&[
                "matrix",
                rj.to_str().unwrap(),
                rj.to_str().unwrap(),
                "--out",
                m.to_str().unwrap()
            ])),
            0
        );
        assert!(m.join("matrix.html").is_file());
    }
}
