# Peer recipe for OpenHands' file editor (openhands-aci), sourced by scripts/certify-peers.
PEER_NAME="OpenHands (openhands-aci)"
PEER_VERSION="0.3.3"

# openhands-aci needs Python >= 3.12: take python3.12 from PATH, or pyenv's 3.12.
_peer_python312() {
  if python3.12 -c '' 2>/dev/null; then command -v python3.12; return 0; fi
  if command -v pyenv >/dev/null 2>&1; then
    local v
    v=$(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.[0-9]+)?$' | tail -n 1)
    if [ -n "$v" ] && [ -x "$(pyenv root)/versions/$v/bin/python3.12" ]; then
      echo "$(pyenv root)/versions/$v/bin/python3.12"; return 0
    fi
  fi
  echo "peer openhands: no python3.12 found" >&2
  return 1
}

# Installs the pinned package into a venv at $PEER_HOME/venv and nowhere else.
peer_install() {
  local py="$PEER_HOME/venv/bin/python"
  if [ -x "$py" ] && [ "$("$py" -c 'import importlib.metadata as m; print(m.version("openhands-aci"))' 2>/dev/null)" = "$PEER_VERSION" ]; then
    return 0
  fi
  local base
  base=$(_peer_python312) || return 1
  [ -x "$py" ] || "$base" -m venv "$PEER_HOME/venv" || return 1
  "$py" -m pip install --disable-pip-version-check -q "openhands-aci==$PEER_VERSION"
}

peer_conform() {
  CONFORM=(--impl "'$PEER_HOME/venv/bin/python' '$PEER_SRC/adapter.py'")
}
