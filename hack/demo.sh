#!/usr/bin/env bash
# The main job on the built-in sample, offline: resolve a build from the sample release browser.
set -euo pipefail
cd "$(dirname "$0")/.."
export RHCOS_BASE_URL="${RHCOS_BASE_URL:-file://$PWD/hack/sample/releases}"
export RHCOS_DEFAULT_CHANNEL="${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"
osimage() { node bin/osimage "$@"; }

echo "== builds"
osimage builds
echo
echo "== resolve"
osimage resolve

# --- payload: the OS container into the MCO manifests, MachineConfigs, a check, the bootimage ---
payload_dir="$(mktemp -d "${TMPDIR:-/tmp}/osimage-demo-payload.XXXXXX")"
trap 'rm -rf "$payload_dir"' EXIT
os_image="$(osimage resolve -o json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).osContainer))')"
mkdir -p "$payload_dir/operators/machine-config-operator"
echo
echo "== payload write (twice: the second run changes nothing)"
osimage payload write --dir "$payload_dir/operators/machine-config-operator"
osimage payload write --dir "$payload_dir/operators/machine-config-operator" --os-image "$os_image"
echo
echo "== payload render + merge"
osimage payload render --os-image "$os_image" --role master --role worker --out "$payload_dir/mcs"
osimage payload merge --role master -o name "$payload_dir/mcs"
echo
echo "== payload check"
cat > "$payload_dir/release-images.json" <<JSON
{"kind": "ImageStream", "apiVersion": "image.openshift.io/v1",
 "spec": {"tags": [{"name": "machine-os-content", "from": {"kind": "DockerImage", "name": "$os_image"}}]}}
JSON
osimage payload check --dir "$payload_dir/operators" --images "$payload_dir/release-images.json"
echo
echo "== payload bootimages"
osimage payload bootimages --dir "$payload_dir/operators/machine-config-operator"

# --- pin: on a temp copy of hack/release.sh (the real one is never touched) ---
pin_dir="$(mktemp -d "${TMPDIR:-/tmp}/osimage-demo-pin.XXXXXX")"
trap 'rm -rf "${payload_dir:-}" "$pin_dir"' EXIT
cp hack/release.sh "$pin_dir/release.sh"
echo
echo "== pin --check (the pins as the copy writes them; the sample stands in as a mirror)"
osimage pin --check --write "$pin_dir/release.sh" --base-url "$RHCOS_BASE_URL"
echo
echo "== pin --meta (keeps the copy's build; the base URL comes from the environment: the sample)"
osimage pin --write "$pin_dir/release.sh" --meta "$pin_dir/rhcos.json"
echo
echo "== promote (tests the newest build, pins it only if the test passes)"
osimage promote --write "$pin_dir/release.sh" --meta "$pin_dir/rhcos.json" \
  --test 'echo "smoke test of $RHCOS_BUILD_NAME"; test -n "$RHCOS_BUILD_NAME"'
echo
echo "== pin --check --meta, then pin --latest again (nothing changes)"
osimage pin --check --write "$pin_dir/release.sh" --meta "$pin_dir/rhcos.json"
osimage pin --write "$pin_dir/release.sh" --meta "$pin_dir/rhcos.json" --latest

# --- release: read the sample release payload image (an OCI archive built by hack/sample/make-release.mjs) ---
echo
echo "== release info (offline: oci-archive:)"
osimage release info oci-archive:hack/sample/release.oci-archive:4.13.1
echo "== release info --image-for machine-os-content"
osimage release info --image-for machine-os-content oci-archive:hack/sample/release.oci-archive:4.13.1

# --- verify: does a release payload ship the bootimage's OS image? (offline) ---
echo
echo "== verify: the sample release image against the build hack/release.sh pins (it drifts: exit 1 expected)"
# The sample payload's machine-os-content is 413.92.202305231734-0 and the pinned build is 412.86.…: verify
# reports the drift (payload newer: a pivot and reboot on first boot) and exits 1. Any other status fails the demo.
rc=0
osimage verify --write hack/release.sh --base-url "$RHCOS_BASE_URL" \
  --release oci-archive:hack/sample/release.oci-archive:4.13.1 || rc=$?
[ "$rc" -eq 1 ]
echo
echo "== release new + verify: a payload assembled with the resolved build's OS container is consistent (exit 0)"
cp "$payload_dir/release-images.json" "$payload_dir/operators/image-references"
osimage release new --from-dir "$payload_dir/operators" --name 4.12.99 --to-file "$payload_dir/release.tar"
osimage verify --release "oci-archive:$payload_dir/release.tar"
echo
echo "== release info --changes-from: the sample release to the one just assembled"
osimage release info --changes-from oci-archive:hack/sample/release.oci-archive:4.13.1 "oci-archive:$payload_dir/release.tar"
