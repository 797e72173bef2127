//! `editref conform`: the command line of the harness.
//!
//! `main.rs` hands the raw arguments over, so the harness owns its own flags and help text and
//! can be driven from tests as a function (`run_cli(&args) -> exit code`).
//!
//! The command line is split by what each part decides: `args` defines the flags and the help
//! text, `shared` what every command shares (the corpus it reads, usage errors), `adapters` the
//! implementation a run names, `plan` checks and selects what a run includes, `run_cmd` runs a
//! certification, `live` shows it while it runs, `summary` prints its outcome, `fuzz_cmd` runs a
//! differential fuzzing campaign instead, `bench_cmd` a benchmark, `browse` holds `list` and
//! `show`, and `subcommands` holds `manifest`, `matrix` and `rejudge`. This file parses the arguments and
//! dispatches; its tests drive the whole command line through [`run_cli`], as a user would.

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

mod adapters;
mod args;
mod bench_cmd;
mod browse;
mod fuzz_cmd;
mod live;
mod plan;
mod run_cmd;
mod shared;
mod subcommands;
mod summary;
mod workers;

use args::{ConformCli, Sub};
use browse::{list_cmd, show_cmd};
use clap::Parser;
use run_cmd::run_cmd;
pub use shared::EXIT_NO_CASES;
use subcommands::{manifest_cmd, matrix_cmd, rejudge_cmd};

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
        Some(Sub::Rejudge { reports, corpus }) => rejudge_cmd(&reports, corpus),
        None if cli.run.fuzz.fuzz => fuzz_cmd::fuzz_cmd(&cli.run),
        None if cli.run.bench.bench => bench_cmd::bench_cmd(&cli.run),
        None => run_cmd(cli.run),
    }
}

/// The complete help of `editref conform` (the run's flags, the subcommands, the exit
/// statuses), as `--help` prints it; `editref help conform` shows the same text.
pub fn help_text() -> String {
    use clap::CommandFactory;
    ConformCli::command().render_long_help().to_string()
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
        // An unknown class or level in a gate is a usage error, and says what is allowed.
        for bad in ["implementation-defined", "bytes:core", "data:full", "data:"] {
            let e = clap_error(&["--builtin", "--require", bad]);
            assert_eq!(e.kind(), ErrorKind::ValueValidation, "{bad}");
            assert!(e.use_stderr(), "exit 2");
        }
        assert!(clap_error(&["--builtin", "--require", "bytes:core"])
            .to_string()
            .contains("the classes are data, capability, contract, presentation"));
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
            "--require <[CLASS:]LEVEL>",
            "--write-expectations <FILE>",
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
