//! What the shell and `man` know about editref, generated from the clap definitions in
//! `args.rs`: `editref completions SHELL` prints a completion script, `editref man` the man
//! pages (roff), so neither can drift from `--help`.

use super::args::Cli;
use clap::CommandFactory;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// `editref completions SHELL`: the script on stdout.
pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "editref", &mut script);
    finish(
        std::io::stdout().write_all(&script),
        "the completion script",
    )
}

/// `editref man [--out DIR]`: `editref.1` on stdout, or every page (`editref.1` and
/// `editref-SUBCOMMAND.1`) written into DIR, which is created if missing.
pub fn man(out: Option<&Path>) -> ExitCode {
    // Built as `generate_to` builds it, so that the page on stdout is the same `editref.1`.
    let mut cmd = Cli::command();
    cmd.build();
    match out {
        None => finish(
            clap_mangen::Man::new(cmd).render(&mut std::io::stdout()),
            "the man page",
        ),
        Some(dir) => {
            let written =
                std::fs::create_dir_all(dir).and_then(|()| clap_mangen::generate_to(cmd, dir));
            if written.is_err() {
                return finish(written, "the man pages");
            }
            // The pages are written; saying where is a courtesy a closed pipe may decline.
            finish(
                writeln!(std::io::stdout(), "man pages written to {}", dir.display()),
                "where the man pages went",
            )
        }
    }
}

/// Exit 0 when written, or when the reader went away (`editref man | head`); exit 1 with the
/// error otherwise.
fn finish(written: std::io::Result<()>, what: &str) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("editref: could not write {what}: {e}");
            ExitCode::from(1)
        }
    }
}
