# Claude Code, certified through its own MCP server (`claude mcp serve`).
# Sourced by scripts/certify-peers with PEER_SRC and PEER_HOME set; see ../README.md.

PEER_NAME="Claude Code"
PEER_VERSION="2.1.331"

# Installs @anthropic-ai/claude-code at PEER_VERSION into $PEER_HOME, and nowhere else.
peer_install() {
    local pkg="$PEER_HOME/node_modules/@anthropic-ai/claude-code/package.json"
    if [ -f "$pkg" ] && grep -q "\"version\": \"$PEER_VERSION\"" "$pkg" \
        && [ -x "$PEER_HOME/node_modules/.bin/claude" ]; then
        return 0
    fi
    npm install --prefix "$PEER_HOME" --no-audit --no-fund \
        "@anthropic-ai/claude-code@$PEER_VERSION"
}

# The server lists Read, Edit, Write and NotebookEdit (no MultiEdit). The features are
# declared by hand, because the harness would otherwise credit a server that lists four of
# the five tools with nothing beyond them; README.md says why each one is (or is not) here.
peer_conform() {
    CONFORM=(--mcp "'$PEER_SRC/serve.sh'" --mcp-read-format plain
             --mcp-features "read,edit,write,notebook_edit,replace_all,crlf,utf8_bom,utf16le,curly_quotes,structured_patch")
}
