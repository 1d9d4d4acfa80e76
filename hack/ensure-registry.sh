#!/usr/bin/env bash
# Make sure the system tools the registry tests start are installed: the distribution registry
# (Debian package docker-registry) and htpasswd (apache2-utils) for its Basic-auth mode.
# A no-op when both are there, so `npm test` costs nothing on a machine that has them.
set -euo pipefail

missing=()
[ -x /usr/bin/docker-registry ] || missing+=(docker-registry)
command -v htpasswd >/dev/null 2>&1 || missing+=(apache2-utils)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "ensure-registry: need ${missing[*]} but not root and no sudo; install them and rerun" >&2
    exit 1
  fi
fi

echo "ensure-registry: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
