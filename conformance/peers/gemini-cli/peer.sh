# Peer recipe for Gemini CLI (npm package @google/gemini-cli-core, the CLI's tool code).
# Sourced by scripts/certify-peers.
PEER_NAME="Gemini CLI"
PEER_VERSION="0.61.0"

# Installs @google/gemini-cli-core at PEER_VERSION into $PEER_HOME.
peer_install() {
  local have
  have=$(node -p "require('$PEER_HOME/node_modules/@google/gemini-cli-core/package.json').version" 2>/dev/null)
  [ "$have" = "$PEER_VERSION" ] && return 0
  npm install --prefix "$PEER_HOME" --no-audit --no-fund "@google/gemini-cli-core@$PEER_VERSION"
}

peer_conform() {
  export PEER_VERSION
  CONFORM=(--impl "node '$PEER_SRC/adapter.mjs'" --timeout 30)
}
