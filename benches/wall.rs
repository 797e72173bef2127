//! Wall-clock benches (criterion) of the five tools through the public API, as an embedding
//! agent calls them: Read, Edit, replace_all, MultiEdit, Write, the curly-quote fallback and a
//! not_found with its hint, over 1 KB / 1 MB / 10 MB / 100 MB inputs stored as UTF-8 LF, CRLF
//! or UTF-16LE; how the engine's cost grows with the edits of one MultiEdit (1 to 10,000); and
//! the hint alone, typical and at its worst (a 16 KiB old string against 100 MB made to defeat
//! its pre-pass).
//!
//! These numbers are for trends and local optimisation work (criterion baselines, critcmp); on
//! shared machines they are noisy, so the regression gate is the instruction-count bench
//! (`benches/instructions.rs`, `scripts/bench-compare`). fsync is off here so that the figures
//! measure editref rather than the disk; `scripts/bench-floor` measures the whole process with
//! fsync on.
//!
//! Inputs are generated on first use and kept in memory for the run. Edits toggle between two
//! same-length strings (A→B, then B→A), so every iteration does the full work on a file of the
//! same size without restoring it. Sizes can be limited with `EDITREF_BENCH_SIZES=1K,1M`.

mod common;

use common::Form;
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use editref::engine::{self, EditRequest};
use editref::matching::closest_regions;
use editref::{Config, Session};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

const ALL_SIZES: [usize; 4] = [1 << 10, 1 << 20, 10 << 20, 100 << 20];

/// The sizes to run: all four unless `EDITREF_BENCH_SIZES` names some.
fn sizes() -> Vec<usize> {
    match std::env::var("EDITREF_BENCH_SIZES") {
        Ok(list) => ALL_SIZES
            .into_iter()
            .filter(|&s| list.split(',').any(|l| l.trim() == common::size_label(s)))
            .collect(),
        Err(_) => ALL_SIZES.to_vec(),
    }
}

thread_local! {
    static TEXTS: RefCell<HashMap<(&'static str, usize), std::rc::Rc<String>>> =
        RefCell::new(HashMap::new());
}

/// A generated text, built once per run.
fn text(kind: &'static str, size: usize) -> std::rc::Rc<String> {
    TEXTS.with(|t| {
        t.borrow_mut()
            .entry((kind, size))
            .or_insert_with(|| {
                std::rc::Rc::new(match kind {
                    "needle" => common::source_with_needle(size),
                    "tokens" => common::source_with_tokens(size).0,
                    "curly" => common::source_with_curly_quotes(size),
                    "multi" => common::source_with(
                        size,
                        7,
                        &[
                            (0.25, "    let first_marker_a = 1;"),
                            (0.5, "    let second_marker_a = 2;"),
                            (0.75, "    let third_marker_a = 3;"),
                        ],
                    ),
                    other => unreachable!("unknown input kind {other}"),
                })
            })
            .clone()
    })
}

/// A file in its own temp directory, and a one-shot session (no read-before-write, fsync off).
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Fixture {
    fn new(bytes: &[u8]) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("file.txt");
        std::fs::write(&path, bytes).expect("write input");
        Fixture { _dir: dir, path }
    }

    fn path(&self) -> &str {
        self.path.to_str().expect("utf-8 temp path")
    }
}

fn session(dir: &Path) -> Session {
    let mut config = Config::new(dir).one_shot();
    config.fsync = false;
    Session::new(config)
}

/// Runs `call` on alternating inputs (A→B, then B→A) so that every iteration succeeds.
fn toggling(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    fixture: &Fixture,
    tool: &str,
    forward: Value,
    back: Value,
) {
    let s = session(fixture.path.parent().expect("parent"));
    let flip = Cell::new(false);
    c.bench_function(id, |b| {
        b.iter(|| {
            let input = if flip.get() { &back } else { &forward };
            flip.set(!flip.get());
            black_box(s.call(tool, input).expect("bench call succeeds"))
        })
    });
}

/// Group settings by input size: modest sample counts, flat sampling for the big inputs.
fn configure(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, size: usize) {
    g.throughput(Throughput::Bytes(size as u64));
    if size >= 10 << 20 {
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(if size >= 100 << 20 { 8 } else { 3 }));
    } else {
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
    }
}

fn edit(c: &mut Criterion) {
    for form in [Form::Lf, Form::Crlf, Form::Utf16Le] {
        for size in sizes() {
            let mut g = c.benchmark_group(format!("edit/{}", form.name()));
            configure(&mut g, size);
            let f = Fixture::new(&form.encode(&text("needle", size)));
            let input = |old: &str, new: &str| json!({"file_path": f.path(), "old_string": old, "new_string": new});
            toggling(
                &mut g,
                BenchmarkId::from_parameter(common::size_label(size)),
                &f,
                "Edit",
                input(common::NEEDLE_A, common::NEEDLE_B),
                input(common::NEEDLE_B, common::NEEDLE_A),
            );
            g.finish();
        }
    }
}

fn replace_all(c: &mut Criterion) {
    for form in [Form::Lf, Form::Crlf, Form::Utf16Le] {
        for size in sizes() {
            if form != Form::Lf && size != 10 << 20 {
                continue; // other encodings only at the size of the budget's target
            }
            let mut g = c.benchmark_group(format!("replace_all/{}", form.name()));
            configure(&mut g, size);
            let f = Fixture::new(&form.encode(&text("tokens", size)));
            let input = |old: &str, new: &str| {
                json!({"file_path": f.path(), "old_string": old, "new_string": new,
                       "replace_all": true})
            };
            toggling(
                &mut g,
                BenchmarkId::from_parameter(common::size_label(size)),
                &f,
                "Edit",
                input(common::TOKEN_A, common::TOKEN_B),
                input(common::TOKEN_B, common::TOKEN_A),
            );
            g.finish();
        }
    }
}

/// replace_all of an identifier used once on every line (a rename): 1,000 to 100,000 lines.
/// Each hit's line is its own region, so the cost grows with the lines; it once grew with
/// their square, the whole run of touching lines being diffed as one region.
fn rename_every_line(c: &mut Criterion) {
    let mut g = c.benchmark_group("replace_all_every_line/lf");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for lines in [1_000usize, 3_000, 10_000, 30_000, 100_000] {
        let text: String = (0..lines)
            .map(|i| format!("let v{i} = old_name;\n"))
            .collect();
        let f = Fixture::new(text.as_bytes());
        let input = |old: &str, new: &str| {
            json!({"file_path": f.path(), "old_string": old, "new_string": new,
                   "replace_all": true})
        };
        toggling(
            &mut g,
            BenchmarkId::from_parameter(lines),
            &f,
            "Edit",
            input("old_name", "new_name"),
            input("new_name", "old_name"),
        );
    }
    g.finish();
}

fn multi_edit(c: &mut Criterion) {
    for size in sizes() {
        let mut g = c.benchmark_group("multi_edit/lf");
        configure(&mut g, size);
        let f = Fixture::new(text("multi", size).as_bytes());
        let edits = |from: &str, to: &str| {
            let e: Vec<Value> = ["first", "second", "third"]
                .iter()
                .map(|w| {
                    json!({"old_string": format!("{w}_marker_{from}"),
                           "new_string": format!("{w}_marker_{to}")})
                })
                .collect();
            json!({"file_path": f.path(), "edits": e})
        };
        toggling(
            &mut g,
            BenchmarkId::from_parameter(common::size_label(size)),
            &f,
            "MultiEdit",
            edits("a", "b"),
            edits("b", "a"),
        );
        g.finish();
    }
}

/// Edits per MultiEdit, 1 to 10,000 unique renames spread over a 10 MB text, through the
/// engine (the tool takes at most 1,000 edits per call; the engine has no such limit). The cost
/// is one pass over the text plus a little per edit: it once grew with edits × text size.
fn multi_edit_scale(c: &mut Criterion) {
    let size = 10 << 20;
    let mut g = c.benchmark_group("multi_edit_scale/lf_10M");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3));
    for n in [1usize, 10, 100, 1_000, 10_000] {
        let mut lines = common::source_lines(size, 5);
        let step = lines.len() / n;
        for j in 0..n {
            lines[j * step] = format!("    let marker_{j:05}_unique = {j};");
        }
        let text = common::join(&lines);
        let edits: Vec<EditRequest> = (0..n)
            .map(|j| {
                EditRequest::new(
                    &format!("marker_{j:05}_unique = {j};"),
                    &format!("marker_{j:05}_renamed = {j};"),
                    false,
                )
            })
            .collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| black_box(engine::apply(&text, &edits).expect("applies").edits.len()))
        });
    }
    g.finish();
}

fn write(c: &mut Criterion) {
    for form in [Form::Lf, Form::Utf16Le] {
        for size in sizes() {
            let mut g = c.benchmark_group(format!("write/{}", form.name()));
            configure(&mut g, size);
            let original = text("needle", size);
            let f = Fixture::new(&form.encode(&original));
            let changed = original.replace(common::NEEDLE_A, common::NEEDLE_B);
            toggling(
                &mut g,
                BenchmarkId::from_parameter(common::size_label(size)),
                &f,
                "Write",
                json!({"file_path": f.path(), "content": changed}),
                json!({"file_path": f.path(), "content": original.as_str()}),
            );
            g.finish();
        }
    }
}

fn read(c: &mut Criterion) {
    for form in [Form::Lf, Form::Crlf, Form::Utf16Le] {
        for size in sizes() {
            let mut g = c.benchmark_group(format!("read_tail/{}", form.name()));
            configure(&mut g, size);
            let t = text("needle", size);
            let f = Fixture::new(&form.encode(&t));
            let lines = common::line_count(&t);
            let input = json!({"file_path": f.path(),
                               "offset": lines.saturating_sub(20).max(1), "limit": 10});
            let dir = f.path.parent().expect("parent").to_path_buf();
            g.bench_function(BenchmarkId::from_parameter(common::size_label(size)), |b| {
                // A fresh session per call: the same range twice would be `file_unchanged`.
                b.iter(|| black_box(session(&dir).call("Read", &input).expect("read")))
            });
            g.finish();
        }
    }
}

fn quote_fallback(c: &mut Criterion) {
    for size in sizes() {
        if size > 10 << 20 {
            continue;
        }
        let mut g = c.benchmark_group("quote_fallback/lf");
        configure(&mut g, size);
        let f = Fixture::new(text("curly", size).as_bytes());
        let input = |old: &str, new: &str| json!({"file_path": f.path(), "old_string": old, "new_string": new});
        toggling(
            &mut g,
            BenchmarkId::from_parameter(common::size_label(size)),
            &f,
            "Edit",
            input(common::CURLY_OLD_A, common::CURLY_OLD_B),
            input(common::CURLY_OLD_B, common::CURLY_OLD_A),
        );
        g.finish();
    }
}

fn not_found(c: &mut Criterion) {
    for size in sizes() {
        if size > 10 << 20 {
            continue;
        }
        let mut g = c.benchmark_group("not_found_hint/lf");
        configure(&mut g, size);
        let f = Fixture::new(text("needle", size).as_bytes());
        let input = json!({"file_path": f.path(),
                           "old_string": "let  needle_unique_target = 41 ;",
                           "new_string": "x"});
        let s = session(f.path.parent().expect("parent"));
        g.bench_function(BenchmarkId::from_parameter(common::size_label(size)), |b| {
            b.iter(|| black_box(s.call("Edit", &input).expect_err("not found")))
        });
        g.finish();
    }
}

/// Lines of `line_len` letters drawn from `abcd`, about `total` bytes in all.
fn four_letter_lines(total: usize, line_len: usize, rng: &mut common::Rng) -> String {
    let mut out = String::with_capacity(total);
    while out.len() + line_len < total {
        out.extend((0..line_len).map(|_| char::from(b'a' + rng.below(4) as u8)));
        out.push('\n');
    }
    out
}

/// The hint's worst case (MATCH-6, D33): a 16 KiB old string that is nowhere in a 100 MB file
/// all of whose windows share every character pair with it — random lines over the same four
/// letters — so the pre-pass cannot tell the windows apart, and each of the 32 it keeps is
/// about 60 % like the old string by characters: the character search spends all its work, then
/// the lines are estimated. Lines of 23 letters give the line estimates their largest work (682
/// lines a side, 465,000 pairs of lines); lines of 16 KiB make each window one line.
fn not_found_worst(c: &mut Criterion) {
    let size = 100 << 20;
    if !sizes().contains(&size) {
        return;
    }
    let mut g = c.benchmark_group("not_found_hint_worst/lf_100M");
    configure(&mut g, size);
    for line_len in [23usize, 16 * 1024 - 1] {
        let mut rng = common::Rng::new(line_len as u64);
        let needle = four_letter_lines(16 * 1024 + 1, line_len, &mut rng);
        let text = four_letter_lines(size, line_len, &mut rng);
        assert!(needle.len() <= 16 * 1024 && !text.contains(&needle));
        g.bench_function(BenchmarkId::new("line_len", line_len), |b| {
            b.iter(|| black_box(closest_regions(&text, &needle, 3).len()))
        });
    }
    g.finish();
}

/// The hint alone on a 1 KB source file, for the typical figure next to the worst one.
fn not_found_typical(c: &mut Criterion) {
    let mut g = c.benchmark_group("not_found_hint_typical");
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let text = text("needle", 1 << 10);
    for needle in [
        "let  needle_unique_target = 41 ;",
        "    let needle_unique_targt = 41;\n    let other = 2;",
    ] {
        let lines = needle.lines().count();
        g.bench_function(BenchmarkId::new("lines", lines), |b| {
            b.iter(|| black_box(closest_regions(&text, needle, 3).len()))
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    read,
    edit,
    replace_all,
    rename_every_line,
    multi_edit,
    multi_edit_scale,
    write,
    quote_fallback,
    not_found,
    not_found_typical,
    not_found_worst
);
criterion_main!(benches);
