//! The implementation a run names — `--impl`, `--mcp` (with its translation flags) or
//! `--builtin` — made into an adapter, and how a report names the command. A certification run,
//! a fuzzing campaign and a benchmark all start one the same way.

use super::args::RunArgs;
use crate::adapter::{Builtin, ReadFormat};
use crate::mcp::inputs::{ErrorRules, InputMap};
use crate::mcp::mapping::{self, ToolMap};
use crate::mcp::Mcp;
use crate::run::BoxedAdapter;
use crate::subprocess::Subprocess;
use std::time::Duration;

/// The `--mcp` adapter with its `--mcp-tools`, `--mcp-input`, `--mcp-error` and
/// `--mcp-features`.
fn mcp_adapter(args: &RunArgs, command: &str, timeout: Duration) -> Result<Mcp, String> {
    let mut adapter = Mcp::new(command, timeout, !args.show_stderr)?;
    if let Some(spec) = &args.mcp_tools {
        adapter = adapter.with_tools(ToolMap::parse(spec)?);
    }
    if !args.mcp_input.is_empty() {
        adapter = adapter.with_inputs(InputMap::parse(&args.mcp_input)?);
    }
    if !args.mcp_error.is_empty() {
        adapter = adapter.with_errors(ErrorRules::parse(&args.mcp_error)?);
    }
    if let Some(spec) = &args.mcp_features {
        adapter = adapter.with_features(mapping::parse_features(spec));
    }
    if let Some(f) = &args.mcp_read_format {
        let format = ReadFormat::parse(f).ok_or_else(|| {
            format!("--mcp-read-format {f}: the formats are tab, arrow and plain")
        })?;
        adapter = adapter.with_read_format(format);
    }
    Ok(adapter)
}

/// One adapter for the implementation `args` name, and how the report names its command.
pub(super) fn make_adapter(
    args: &RunArgs,
    timeout: Duration,
) -> Result<(BoxedAdapter, String), String> {
    match (&args.implementation, &args.mcp, args.builtin) {
        (Some(cmd), None, false) => Ok((
            Box::new(Subprocess::new(cmd, timeout, !args.show_stderr)),
            cmd.clone(),
        )),
        (None, Some(cmd), false) => Ok((
            Box::new(mcp_adapter(args, cmd, timeout)?),
            format!("mcp: {cmd}"),
        )),
        (None, None, true) => Ok((Box::new(Builtin::new(timeout)), "builtin".into())),
        _ => Err(
            "say what to certify: --impl \"COMMAND\", --mcp \"COMMAND\" or --builtin (see --help)"
                .into(),
        ),
    }
}

/// The command as a report shows it: paths under the directory the harness runs in are made
/// relative to it, so that a report committed with a project names no machine's paths.
pub(super) fn portable(command: &str) -> String {
    match std::env::current_dir() {
        Ok(dir) if dir.parent().is_some() => {
            let prefix = format!("{}/", dir.display());
            command.replace(&prefix, "")
        }
        _ => command.to_string(),
    }
}
