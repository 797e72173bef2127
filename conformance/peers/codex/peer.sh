# Codex (OpenAI's coding agent), certified through its apply_patch tool: the adapter turns each
# corpus call into a V4A patch and runs Codex's own binary on it. Sourced by
# scripts/certify-peers with PEER_SRC and PEER_HOME set; see ../README.md.

PEER_NAME="Codex"
PEER_VERSION="0.169.0"

# Installs @openai/codex at PEER_VERSION into $PEER_HOME, and links its native binary as
# $PEER_HOME/bin/apply_patch: run under that name, the binary is Codex's apply_patch.
peer_install() {
    local pkg="$PEER_HOME/node_modules/@openai/codex/package.json"
    if ! { [ -f "$pkg" ] && grep -q "\"version\": \"$PEER_VERSION\"" "$pkg"; }; then
        npm install --prefix "$PEER_HOME" --no-audit --no-fund "@openai/codex@$PEER_VERSION" \
            || return 1
    fi
    # The platform package (e.g. @openai/codex-linux-x64) holds the binary under vendor/.
    local bin
    bin=$(find "$PEER_HOME/node_modules/@openai" -path '*/vendor/*/bin/codex' -type f \
        2>/dev/null | head -n 1)
    if [ -z "$bin" ]; then
        echo "no native codex binary found under $PEER_HOME/node_modules/@openai" >&2
        return 1
    fi
    mkdir -p "$PEER_HOME/bin" && ln -sfn "$bin" "$PEER_HOME/bin/apply_patch"
}

# Codex has no Read tool, no MultiEdit, no replace_all and no dry run: the adapter declares
# edit, write and apply_patch (README.md says why).
peer_conform() {
    CONFORM=(--impl "python3 '$PEER_SRC/adapter.py'")
}
