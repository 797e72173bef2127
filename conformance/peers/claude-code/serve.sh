#!/bin/sh
# Starts Claude Code's own MCP server (`claude mcp serve`) for one conformance case.
#
# The harness runs this with the case's sandbox as working directory. Claude Code keeps its
# settings, project memory and session files under $HOME, so every server gets a HOME of its
# own, made empty here and removed when the server exits: no case sees another's state, and
# nothing of the real user's configuration is read. No account or model is involved; the
# server only runs its tools.
set -u
home=$(mktemp -d "${TMPDIR:-/tmp}/claude-code-home.XXXXXX") || exit 1
trap 'rm -rf "$home"' EXIT HUP INT TERM
# Keep it quiet and local: no update check, no telemetry, no error reporting.
HOME="$home" \
DISABLE_AUTOUPDATER=1 \
DISABLE_TELEMETRY=1 \
DISABLE_ERROR_REPORTING=1 \
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    "$PEER_HOME/node_modules/.bin/claude" mcp serve
