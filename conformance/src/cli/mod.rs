//! `editref conform`: the command line of the harness.
//!
//! `main.rs` hands the raw arguments over, so the harness owns its own flags and help text and
//! can be driven from tests as a function (`run_cli(&args) -> exit code`).
//!
//! The command line is split by what each part decides: `args` defines the flags and the help
//! text, `run_cmd` runs a certification, `summary` prints its outcome, and `subcommands` holds
//! `manifest` and `matrix`. This file parses the arguments and dispatches; its tests drive the
//! whole command line through [`run_cli`], as a user would.

mod args;
mod run_cmd;
mod subcommands;
mod summary;

use args::{ConformCli, Sub};
use clap::Parser;
use run_cmd::run_cmd;
use std::path::{Path, PathBuf};
use subcommands::{manifest_cmd, matrix_cmd};

/// Entry point of `editref conform`: parses `args` (without the program and subcommand names)
/// and returns the process exit code.
pub fn run_cli(args: &[String]) -> u8 {
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
        Some(Sub::Matrix { reports, out }) => matrix_cmd(&reports, &out),
        None => run_cmd(cli.run),
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

    #[test]
    fn usage_errors_exit_2() {
        assert_eq!(run_cli(&args(&["--nope"])), 2);
        assert_eq!(run_cli(&args(&[])), 2, "neither --impl nor --builtin");
        assert_eq!(run_cli(&args(&["--builtin", "--impl", "x"])), 2);
        assert_eq!(run_cli(&args(&["--builtin", "--timeout", "0"])), 2);
        let help = ConformCli::try_parse_from(["editref conform", "--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(help.to_string().contains("--expectations <FILE>"));
        assert_eq!(run_cli(&args(&["matrix", "--out", "/tmp/x"])), 2);
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
