//! `editref conform --bench`: the benchmark on the command line — the adapter and its
//! handshake, a progress bar, the table of medians and spread, `bench.json`/`bench.md` with
//! `--report`, and the comparison with `--baseline`.
//!
//! Exit status: 0 when every workload that ran was right and none regressed, 1 when one was
//! wrong, failed or regressed, 2 for a usage error or a failed handshake.

use super::adapters::make_adapter;
use super::args::RunArgs;
use super::shared::usage;
use crate::bench::report::{compare, BenchReport};
use crate::bench::{self, workloads};
use crate::report::rfc3339;
use std::io::IsTerminal;
use std::time::{Duration, SystemTime};

/// Runs the benchmark as `args` say; returns the exit status.
pub(super) fn bench_cmd(args: &RunArgs) -> u8 {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return usage("--timeout must be a positive number of seconds");
    }
    let b = &args.bench;
    if b.repetitions == 0 {
        return usage("--repetitions must be at least 1");
    }
    if !(b.max_regression.is_finite() && b.max_regression >= 0.0) {
        return usage("--max-regression must be a percentage, 0 or more");
    }
    let baseline = match &b.baseline {
        None => None,
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<BenchReport>(&t).map_err(|e| e.to_string()))
        {
            Ok(r) => Some(r),
            Err(e) => return usage(&format!("cannot read the baseline {}: {e}", p.display())),
        },
    };
    // A 100 MB edit over a slow protocol takes a while: the per-call timeout is at least a
    // minute here.
    let timeout = Duration::from_secs_f64(args.timeout.max(60.0));
    let (mut adapter, command) = match make_adapter(args, timeout) {
        Ok(a) => a,
        Err(e) => return usage(&e),
    };
    let hello = match super::workers::patient_hello(adapter.as_mut()) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("editref conform: the adapter failed the handshake: {e}");
            return 2;
        }
    };
    let implementation = args
        .label
        .clone()
        .unwrap_or_else(|| format!("{} {}", hello.name, hello.version));
    let set: Vec<_> = workloads::all(b.large)
        .into_iter()
        .filter(|w| {
            args.only.is_empty() || args.only.iter().any(|g| crate::run::glob_match(g, w.name))
        })
        .collect();
    if set.is_empty() {
        eprintln!("editref conform: --only matches no workload");
        return super::shared::EXIT_NO_CASES;
    }
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{bar:30}] {pos}/{len} runs {elapsed}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let started = rfc3339(SystemTime::now());
    let results = bench::run(
        adapter.as_mut(),
        &hello.features,
        hello.read_format,
        &set,
        b.repetitions,
        None,
        &mut |p| {
            if let Some(bar) = &bar {
                bar.set_length(p.total as u64);
                bar.set_position(p.done as u64);
            }
        },
    );
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    adapter.shutdown();
    let report = BenchReport {
        schema: 1,
        set: workloads::SET.into(),
        implementation,
        command,
        started,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        repetitions: b.repetitions,
        results,
    };
    let markdown = report.to_markdown();
    say_raw!("{markdown}");
    let mut code = u8::from(
        report
            .results
            .iter()
            .any(|r| r.status == "wrong" || r.status == "failed"),
    );
    let mut comparison = None;
    if let Some(base) = &baseline {
        match compare(&report, base, b.max_regression) {
            Ok(c) => {
                say!("\nAgainst the baseline ({}):\n\n{}", base.started, c.table);
                if !c.regressions.is_empty() {
                    say!(
                        "Slower than +{}%: {}",
                        b.max_regression,
                        c.regressions.join(", ")
                    );
                    code = 1;
                }
                comparison = Some(c.table);
            }
            Err(e) => return usage(&e),
        }
    }
    if let Some(dir) = &args.report {
        let json = serde_json::to_string_pretty(&report).unwrap_or_default();
        let md = match &comparison {
            Some(t) => format!("{markdown}\n## Against the baseline\n\n{t}"),
            None => markdown,
        };
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join("bench.json"), json + "\n"))
            .and_then(|()| std::fs::write(dir.join("bench.md"), md));
        if let Err(e) = written {
            eprintln!("editref conform: cannot write {}: {e}", dir.display());
            return 2;
        }
    }
    code
}
