//! DISK-1 and DISK-5 exhaustively: every file-system call of every scenario failed in every way
//! (EIO, ENOSPC, EACCES, a short write, a simulated crash), one at a time. The result is the
//! exact expected bytes or a coded error with nothing changed (old-or-new bytes and at most an
//! orphan temp file after a crash), and the same session then completes the call.
//!
//! The suite is one binary in modules by kind of fault; the scenarios (one tool call each, with
//! the tree it must produce) and their sandbox are shared from `main.rs`.

use crate::{code, rs, scenarios, setup};
use editref::disk::{Fault, Op};
use std::collections::BTreeSet;
use std::path::Path;

/// Every call of every scenario, failed in every way, one at a time.
#[test]
fn every_call_failed_in_every_way_keeps_old_or_new() {
    let mut rec = rs::Record::new("faults", "sweep");
    let mut injected = 0u64;
    let mut runs = 0u64;
    let mut refused = 0u64;
    let mut absorbed = 0u64;
    let mut crashes = 0u64;
    let mut orphans = 0u64;
    let mut codes: BTreeSet<String> = BTreeSet::new();
    let mut lost = 0u64;
    let mut corrupted = 0u64;
    let mut wrong_code = 0u64;
    let mut failures: Vec<String> = Vec::new();
    for s in scenarios() {
        // The calls this scenario makes, from a clean run.
        let clean = setup(&s);
        let start = clean.fs.log().len();
        let r = clean.call(&s);
        assert!(r.is_ok(), "{}: clean run failed: {r:?}", s.name);
        clean.assert_done(&s, s.name);
        let log = clean.fs.log();
        for p in start..log.len() {
            let op = log[p];
            let n = log[start..=p].iter().filter(|o| **o == op).count() as u64;
            let mut faults = vec![
                Fault::Errno(libc::EIO),
                Fault::Errno(libc::ENOSPC),
                Fault::Errno(libc::EACCES),
                Fault::Crash,
            ];
            if op == Op::WriteAll {
                faults.push(Fault::ShortWrite);
            }
            for fault in faults {
                runs += 1;
                let t = setup(&s);
                t.fail(op, n, fault);
                let r = t.call(&s);
                injected += t.fs.injected();
                let what = format!("{}: {fault:?} at {op:?} #{n}", s.name);
                codes.insert(format!("{op:?}/{fault:?} -> {}", code(&r)));
                if fault == Fault::Crash {
                    crashes += 1;
                    // Old or new bytes per file; orphan temp files are the only residue.
                    for line in t.changes(&s) {
                        let rel = line.split_once(": ").map(|x| x.1).unwrap_or("");
                        let p = Path::new(rel);
                        let is_temp = p
                            .file_name()
                            .is_some_and(|n| editref::disk::is_temp_name(&n.to_string_lossy()));
                        let landed = s.after.iter().any(|(name, text)| {
                            Path::new("root").join(name) == p
                                && std::fs::read(t.top().join(p)).ok().as_deref()
                                    == Some(text.as_bytes())
                        });
                        if line.starts_with("added: ") && is_temp {
                            orphans += 1;
                        } else if !landed {
                            corrupted += 1;
                            failures.push(format!("{what}: {line}"));
                        }
                    }
                    continue;
                }
                match &r {
                    Ok(_) => {
                        absorbed += 1;
                        t.assert_done(&s, &what);
                    }
                    Err(e) => {
                        refused += 1;
                        let want = match fault {
                            Fault::Errno(libc::EACCES) => "permission_denied",
                            _ => "io",
                        };
                        if e.code.as_str() != want {
                            wrong_code += 1;
                            failures.push(format!("{what}: code {} (want {want})", e.code));
                        }
                        let changes = t.changes(&s);
                        if !changes.is_empty() {
                            lost += 1;
                            failures.push(format!("{what}: changed {changes:?}"));
                        }
                        match t.call(&s) {
                            Ok(_) => t.assert_done(&s, &format!("{what}, retried")),
                            Err(e) => {
                                lost += 1;
                                failures.push(format!("{what}: retry failed: {e}"))
                            }
                        }
                    }
                }
            }
        }
    }
    rec.set("runs", runs)
        .set("faults_injected", injected)
        .set("refused_with_code", refused)
        .set("absorbed", absorbed)
        .set("simulated_crashes", crashes)
        .set("crash_orphans", orphans)
        .set("lost", lost)
        .set("corrupted", corrupted)
        .set("wrong_code", wrong_code);
    rec.write();
    if std::env::var_os("EDITREF_RELIABILITY_VERBOSE").is_some() {
        for c in &codes {
            eprintln!("{c}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
