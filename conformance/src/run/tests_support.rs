//! Test fixtures shared by the run modules' tests: a case record with a given id, level and
//! status, and nothing else; a one-call case and an adapter that answers every call.
//!
//! The expectations and the verdicts are both rules over lists of records, and their tests
//! build such lists the same way.

use super::{CaseRecord, Status};

/// A record of `id` at `level` with `status` and a placeholder reason.
pub(super) fn rec(id: &str, level: &str, status: Status) -> CaseRecord {
    CaseRecord {
        id: id.into(),
        area: id.split('/').next().unwrap().into(),
        level: Some(level.into()),
        status,
        reason: "r".into(),
        duration_ms: 0,
        step: None,
        expected: None,
        actual: None,
        diff: None,
        more: vec![],
        failed_classes: vec![],
        not_declared: vec![],
        tool_not_offered: None,
        rejudged: vec![],
        stderr: None,
        about: None,
        rerun: None,
    }
}

/// A core case `id` with one Read that must succeed, and nothing else.
pub(super) fn case(id: &str) -> crate::case::Case {
    let text = format!(
        "id: {id}\ntitle: t\nspec: [X-1]\nlevel: core\nrequires: [edit]\nsince: \"0.1.0\"\n\
         files:\n  a.txt: {{text: \"a\"}}\nsteps:\n  - call: {{tool: Read, input: {{file_path: a.txt}}}}\n"
    );
    crate::load::parse_case("t", &format!("{id}.yaml"), text.as_bytes()).unwrap()
}

/// An adapter that answers every call with an empty success.
pub(super) struct Echo;

impl crate::adapter::Adapter for Echo {
    fn hello(&mut self) -> Result<crate::adapter::Hello, crate::adapter::AdapterError> {
        Ok(crate::adapter::Hello {
            name: "echo".into(),
            version: "0".into(),
            features: vec!["edit".into()],
            read_format: crate::check::ReadFormat::Tab,
        })
    }
    fn case_start(
        &mut self,
        _id: &str,
        _sandbox: &std::path::Path,
    ) -> Result<(), crate::adapter::AdapterError> {
        Ok(())
    }
    fn call(
        &mut self,
        _seq: u64,
        _tool: &str,
        _input: &serde_json::Value,
    ) -> Result<crate::adapter::Reply, crate::adapter::AdapterError> {
        Ok(crate::adapter::Reply::Ok(serde_json::json!({})))
    }
    fn case_end(&mut self) -> Result<(), crate::adapter::AdapterError> {
        Ok(())
    }
}
