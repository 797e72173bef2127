# Peer recipe for Gemini CLI (npm package @google/gemini-cli-core, the CLI's tool code).
# Sourced by scripts/certify-peers and by scripts/mcp-setups.
PEER_NAME="Gemini CLI"
PEER_VERSION="0.61.0"

# Installs @google/gemini-cli-core, which the adapter certifies, and @google/gemini-cli, whose
# `gemini` command scripts/mcp-setups runs to check the README's MCP snippet, both at
# PEER_VERSION, into $PEER_HOME.
peer_install() {
  local core cli
  core=$(node -p "require('$PEER_HOME/node_modules/@google/gemini-cli-core/package.json').version" 2>/dev/null)
  cli=$(node -p "require('$PEER_HOME/node_modules/@google/gemini-cli/package.json').version" 2>/dev/null)
  [ "$core" = "$PEER_VERSION" ] && [ "$cli" = "$PEER_VERSION" ] && return 0
  npm install --prefix "$PEER_HOME" --no-audit --no-fund \
    "@google/gemini-cli-core@$PEER_VERSION" "@google/gemini-cli@$PEER_VERSION"
}

peer_conform() {
  export PEER_VERSION
  CONFORM=(--impl "node '$PEER_SRC/adapter.mjs'" --timeout 30)
}
