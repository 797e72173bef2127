//! DISK-1 under the classic failures, each pinned to its error code: ENOSPC, EIO on write and
//! on fsync, a short write, EACCES on the directory, a failing rename, a failing fchmod. After
//! each, nothing has changed and the same session completes the call.
//!
//! The suite is one binary in modules by kind of fault; the scenarios (one tool call each, with
//! the tree it must produce) and their sandbox are shared from `main.rs`.

use crate::{code, rs, scenario, setup, UPDATERS, WRITERS};
use editref::disk::{Fault, Op};

/// Injects one fault into the call of each named scenario and checks the code, that nothing
/// changed, and that the same session then completes the call. Returns how many calls ran and
/// how many faults fired.
fn named(names: &[&str], op: Op, n: u64, fault: Fault, want: &str) -> (u64, u64) {
    let mut fired = 0;
    for name in names {
        let s = scenario(name);
        let t = setup(&s);
        t.fail(op, n, fault);
        let r = t.call(&s);
        let what = format!("{name} with {fault:?} at {op:?} #{n}");
        assert_eq!(code(&r), want, "{what}: {r:?}");
        t.assert_untouched(&s, &what);
        fired += t.fs.injected();
        let again = t.call(&s);
        assert!(again.is_ok(), "{what}: the retry failed: {again:?}");
        t.assert_done(&s, &format!("{what}, retried"));
    }
    (names.len() as u64, fired)
}

#[test]
fn named_faults_give_the_right_code_and_change_nothing() {
    let mut rec = rs::Record::new("faults", "named");
    let mut fired = 0;
    let mut calls = 0;
    let mut tally = |(c, f): (u64, u64)| {
        calls += c;
        fired += f;
    };
    // ENOSPC while writing the temp file, outright and after half the bytes.
    tally(named(
        &WRITERS,
        Op::WriteAll,
        1,
        Fault::Errno(libc::ENOSPC),
        "io",
    ));
    tally(named(&WRITERS, Op::WriteAll, 1, Fault::ShortWrite, "io"));
    // EIO on write and on fsync.
    tally(named(
        &WRITERS,
        Op::WriteAll,
        1,
        Fault::Errno(libc::EIO),
        "io",
    ));
    tally(named(&WRITERS, Op::Sync, 1, Fault::Errno(libc::EIO), "io"));
    // EACCES on the directory: the temp file cannot be created.
    tally(named(
        &WRITERS,
        Op::CreateExclusive,
        1,
        Fault::Errno(libc::EACCES),
        "permission_denied",
    ));
    // A failing rename (I/O error, busy, cross-device).
    for errno in [libc::EIO, libc::EBUSY, libc::EXDEV] {
        tally(named(&UPDATERS, Op::Rename, 1, Fault::Errno(errno), "io"));
        tally(named(
            &["write_create", "edit_create"],
            Op::RenameNoreplace,
            1,
            Fault::Errno(errno),
            "io",
        ));
    }
    // fchmod failing.
    tally(named(
        &WRITERS,
        Op::SetMode,
        1,
        Fault::Errno(libc::EPERM),
        "permission_denied",
    ));
    rec.set("calls", calls)
        .set("faults_injected", fired)
        .set("refused_with_code", calls);
    rec.write();
}
