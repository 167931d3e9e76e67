#!/usr/bin/env bash
# install-recess-test.sh checks the release path of install-recess.sh against a local HTTP
# server that plays GitHub's release API and download URLs (python3's http.server serving a
# directory; skipped, and said so, when there is no python3):
#   - an exact release tag: the asset is downloaded, verified and cached;
#   - the same again: taken from the cache, no request made;
#   - a major tag (v9): the newest final v9.x.y release is used, drafts and pre-releases not;
#   - no github.action_ref/action_repository: both read from the runner's _actions/ path;
#   - a wrong sha256 in checksums.txt: refused, exit 1, nothing cached;
#   - no line for the asset in checksums.txt: refused likewise.
# The build-from-source path is what scripts/act-test.sh runs (uses: ./ has no release).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/cmd/recess/install-recess.sh"

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP install-recess-test: python3 is not installed (the release download path is not checked)"
	exit 0
fi
for tool in curl jq timeout; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/recess-install.XXXXXX")
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

www="$work/www"
mkdir -p "$www"
python3 -u -m http.server --bind 127.0.0.1 --directory "$www" 0 >"$work/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -n 1)
	[ -n "$port" ] && break
	kill -0 "$server_pid" 2>/dev/null || fail "http.server exited: $(cat "$work/server.log")"
	sleep 0.1
done
[ -n "$port" ] || fail "http.server printed no port"
base="http://127.0.0.1:$port"
api="$base/api/v3"

# The stand-in binary: it only has to answer --help, as install-recess.sh checks.
printf '#!/bin/sh\nexit 0\n' >"$work/stand-in"
sum=$(sha256sum <"$work/stand-in" | cut -d' ' -f1)
asset=recess_linux_amd64

# release REPO TAG SUMS writes a release of REPO with the stand-in asset and a checksums.txt of
# SUMS, and prints its JSON.
release() {
	local repo=$1 tag=$2 sums=$3 dl="$www/dl/$1/$2"
	mkdir -p "$dl"
	cp "$work/stand-in" "$dl/$asset"
	printf '%s' "$sums" >"$dl/checksums.txt"
	jq -n --arg tag "$tag" --arg dl "$base/dl/$repo/$tag" '{
		tag_name: $tag, draft: false, prerelease: false,
		assets: [
			{name: "recess_linux_amd64", url: "\($dl)/recess_linux_amd64", browser_download_url: "\($dl)/recess_linux_amd64"},
			{name: "checksums.txt", url: "\($dl)/checksums.txt", browser_download_url: "\($dl)/checksums.txt"}
		]}'
}
publish() { # publish REPO TAG SUMS: GET /repos/REPO/releases/tags/TAG answers the release
	mkdir -p "$www/api/v3/repos/$1/releases/tags"
	release "$@" >"$www/api/v3/repos/$1/releases/tags/$2"
}

good="$sum  $asset
0000000000000000000000000000000000000000000000000000000000000000  recess_darwin_arm64
"
publish octo/recess v9.9.9 "$good"
publish octo/bad v1.0.0 "$(printf '%064d  %s\n' 1 "$asset")"
publish octo/noline v1.0.0 "$(printf '%064d  recess_darwin_arm64\n' 1)"
# The release list for the major tag v9 (GET /repos/octo/recess/releases; the static server
# answers it from releases/index.html): newest first, with a draft and a pre-release on top.
{
	release octo/recess v9.10.0 "" | jq '.draft = true'
	release octo/recess v9.11.0-rc.1 "" | jq '.prerelease = true'
	release octo/recess v9.9.9 "$good"
	release octo/recess v8.0.0 "$good"
} | jq -s . >"$www/api/v3/repos/octo/recess/releases/index.html"

requests() { grep -c '"GET ' "$work/server.log" || true; }

# install REPO REF CACHE [ACTION_PATH] runs install-recess.sh as action.yml would on a Linux
# x64 runner.
install() {
	local out="$work/out.$RANDOM"
	: >"$out"
	env RECESS_ACTION_PATH="${4:-$root}" RECESS_ACTION_REPOSITORY="$1" RECESS_ACTION_REF="$2" \
		RECESS_TOKEN=ghs_test RECESS_CACHE_DIR="$3" GITHUB_API_URL="$api" GITHUB_OUTPUT="$out" \
		RUNNER_OS=Linux RUNNER_ARCH=X64 \
		timeout 120 bash "$script" >"$work/stdout" 2>"$work/stderr"
	local status=$?
	sed -n 's/^path=//p' "$out"
	return "$status"
}

check() { printf '   %s\n' "$*"; }

echo "== install-recess.sh against a local release server ($base)"

before=$(requests)
path=$(install octo/recess v9.9.9 "$work/cache1") || fail "exact tag: exit $?: $(cat "$work/stdout" "$work/stderr")"
[ -x "$path" ] || fail "exact tag: no binary at '$path'"
cmp -s "$path" "$work/stand-in" || fail "exact tag: the cached binary is not the release asset"
grep -q 'verified' "$work/stderr" || fail "exact tag: no verification logged: $(cat "$work/stderr")"
check "exact tag v9.9.9: downloaded and verified ($(($(requests) - before)) requests)"

before=$(requests)
path2=$(install octo/recess v9.9.9 "$work/cache1") || fail "cache: exit $?"
[ "$path2" = "$path" ] || fail "cache: path $path2, want $path"
[ "$(requests)" = "$before" ] || fail "cache: $(($(requests) - before)) requests, want none"
check "same again: from the cache, no request"

path=$(install octo/recess v9 "$work/cache2") || fail "major tag: exit $?: $(cat "$work/stdout" "$work/stderr")"
grep -q 'from release v9.9.9 ' "$work/stderr" || fail "major tag: did not use v9.9.9: $(cat "$work/stderr")"
check "major tag v9: used v9.9.9 (not the draft, not the pre-release)"

# Where composite actions get no github.action_ref/action_repository, the runner's layout
# (.../_actions/OWNER/REPO/REF) tells them.
mkdir -p "$work/runner/_actions/octo/recess"
ln -s "$root" "$work/runner/_actions/octo/recess/v9.9.9"
path=$(install "" "" "$work/cache3" "$work/runner/_actions/octo/recess/v9.9.9") ||
	fail "action path: exit $?: $(cat "$work/stdout" "$work/stderr")"
grep -q 'from release v9.9.9 of octo/recess' "$work/stderr" || fail "action path: $(cat "$work/stderr")"
check "empty action_ref/action_repository: octo/recess@v9.9.9 read from the action path"

for repo in octo/bad octo/noline; do
	if path=$(install "$repo" v1.0.0 "$work/cache-$RANDOM"); then
		fail "$repo: accepted a binary checksums.txt does not vouch for"
	fi
	[ -z "$path" ] || fail "$repo: path $path handed on"
	grep -q '^::error title=recess binary::.*refusing the download' "$work/stdout" ||
		fail "$repo: no refusal annotation: $(cat "$work/stdout")"
	if find "$work"/cache-* -name recess -type f 2>/dev/null | grep -q .; then
		fail "$repo: a refused binary was cached"
	fi
	check "$repo: refused ($(head -n 1 "$work/stdout" | cut -c1-90)...)"
done

echo "== install-recess-test passed"
