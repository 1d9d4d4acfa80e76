#!/usr/bin/env bash
# The package as a user gets it: `npm pack` (prepack builds it), then `npm install -g` of the tarball into an empty
# prefix (from npm's cache, which `npm ci` filled, as far as it can: see below), then the installed osimage from another
# folder: --help, --version, `completion bash` sourced in bash, its man page, and a real offline command on the
# sample release browser. It checks the tarball ships no V8 code cache, no source map and no build info. Then
# uninstalls. Run by .ci/run after `npm ci`; by hand: bash hack/pack-check.sh.
set -euo pipefail
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
cd "$(dirname "$0")/.."
repo=$PWD
work="$(mktemp -d "${TMPDIR:-/tmp}/osimage-pack.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "pack-check: $*" >&2; exit 1; }
step() { printf 'pack-check: %s\n' "$*"; }

step "npm pack (prepack: npm run build)"
tarball="$(npm pack --silent --pack-destination "$work" | tail -n 1)"
tgz="$work/$tarball"
[ -f "$tgz" ] || fail "npm pack made no tarball ($tarball)"
files="$(tar -tzf "$tgz")"
for want in package/bin/osimage package/dist/bundle/bundle.json package/dist/bundle/cli.cjs package/dist/bundle/loader.cjs package/dist/bundle/help.txt \
  package/dist/man/osimage.1 package/LICENSE package/README.md package/package.json; do
  grep -qx "$want" <<<"$files" || fail "$tarball lacks $want"
done
# Nothing made for one machine or one checkout: code caches, source maps without their sources, tsc's build info.
if bad="$(grep -E '/code-cache/|\.map$|tsbuildinfo|^package/(src|test)/' <<<"$files")"; then
  fail "$tarball ships $(wc -l <<<"$bad") files it must not, such as: $(head -n 5 <<<"$bad" | tr '\n' ' ')"
fi
step "$tarball: $(wc -l <<<"$files") files, $(du -k "$tgz" | cut -f1) KiB"

step "npm install -g into an empty prefix"
prefix="$work/prefix"
mkdir -p "$prefix" "$work/elsewhere" "$work/home"
install() { npm install -g --no-audit --no-fund --prefix "$prefix" "$@" "$tgz" >"$work/install.log" 2>&1; }
# Offline when npm's cache can answer. `npm ci` caches the dependencies' tarballs but not the registry's package
# documents, which a global install of a tarball reads to resolve its dependencies (it has no lockfile): then the
# documents come from the registry and the tarballs still from the cache.
if ! install --offline; then
  grep -q ENOTCACHED "$work/install.log" || { cat "$work/install.log" >&2; fail "npm install -g failed"; }
  step "(npm's cache lacks the registry's package documents: --prefer-offline, tarballs from the cache)"
  install --prefer-offline || { cat "$work/install.log" >&2; fail "npm install -g failed"; }
fi
bin="$prefix/bin/osimage"
[ -x "$bin" ] || fail "no $bin after install"

# From another folder, with a home of its own: the installed copy makes its own caches at run time.
cd "$work/elsewhere"
export HOME="$work/home" XDG_CACHE_HOME="$work/home/.cache" XDG_STATE_HOME="$work/home/.local/state"
unset RHCOS_BASE_URL RHCOS_DEFAULT_CHANNEL RHCOS_BUILD_NAME OSIMAGE_CACHE_DIR

step "osimage --help"
"$bin" --help | grep -q '^Usage: osimage ' || fail "--help prints no usage"

step "osimage --version"
version="$(node -p "require('$repo/package.json').version")"
first="$("$bin" --version | head -n 1)"
[ "$first" = "osimage $version" ] || fail "--version says '$first', not 'osimage $version'"
"$bin" version -o json | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); if (v.node !== process.version) process.exit(1)' ||
  fail "version -o json does not name this Node.js"

step "osimage completion bash, sourced in bash: osimage rel<TAB>"
reply="$(bash --norc --noprofile -c 'source <("$1" completion bash); COMP_WORDS=(osimage rel); COMP_CWORD=1; _osimage; printf "%s\n" "${COMPREPLY[@]}"' bash "$bin")"
[ "$reply" = release ] || fail "completion of 'osimage rel' gave '$reply'"

step "man osimage (the page npm installed under the prefix)"
page="$prefix/share/man/man1/osimage.1"
[ -f "$page" ] || fail "npm installed no man page at $page"
if command -v man >/dev/null; then
  MANPATH="$prefix/share/man" MANPAGER=cat MANWIDTH=100 man --warnings osimage 2>"$work/man.err" | grep -q 'osimage release info' ||
    fail "man osimage does not show the command reference"
  [ ! -s "$work/man.err" ] || fail "man warned: $(cat "$work/man.err")"
elif command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$page" || fail "groff could not render $page"
else
  echo "pack-check: skipped rendering the man page: neither man nor groff is installed" >&2
fi

step "an offline command from another folder: osimage builds on the sample release browser"
out="$("$bin" builds --base-url "file://$repo/hack/sample/releases" --channel rhcos-4.12 -o json)"
node -e 'const b = JSON.parse(process.argv[1]); if (!Array.isArray(b.builds) || b.builds.length === 0) process.exit(1)' "$out" ||
  fail "builds -o json listed no builds: $out"
"$bin" release info --image-for machine-os-content "oci-archive:$repo/hack/sample/release.oci-archive:4.13.1" >/dev/null ||
  fail "release info on the sample release archive failed"

step "npm uninstall -g"
npm uninstall -g --prefix "$prefix" osimage >/dev/null
[ ! -e "$bin" ] || fail "$bin is still there after uninstall"
step ok
