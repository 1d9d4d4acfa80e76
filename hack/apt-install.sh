#!/usr/bin/env bash
# apt-install.sh WHO PACKAGE...: install Debian packages with apt-get (through sudo when not root).
# Callers decide what is missing; this only installs it. WHO names the caller in messages.
set -euo pipefail
who="$1"
shift
[ "$#" -gt 0 ] || exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "$who: need $* but not root and no sudo; install them and rerun" >&2
    exit 1
  fi
fi

echo "$who: installing $*" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
