#!/usr/bin/env bash
# Make sure the system tools the tests start are installed: the distribution registry (Debian package
# docker-registry), htpasswd (apache2-utils) for its Basic-auth mode, openssl; and the independent tools the tests
# check osimage against: skopeo (dir:, docker-archive:, simple signing), gpg (GPG signatures), zsh and fish
# (completion scripts), man (the installed page). A no-op when all are there, so `npm test` costs nothing on a
# machine that has them.
set -euo pipefail

missing=()
[ -x /usr/bin/docker-registry ] || missing+=(docker-registry)
command -v htpasswd >/dev/null 2>&1 || missing+=(apache2-utils)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/bin/skopeo ] || missing+=(skopeo)
[ -x /usr/bin/gpg ] || missing+=(gnupg)
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
command -v fish >/dev/null 2>&1 || missing+=(fish)
command -v man >/dev/null 2>&1 || missing+=(man-db)

bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" ensure-registry ${missing[@]+"${missing[@]}"}
