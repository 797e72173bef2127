# The reference MCP filesystem server (@modelcontextprotocol/server-filesystem), certified
# through `editref conform --mcp`: the harness is its MCP client, one server per case, with
# the case's sandbox as the one allowed directory and the MCP root.
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

# The server's tools take arguments of their own shape (path, edits[{oldText, newText}],
# dryRun, head), so the corpus calls are renamed with --mcp-input templates; its errors are
# text, so the few whose meaning is unambiguous get their SPEC code with --mcp-error. Calls the
# tools cannot express (replace_all, a Read offset, NotebookEdit) are left to the declared
# features: those cases skip. README.md says why each feature is declared.
peer_conform() {
    local server="node '$PEER_HOME/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js' \"\$PWD\""
    CONFORM=(--mcp "$server"
        --mcp-tools "Read=read_text_file,Edit=edit_file,MultiEdit=edit_file,Write=write_file"
        --mcp-input 'Read={"path":"$file_path","head":"$limit"}'
        --mcp-input 'Edit={"path":"$file_path","edits":[{"oldText":"$old_string","newText":"$new_string"}],"dryRun":"$dry_run"}'
        --mcp-input 'MultiEdit={"path":"$file_path","edits":{"$each":"$edits","as":{"oldText":"$old_string","newText":"$new_string"}},"dryRun":"$dry_run"}'
        --mcp-input 'Write={"path":"$file_path","content":"$content"}'
        --mcp-error 'not_found=Could not find exact match'
        --mcp-error 'outside_root=Access denied - path outside allowed directories'
        --mcp-error 'outside_root=Access denied - symlink target outside allowed directories'
        --mcp-error 'file_not_found=ENOENT'
        --mcp-error 'is_directory=EISDIR'
        --mcp-error 'permission_denied=EACCES'
        --mcp-error 'permission_denied=EPERM'
        --mcp-error 'invalid_input=Input validation error'
        --mcp-features "read,edit,multi_edit,write,dry_run,crlf,posix_mode,atomic_write,root_confinement")
}
