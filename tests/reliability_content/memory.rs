//! The memory side of the hostile-content suite: each input's peak RSS against the bytes it
//! handles, above the baseline of the same binary, with the bound PATH-4 sets (see the crate
//! documentation of `reliability_content`).

use crate::reliability_support as rs;
use serde_json::{json, Value};

/// PATH-4's "small multiple", made exact: peak RSS above the baseline at most this many times
/// the bytes the call handles (request, file and reply), for inputs of [`LARGE`] and more.
pub const MEMORY_FACTOR: u64 = 3;
/// Inputs from this size on are held to [`MEMORY_FACTOR`]: the ratio the report shows.
pub const LARGE: u64 = 1 << 20;
/// Below [`LARGE`], the fixed costs of a code path (the reports of 1,000 edits, a parser's
/// stack for 10,000 levels) outweigh the input, so a ratio says nothing; the bound is this much
/// above the baseline instead — far below what loading a 2 GiB sparse file or building a
/// 10,000-deep tree per level would take.
pub const SMALL_ALLOWANCE: u64 = 16 << 20;

/// The program a hostile input goes to: its [`baseline`] differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// `editref call`.
    Call,
    /// `editref serve`.
    Serve,
}

/// The peak RSS of the same binary answering a trivial call — a Read of a one-line file through
/// `editref call`, a hello and a bye through `editref serve` — the least of three runs, measured
/// once per test process. It is what the program costs before it handles any input (its code,
/// the C library, the allocator's first arenas), measured rather than assumed, and it is the
/// only thing subtracted before the input's share of the peak is compared with
/// [`MEMORY_FACTOR`].
pub fn baseline(program: Program) -> u64 {
    static CALL: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static SERVE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let cell = match program {
        Program::Call => &CALL,
        Program::Serve => &SERVE,
    };
    *cell.get_or_init(|| {
        let sandbox = rs::sandbox();
        let dir = sandbox.path();
        std::fs::write(dir.join("one.txt"), "one line\n").expect("write");
        (0..3)
            .map(|_| {
                let run = match program {
                    Program::Call => rs::run_measured(
                        dir,
                        &["call", "--no-fsync"],
                        Some(br#"{"tool":"Read","input":{"file_path":"one.txt"}}"#.to_vec()),
                    ),
                    Program::Serve => rs::run_measured(
                        dir,
                        &["serve", "--no-fsync"],
                        Some(b"{\"type\":\"hello\",\"protocol\":1}\n{\"type\":\"bye\"}\n".to_vec()),
                    ),
                };
                run.assert_answered(&format!("the trivial call of {program:?}"));
                run.max_rss
            })
            .min()
            .unwrap_or(0)
    })
}

/// Peak RSS per handled byte, to two decimals.
fn per_byte(bytes: u64, handled: u64) -> f64 {
    (bytes as f64 / handled.max(1) as f64 * 100.0).round() / 100.0
}

/// The figures of one suite of hostile inputs.
pub struct Hostile {
    pub rec: rs::Record,
    tried: u64,
    /// Largest peak RSS per handled byte, raw, over the inputs of [`LARGE`] and more.
    worst_ratio: f64,
    /// The same above the baseline.
    worst_above: f64,
    peak: u64,
    cases: Vec<Value>,
}

impl Hostile {
    pub fn new(test: &'static str) -> Hostile {
        Hostile {
            rec: rs::Record::new("content", test),
            tried: 0,
            worst_ratio: 0.0,
            worst_above: 0.0,
            peak: 0,
            cases: Vec::new(),
        }
    }

    /// Checks that `run` (of `editref call`) answered by itself within the memory bound for
    /// `handled` bytes (the request and the file it works on; the reply is added here).
    pub fn check(&mut self, what: &str, run: &rs::Run, handled: u64) {
        self.check_program(what, run, handled, Program::Call);
    }

    /// [`Hostile::check`] for a run of `program`.
    pub fn check_program(&mut self, what: &str, run: &rs::Run, handled: u64, program: Program) {
        run.assert_answered(what);
        let handled = handled + run.stdout.len() as u64;
        self.tried += 1;
        let base = baseline(program);
        let above = run.max_rss.saturating_sub(base);
        let large = handled >= LARGE;
        let (ratio, ratio_above) = (per_byte(run.max_rss, handled), per_byte(above, handled));
        if large {
            self.worst_ratio = self.worst_ratio.max(ratio);
            self.worst_above = self.worst_above.max(ratio_above);
        }
        self.peak = self.peak.max(run.max_rss);
        self.cases.push(json!({
            "input": what,
            "handled_mb": handled as f64 / 1048576.0,
            "peak_rss_mb": (run.max_rss as f64 / 1048576.0 * 10.0).round() / 10.0,
            "baseline_mb": (base as f64 / 1048576.0 * 10.0).round() / 10.0,
            "rss_per_byte": if large { json!(ratio) } else { Value::Null },
            "rss_above_baseline_per_byte": if large { json!(ratio_above) } else { Value::Null },
            "elapsed_ms": run.elapsed.as_millis() as u64,
        }));
        let mib = |b: u64| b as f64 / 1048576.0;
        if large {
            assert!(
                above <= MEMORY_FACTOR * handled,
                "{what}: peak RSS {:.1} MiB is {ratio_above:.2} × the {:.1} MiB handled above the \
                 baseline of {:.1} MiB ({ratio:.2} × raw); the bound is {MEMORY_FACTOR} ×",
                mib(run.max_rss),
                mib(handled),
                mib(base)
            );
        } else {
            assert!(
                above <= SMALL_ALLOWANCE,
                "{what}: peak RSS {:.1} MiB is {:.1} MiB above the baseline of {:.1} MiB for \
                 {} bytes handled; the bound is {} MiB",
                mib(run.max_rss),
                mib(above),
                mib(base),
                handled,
                SMALL_ALLOWANCE >> 20
            );
        }
    }

    pub fn write(mut self, corrupted: u64) {
        self.rec
            .set("hostile_inputs", self.tried)
            .set("peak_rss_mb", self.peak >> 20)
            .set("worst_rss_per_input_byte", self.worst_ratio)
            .set("worst_rss_above_baseline_per_input_byte", self.worst_above)
            .set("memory_factor", MEMORY_FACTOR)
            .set("small_allowance_mib", SMALL_ALLOWANCE >> 20)
            .set("baseline_call_kib", baseline(Program::Call) >> 10)
            .set("baseline_serve_kib", baseline(Program::Serve) >> 10)
            .set("cases", Value::Array(self.cases))
            .set("corrupted", corrupted);
        self.rec.write();
    }
}
