//! DISK-1 under the classic failures, each pinned to its error code: ENOSPC, EIO on write and
//! on fsync, a short write, EACCES on the directory, a failing rename, a failing fchmod. After
//! each, nothing has changed and the same session completes the call.
//!
//! The suite is one binary in modules by kind of fault; the scenarios (one tool call each, with
//! the tree it must produce) and their sandbox are shared from `main.rs`.

use crate::{code, rs, scenario, setup, UPDATERS, WRITERS};
use editref::disk::{Fault, Op};

/// What the named faults came to: calls made, faults that fired, refusals with the expected
/// code and with another one (each counted, so the report shows what happened).
#[derive(Default)]
struct Tally {
    calls: u64,
    fired: u64,
    right_code: u64,
    wrong_code: Vec<String>,
}

/// Injects one fault into the call of each named scenario and checks the code, that nothing
/// changed, and that the same session then completes the call.
fn named(tally: &mut Tally, names: &[&str], op: Op, n: u64, fault: Fault, want: &str) {
    for name in names {
        let s = scenario(name);
        let t = setup(&s);
        t.fail(op, n, fault);
        let r = t.call(&s);
        let what = format!("{name} with {fault:?} at {op:?} #{n}");
        tally.calls += 1;
        if code(&r) == want {
            tally.right_code += 1;
        } else {
            tally.wrong_code.push(format!("{what}: {r:?}"));
        }
        t.assert_untouched(&s, &what);
        tally.fired += t.fs.injected();
        let again = t.call(&s);
        assert!(again.is_ok(), "{what}: the retry failed: {again:?}");
        t.assert_done(&s, &format!("{what}, retried"));
    }
}

/// [`named`] on a file system without unnamed temp files: the unnamed create answers
/// EOPNOTSUPP (both times, call and retry), the named fallback's first `op` fails with `fault`.
fn named_without_unnamed_files(
    tally: &mut Tally,
    names: &[&str],
    op: Op,
    fault: Fault,
    want: &str,
) {
    for name in names {
        let s = scenario(name);
        let t = setup(&s);
        t.fail(Op::CreateUnnamed, 1, Fault::Errno(libc::EOPNOTSUPP));
        t.fail(Op::CreateUnnamed, 2, Fault::Errno(libc::EOPNOTSUPP));
        t.fail(op, 1, fault);
        let r = t.call(&s);
        let what = format!("{name} without O_TMPFILE, {fault:?} at {op:?} #1");
        tally.calls += 1;
        if code(&r) == want {
            tally.right_code += 1;
        } else {
            tally.wrong_code.push(format!("{what}: {r:?}"));
        }
        t.assert_untouched(&s, &what);
        // The EOPNOTSUPP is absorbed by the fallback; the fault that counts is the other one.
        tally.fired += t.fs.injected().saturating_sub(1);
        let again = t.call(&s);
        assert!(again.is_ok(), "{what}: the retry failed: {again:?}");
        t.assert_done(&s, &format!("{what}, retried"));
    }
}

#[test]
fn named_faults_give_the_right_code_and_change_nothing() {
    let mut rec = rs::Record::new("faults", "named");
    let mut t = Tally::default();
    // ENOSPC while writing the temp file, outright and after half the bytes.
    named(
        &mut t,
        &WRITERS,
        Op::WriteAll,
        1,
        Fault::Errno(libc::ENOSPC),
        "io",
    );
    named(&mut t, &WRITERS, Op::WriteAll, 1, Fault::ShortWrite, "io");
    // EIO on write and on fsync.
    named(
        &mut t,
        &WRITERS,
        Op::WriteAll,
        1,
        Fault::Errno(libc::EIO),
        "io",
    );
    named(&mut t, &WRITERS, Op::Sync, 1, Fault::Errno(libc::EIO), "io");
    // EACCES on the directory: the temp file cannot be created (unnamed, as on this file
    // system; named, as on one without unnamed files).
    named(
        &mut t,
        &WRITERS,
        Op::CreateUnnamed,
        1,
        Fault::Errno(libc::EACCES),
        "permission_denied",
    );
    named_without_unnamed_files(
        &mut t,
        &WRITERS,
        Op::CreateExclusive,
        Fault::Errno(libc::EACCES),
        "permission_denied",
    );
    // A failing rename (I/O error, busy, cross-device).
    for errno in [libc::EIO, libc::EBUSY, libc::EXDEV] {
        named(&mut t, &UPDATERS, Op::Rename, 1, Fault::Errno(errno), "io");
        named(
            &mut t,
            &["write_create", "edit_create"],
            Op::LinkTemp,
            1,
            Fault::Errno(errno),
            "io",
        );
        named_without_unnamed_files(
            &mut t,
            &["write_create", "edit_create"],
            Op::RenameNoreplace,
            Fault::Errno(errno),
            "io",
        );
    }
    // fchmod failing.
    named(
        &mut t,
        &WRITERS,
        Op::SetMode,
        1,
        Fault::Errno(libc::EPERM),
        "permission_denied",
    );
    rec.set("calls", t.calls)
        .set("faults_injected", t.fired)
        .set("refused_with_code", t.right_code)
        .set("wrong_code", t.wrong_code.len() as u64);
    rec.write();
    assert!(
        t.wrong_code.is_empty(),
        "refused with another code: {:#?}",
        t.wrong_code
    );
}
