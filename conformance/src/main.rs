//! `editref-conform`: the conformance harness as a program of its own. `editref conform …`
//! runs it with the same arguments, so either spelling certifies an implementation.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(editref_conform::run_cli(&args))
}
