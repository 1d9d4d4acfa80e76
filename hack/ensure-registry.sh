#!/usr/bin/env bash
# Make sure the system tools the registry tests start are installed: the distribution registry
# (Debian package docker-registry) and htpasswd (apache2-utils) for its Basic-auth mode.
# A no-op when both are there, so `npm test` costs nothing on a machine that has them.
set -euo pipefail

missing=()
[ -x /usr/bin/docker-registry ] || missing+=(docker-registry)
command -v htpasswd >/dev/null 2>&1 || missing+=(apache2-utils)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)

bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" ensure-registry ${missing[@]+"${missing[@]}"}
