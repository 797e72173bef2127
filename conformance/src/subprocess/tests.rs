//! The `--impl` adapter against a small Python adapter that misbehaves on request, and hello
//! replies a harness must refuse.

use super::*;
use crate::adapter::ReadFormat;

/// A tiny Python adapter that misbehaves on request: the `old_string` of an Edit says how.
const SCRIPT: &str = r#"
import json, sys, time, os
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        out = {"type": "hello", "protocol": 1, "implementation": {"name": "t", "version": "0"}, "features": ["edit"]}
    elif t == "case_start":
        out = {"type": "ready"}
    elif t == "case_end":
        out = {"type": "done"}
    elif t == "bye":
        sys.exit(0)
    else:
        how = m["input"].get("how")
        sys.stderr.write("doing " + str(how) + "\n"); sys.stderr.flush()
        if how == "hang":
            time.sleep(600)
        if how == "exit":
            os._exit(3)
        if how == "garbage":
            print("oops, a debug print", flush=True)
            continue
        if how == "wrong_seq":
            out = {"type": "result", "seq": m["seq"] + 7, "ok": True, "output": {}}
        elif how == "error":
            out = {"type": "result", "seq": m["seq"], "ok": False, "error": {"code": "not_found", "message": "x"}}
        else:
            out = {"type": "result", "seq": m["seq"], "ok": True, "output": {"how": how}}
    print(json.dumps(out), flush=True)
"#;

/// Long enough for a Python process to start and answer on a machine many times slower than
/// usual: only a call that hangs ever reaches it.
const PATIENT: Duration = Duration::from_secs(60);

fn adapter(dir: &Path) -> Subprocess {
    let script = dir.join("adapter.py");
    std::fs::write(&script, SCRIPT).unwrap();
    Subprocess::new(&format!("python3 {}", script.display()), PATIENT, true)
}

fn call(a: &mut Subprocess, how: &str) -> Result<Reply, AdapterError> {
    a.case_start("x/y", Path::new("/tmp"))?;
    // The case's own cap, as the corpus gives cases meant to hang: the hanging call sleeps far
    // longer than it, so it times out on any machine, and no other call comes near it.
    a.set_case_timeout(Some(Duration::from_secs(1)));
    let r = a.call(1, "Edit", &json!({"how": how}));
    a.set_case_timeout(None);
    let _ = a.case_end();
    r
}

#[test]
fn crash_timeout_and_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = adapter(dir.path());
    let hello = a.hello().unwrap();
    assert_eq!(hello.features, vec!["edit"]);
    assert_eq!(
        call(&mut a, "fine").unwrap(),
        Reply::Ok(json!({"how": "fine"}))
    );
    // After a graceful shutdown every byte the adapter wrote to stderr has been collected.
    a.shutdown();
    assert!(a.take_stderr().contains("doing fine"));
    assert_eq!(
        call(&mut a, "error").unwrap(),
        Reply::Err(json!({"code": "not_found", "message": "x"}))
    );

    // Answered at all, the hang would be `Ok`: a timeout is the only way back before it ends.
    match call(&mut a, "hang") {
        Err(AdapterError::Timeout(m)) => assert!(m.contains("call 1 (Edit) within 1.0 s"), "{m}"),
        other => panic!("{other:?}"),
    }
    // The next case gets a new process.
    assert_eq!(
        call(&mut a, "again").unwrap(),
        Reply::Ok(json!({"how": "again"}))
    );

    match call(&mut a, "exit") {
        Err(AdapterError::Crash(m)) => assert!(m.contains("exited"), "{m}"),
        other => panic!("{other:?}"),
    }
    match call(&mut a, "garbage") {
        Err(AdapterError::Crash(m)) => assert!(m.contains("not JSON"), "{m}"),
        other => panic!("{other:?}"),
    }
    match call(&mut a, "wrong_seq") {
        Err(AdapterError::Crash(m)) => assert!(m.contains("out of turn"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        call(&mut a, "last").unwrap(),
        Reply::Ok(json!({"how": "last"}))
    );
    a.shutdown();
    assert!(a.proc.is_none());
}

#[test]
fn hello_may_declare_its_read_format() {
    let hello = |extra: Value| {
        let mut h = json!({"type": "hello", "protocol": 1, "features": []});
        if let (Value::Object(h), Value::Object(e)) = (&mut h, extra) {
            h.extend(e);
        }
        parse_hello(&h)
    };
    assert_eq!(hello(json!({})).unwrap().read_format, ReadFormat::Tab);
    assert_eq!(
        hello(json!({"read_format": "arrow"})).unwrap().read_format,
        ReadFormat::Arrow
    );
    match hello(json!({"read_format": "numbered"})) {
        Err(AdapterError::Crash(m)) => assert!(m.contains("read_format"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_command_that_is_no_adapter() {
    for cmd in [
        "printf 'hello\\n'; sleep 5",
        "exit 4",
        "true",
        "no-such-command-xyz",
    ] {
        let mut a = Subprocess::new(cmd, PATIENT, true);
        match a.hello() {
            Err(AdapterError::Crash(_)) => {}
            other => panic!("{cmd}: {other:?}"),
        }
    }
    // Silence far longer than the limit: a timeout on any machine.
    let mut a = Subprocess::new("sleep 600", Duration::from_millis(300), true);
    assert!(matches!(a.hello(), Err(AdapterError::Timeout(_))));
    let mut a = Subprocess::new(
        r#"read l; echo '{"type":"hello","protocol":2,"features":[]}'"#,
        PATIENT,
        true,
    );
    match a.hello() {
        Err(AdapterError::Crash(m)) => assert!(m.contains("protocol 2"), "{m}"),
        other => panic!("{other:?}"),
    }
}
