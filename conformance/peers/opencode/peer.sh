# Peer recipe for OpenCode (npm package opencode-ai). Sourced by scripts/certify-peers.
PEER_NAME="OpenCode"
PEER_VERSION="1.18.33"

# Installs opencode-ai at PEER_VERSION into $PEER_HOME. The package brings its native
# binary as a per-platform optional dependency from the same registry.
peer_install() {
  local have
  have=$(node -p "require('$PEER_HOME/node_modules/opencode-ai/package.json').version" 2>/dev/null)
  [ "$have" = "$PEER_VERSION" ] && [ -x "$PEER_HOME/node_modules/.bin/opencode" ] && return 0
  npm install --prefix "$PEER_HOME" --no-audit --no-fund "opencode-ai@$PEER_VERSION" || return 1
  "$PEER_HOME/node_modules/.bin/opencode" --version
}

# Every call starts a whole OpenCode process (seconds each), hence the longer per-call timeout.
peer_conform() {
  export PEER_VERSION
  CONFORM=(--impl "node '$PEER_SRC/adapter.mjs'" --timeout 40)
}
