# Peer recipe for Qwen Code (npm package @qwen-code/qwen-code). Sourced by scripts/certify-peers.
PEER_NAME="Qwen Code"
PEER_VERSION="0.24.4"

# Installs @qwen-code/qwen-code at PEER_VERSION into $PEER_HOME. (The package asks for
# Node 22 in `engines`; npm only warns, and the tool classes load and run on Node 20.)
peer_install() {
  local have
  have=$(node -p "require('$PEER_HOME/node_modules/@qwen-code/qwen-code/package.json').version" 2>/dev/null)
  [ "$have" = "$PEER_VERSION" ] && return 0
  npm install --prefix "$PEER_HOME" --no-audit --no-fund "@qwen-code/qwen-code@$PEER_VERSION"
}

peer_conform() {
  export PEER_VERSION
  CONFORM=(--impl "node '$PEER_SRC/adapter.mjs'" --timeout 30)
}
