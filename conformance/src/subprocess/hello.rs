//! The adapter's `hello` reply: protocol 1, the implementation's name and version, the
//! features it declares and the format its Read returns.

use crate::adapter::{AdapterError, Hello, ReadFormat};
use serde_json::Value;

/// The `hello` reply as a [`Hello`]; a reply without protocol 1 or a `features` list, or with
/// an unknown `read_format`, is a crash.
pub(super) fn parse_hello(reply: &Value) -> Result<Hello, AdapterError> {
    if reply.get("protocol").and_then(Value::as_u64) != Some(1) {
        return Err(AdapterError::Crash(format!(
            "the adapter speaks protocol {}, not 1",
            reply.get("protocol").unwrap_or(&Value::Null)
        )));
    }
    let imp = reply.get("implementation");
    let field = |k: &str| {
        imp.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    let features = match reply.get("features") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => {
            return Err(AdapterError::Crash(
                "the hello reply has no `features` list".into(),
            ))
        }
    };
    let read_format = match reply.get("read_format") {
        None | Some(Value::Null) => ReadFormat::Tab,
        Some(v) => v.as_str().and_then(ReadFormat::parse).ok_or_else(|| {
            AdapterError::Crash(format!(
                "the hello reply's `read_format` is {v}; it is one of \"tab\", \"arrow\", \"plain\""
            ))
        })?,
    };
    Ok(Hello {
        name: field("name"),
        version: field("version"),
        features,
        read_format,
    })
}
