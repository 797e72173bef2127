# Peer recipe for pi (Mario Zechner's pi coding agent), sourced by scripts/certify-peers.
PEER_NAME="pi"
PEER_VERSION="0.73.1"
PEER_PACKAGE="@mariozechner/pi-coding-agent"

# Installs the pinned package into $PEER_HOME/node_modules and nowhere else.
peer_install() {
  local pkg_json="$PEER_HOME/node_modules/$PEER_PACKAGE/package.json"
  if [ -f "$pkg_json" ] &&
     [ "$(node -p "require('$pkg_json').version" 2>/dev/null)" = "$PEER_VERSION" ]; then
    return 0
  fi
  npm install --prefix "$PEER_HOME" --no-save --no-audit --no-fund \
    "$PEER_PACKAGE@$PEER_VERSION"
}

peer_conform() {
  CONFORM=(--impl "node '$PEER_SRC/adapter.mjs'")
}
