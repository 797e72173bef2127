# The reference MCP filesystem server (@modelcontextprotocol/server-filesystem), certified
# through a protocol-v1 adapter that starts the real server per case and speaks MCP to it.
# Sourced by scripts/certify-peers with PEER_SRC and PEER_HOME set; see ../README.md.

PEER_NAME="MCP filesystem server"
PEER_VERSION="2026.8.31"

# Installs @modelcontextprotocol/server-filesystem at PEER_VERSION into $PEER_HOME only.
peer_install() {
    local pkg="$PEER_HOME/node_modules/@modelcontextprotocol/server-filesystem/package.json"
    if [ -f "$pkg" ] && grep -q "\"version\": \"$PEER_VERSION\"" "$pkg"; then
        return 0
    fi
    npm install --prefix "$PEER_HOME" --no-audit --no-fund \
        "@modelcontextprotocol/server-filesystem@$PEER_VERSION"
}

# Not `--mcp`: the harness renames tools but passes the corpus's argument names (file_path,
# old_string, ...) unchanged, and this server's tools take path / edits[{oldText, newText}].
# The adapter renames the arguments and passes the server's answers through.
peer_conform() {
    CONFORM=(--impl "python3 '$PEER_SRC/adapter.py'")
}
