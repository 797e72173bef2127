//! Deliberately broken edit tools for the differential fuzzer's own tests: the reference
//! ([`Builtin`]) wrapped in [`Faulty`], which lets one [`Fault`] rewrite a call's input or
//! change its reply and the files after it. Each fault below is one bug a real tool could have,
//! and the tests check that the fuzzer finds it, shrinks it and writes it as a replayable case.

use editref_conform::adapter::{Adapter, AdapterError, Builtin, Hello, Reply};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One bug: hooks around the reference's handling of a call. Each hook defaults to no change.
pub trait Fault {
    /// A case starts in `sandbox` (reset what the fault remembers).
    fn case_start(&mut self, _sandbox: &Path) {}
    /// The input the reference is given instead of `input`.
    fn input(&mut self, _tool: &str, input: Value) -> Value {
        input
    }
    /// The reply returned instead of `reply`, after the reference answered (files may be
    /// changed here too).
    fn reply(&mut self, _tool: &str, _input: &Value, reply: Reply) -> Reply {
        reply
    }
}

/// Two faults at once: the first's hooks run first.
impl<A: Fault, B: Fault> Fault for (A, B) {
    fn case_start(&mut self, sandbox: &Path) {
        self.0.case_start(sandbox);
        self.1.case_start(sandbox);
    }
    fn input(&mut self, tool: &str, input: Value) -> Value {
        let input = self.0.input(tool, input);
        self.1.input(tool, input)
    }
    fn reply(&mut self, tool: &str, input: &Value, reply: Reply) -> Reply {
        let reply = self.0.reply(tool, input, reply);
        self.1.reply(tool, input, reply)
    }
}

/// The reference with a fault.
pub struct Faulty<F: Fault> {
    inner: Builtin,
    fault: F,
}

impl<F: Fault> Faulty<F> {
    /// `inner` with `fault`.
    pub fn new(inner: Builtin, fault: F) -> Faulty<F> {
        Faulty { inner, fault }
    }
}

impl<F: Fault> Adapter for Faulty<F> {
    fn hello(&mut self) -> Result<Hello, AdapterError> {
        self.inner.hello()
    }
    fn case_start(&mut self, id: &str, sandbox: &Path) -> Result<(), AdapterError> {
        self.fault.case_start(sandbox);
        self.inner.case_start(id, sandbox)
    }
    fn call(&mut self, seq: u64, tool: &str, input: &Value) -> Result<Reply, AdapterError> {
        let input = self.fault.input(tool, input.clone());
        let reply = self.inner.call(seq, tool, &input)?;
        Ok(self.fault.reply(tool, &input, reply))
    }
    fn case_end(&mut self) -> Result<(), AdapterError> {
        self.inner.case_end()
    }
}

/// After an Edit succeeds, the line break at the end of the line where the new text ends
/// loses its CR (only that line; UTF-8 files only).
pub struct DropsCr;

impl Fault for DropsCr {
    fn reply(&mut self, tool: &str, input: &Value, reply: Reply) -> Reply {
        if tool != "Edit" || !matches!(reply, Reply::Ok(_)) {
            return reply;
        }
        let path = input["file_path"].as_str().unwrap_or_default();
        let new = input["new_string"].as_str().unwrap_or_default();
        let new = new.replace("\r\n", "\n");
        if let Ok(mut bytes) = std::fs::read(path) {
            let hit = (!new.is_empty())
                .then(|| memchr::memmem::find(&bytes, new.as_bytes()))
                .flatten();
            if let Some(at) = hit {
                let end = at + new.len();
                if let Some(nl) = memchr::memchr(b'\n', &bytes[end..]) {
                    let nl = end + nl;
                    if nl > 0 && bytes[nl - 1] == b'\r' {
                        bytes.remove(nl - 1);
                        let _ = std::fs::write(path, &bytes);
                    }
                }
            }
        }
        reply
    }
}

/// Text mode: after an Edit succeeds, every CRLF of the file is LF (the file's other bytes are
/// the reference's).
pub struct CrlfToLf;

impl Fault for CrlfToLf {
    fn reply(&mut self, tool: &str, input: &Value, reply: Reply) -> Reply {
        if tool == "Edit" && matches!(reply, Reply::Ok(_)) {
            let path = input["file_path"].as_str().unwrap_or_default();
            if let Ok(text) = std::fs::read_to_string(path) {
                if text.contains("\r\n") {
                    let _ = std::fs::write(path, text.replace("\r\n", "\n"));
                }
            }
        }
        reply
    }
}

/// No DISK-3: an Edit the reference refuses with `hard_link` is made anyway, the usual way —
/// the new text written to a temp file renamed over the name given, which splits the link.
pub struct SplitsHardLinks;

impl Fault for SplitsHardLinks {
    fn reply(&mut self, tool: &str, input: &Value, reply: Reply) -> Reply {
        let refused = matches!(&reply, Reply::Err(e) if e["code"] == "hard_link");
        if tool != "Edit" || !refused {
            return reply;
        }
        let path = input["file_path"].as_str().unwrap_or_default();
        let (old, new) = (
            input["old_string"].as_str().unwrap_or_default(),
            input["new_string"].as_str().unwrap_or_default(),
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            return reply;
        };
        if old.is_empty() || !text.contains(old) {
            return reply;
        }
        let tmp = format!("{path}.tmp");
        if std::fs::write(&tmp, text.replacen(old, new, 1)).is_err()
            || std::fs::rename(&tmp, path).is_err()
        {
            return reply;
        }
        Reply::Ok(serde_json::json!({
            "filePath": path, "oldString": old, "newString": new, "replaceAll": false,
            "replacements": 1, "repairs": [], "structuredPatch": [], "diff": "",
            "userModified": false
        }))
    }
}

/// A notebook written back after a NotebookEdit is re-indented with two spaces (NOTEBOOK-4
/// asks for Jupyter's one).
pub struct ReindentsNotebooks;

impl Fault for ReindentsNotebooks {
    fn reply(&mut self, tool: &str, input: &Value, reply: Reply) -> Reply {
        if tool == "NotebookEdit" && matches!(reply, Reply::Ok(_)) {
            let path = input["notebook_path"].as_str().unwrap_or_default();
            if let Ok(text) = std::fs::read_to_string(path) {
                if let Ok(v) = serde_json::from_str::<Value>(&text) {
                    let pretty = serde_json::to_string_pretty(&v).unwrap_or_default();
                    let _ = std::fs::write(path, format!("{pretty}\n"));
                }
            }
        }
        reply
    }
}

/// Edit's result carries a field of the tool's own and `replaceAll` as a string.
pub struct Chatty;

impl Fault for Chatty {
    fn reply(&mut self, tool: &str, _input: &Value, reply: Reply) -> Reply {
        match reply {
            Reply::Ok(mut out) if tool == "Edit" => {
                out["message"] = Value::from("edited");
                out["replaceAll"] = Value::from(out["replaceAll"].to_string());
                Reply::Ok(out)
            }
            reply => reply,
        }
    }
}

/// No READ-4: a Read of an unchanged file shows it again.
pub struct AlwaysShows;

impl Fault for AlwaysShows {
    fn reply(&mut self, _tool: &str, input: &Value, reply: Reply) -> Reply {
        match &reply {
            Reply::Ok(out) if out["type"] == "file_unchanged" => {
                let path = input["file_path"].as_str().unwrap_or_default();
                let text = std::fs::read_to_string(path).unwrap_or_default();
                let content: Vec<String> = text
                    .lines()
                    .enumerate()
                    .map(|(i, l)| format!("{}\t{l}", i + 1))
                    .collect();
                Reply::Ok(serde_json::json!({
                    "type": "text",
                    "file": {"filePath": path, "content": content.join("\n")}
                }))
            }
            _ => reply,
        }
    }
}

/// Read marks the end of what it shows: a presentation fault, in every case that reads.
pub struct MarksReads;

impl Fault for MarksReads {
    fn reply(&mut self, tool: &str, _input: &Value, reply: Reply) -> Reply {
        match reply {
            Reply::Ok(mut out) if tool == "Read" => {
                if let Some(Value::String(c)) = out.pointer_mut("/file/content") {
                    c.push_str(" [end]");
                }
                Reply::Ok(out)
            }
            reply => reply,
        }
    }
}

/// Edit's result counts one replacement too many; nothing else changes.
pub struct Miscounts;

impl Fault for Miscounts {
    fn reply(&mut self, tool: &str, _input: &Value, reply: Reply) -> Reply {
        match reply {
            Reply::Ok(mut out) if tool == "Edit" => {
                let n = out["replacements"].as_u64().unwrap_or(0);
                out["replacements"] = serde_json::json!(n + 1);
                Reply::Ok(out)
            }
            reply => reply,
        }
    }
}

/// apply_patch and search_replace write the files they touch with LF line endings only.
#[derive(Default)]
pub struct LfDialects {
    sandbox: PathBuf,
}

impl Fault for LfDialects {
    fn case_start(&mut self, sandbox: &Path) {
        self.sandbox = sandbox.to_path_buf();
    }
    fn reply(&mut self, tool: &str, _input: &Value, reply: Reply) -> Reply {
        if let (Reply::Ok(out), "apply_patch" | "search_replace") = (&reply, tool) {
            for f in out["files"].as_array().into_iter().flatten() {
                let path = self
                    .sandbox
                    .join(f["filePath"].as_str().unwrap_or_default());
                if let Ok(bytes) = std::fs::read(&path) {
                    let lf = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
                    if lf.as_bytes() != bytes && std::str::from_utf8(&bytes).is_ok() {
                        let _ = std::fs::write(&path, lf);
                    }
                }
            }
        }
        reply
    }
}

/// Each path is resolved once, at its first use in a case, and that file is used from then
/// on: a link turned elsewhere between two calls is not followed.
#[derive(Default)]
pub struct CachesLinks {
    seen: BTreeMap<String, String>,
}

impl Fault for CachesLinks {
    fn case_start(&mut self, _sandbox: &Path) {
        self.seen.clear();
    }
    fn input(&mut self, _tool: &str, mut input: Value) -> Value {
        for key in ["file_path", "path"] {
            if let Some(Value::String(p)) = input.get_mut(key) {
                if let Some(resolved) = self.seen.get(p.as_str()) {
                    *p = resolved.clone();
                } else if let Ok(real) = std::fs::canonicalize(p.as_str()) {
                    self.seen
                        .insert(p.clone(), real.to_string_lossy().into_owned());
                }
            }
        }
        input
    }
}
