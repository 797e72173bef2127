//! A busy machine is no verdict on a tool: a case whose call misses its limit runs again once
//! the others are done, alone and with five times the limits, and is `timeout` only when the
//! tool does not answer then either. Shown with `slow_adapter.py`, whose first call in a case
//! named `slow` never answers (it blocks on a FIFO nobody writes, so the first attempt times out
//! on any machine, at any speed) while every later process answers at once, and whose calls in a
//! case named `hang` never answer at all. The cases are Reads of one file (READ-1).

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_editref-conform");

/// A core case with one Read that must succeed, whose calls may take at most two seconds.
fn read_case(id: &str) -> String {
    format!(
        "id: {id}\ntitle: a read\nspec: [READ-1]\nlevel: core\nrequires: [read]\nsince: \"0.1.0\"\n\
         timeout: 2\nfiles:\n  a.txt: {{text: \"one\\n\"}}\nsteps:\n  - call: {{tool: Read, input: {{file_path: a.txt}}}}\n"
    )
}

fn corpus(dir: &Path, ids: &[&str]) {
    std::fs::write(dir.join("VERSION"), "0.1.0\n").unwrap();
    for id in ids {
        let file = dir.join("cases").join(format!("{id}.yaml"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, read_case(id)).unwrap();
    }
}

#[test]
fn a_slow_tool_is_judged_on_its_answer_and_a_hanging_one_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    corpus(root, &["read/a", "read/b-slow", "read/c", "read/d-hang"]);
    let adapter = format!(
        "python3 {}/tests/slow_adapter.py {}",
        env!("CARGO_MANIFEST_DIR"),
        root.display()
    );
    let out = root.join("out");
    // The outer `timeout` only guards the test against a harness that never gives up; the run
    // takes seconds (a limit of 2 s, then 10 s for the case that hangs).
    let run = Command::new("timeout")
        .arg("600")
        .arg(BIN)
        .args(["--impl", &adapter, "--corpus"])
        .arg(root)
        .args(["--timeout", "60", "--jobs", "3", "--report"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        run.status.code(),
        Some(1),
        "a core case that hangs fails the run\n{stdout}\n{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let case = |id: &str| {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id} not in {report}"))
            .clone()
    };
    // The cases that answer at once pass (on a very busy machine perhaps only at their second
    // attempt, which is the point).
    for id in ["read/a", "read/c"] {
        assert_eq!(case(id)["status"], "pass", "{}", case(id));
    }
    let first = "step 1: no reply to call 1 (Read) within 2.0 s";
    let slow = case("read/b-slow");
    assert_eq!(slow["status"], "pass", "{slow}");
    assert_eq!(slow["rerun"], first, "{slow}");
    let hang = case("read/d-hang");
    assert_eq!(hang["status"], "timeout", "{hang}");
    assert_eq!(hang["rerun"], first, "{hang}");
    assert_eq!(
        hang["reason"],
        format!("step 1: no reply to call 1 (Read) within 10.0 s (run again alone with 5× the limits after the first attempt's {first})"),
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("answered only when run again alone with 5× the limits (a busy machine or a slow tool): "))
        .unwrap_or_else(|| panic!("no line of cases answered only at their second attempt:\n{stdout}"));
    assert!(
        line.contains("read/b-slow") && !line.contains("read/d-hang"),
        "{line}"
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("## Answered only when run again (")
            && summary.contains(&format!("| `read/b-slow` | pass | {first} |")),
        "{summary}"
    );
}
