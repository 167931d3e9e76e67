#!/usr/bin/env bash
# install-recess-test.sh checks cmd/recess/install-recess.sh, the action's first step, against a
# local HTTP server that plays GitHub's tag and release API and download URLs (a python3
# http.server that serves a directory and answers ?page=N from FILE.page-N; skipped, and said
# so, when there is no python3). A stand-in `go` on PATH records every build instead of
# compiling, so each case also shows whether the source build ran.
#   - an exact release tag: the asset is downloaded, verified and cached, no build;
#   - the same again: taken from the cache, no request made;
#   - a major tag (v9): the newest final v9.x.y release is used, drafts and pre-releases not;
#   - no github.action_ref/action_repository: both read from the runner's _actions/ path;
#   - a wrong sha256 in checksums.txt: refused, exit 1, nothing cached, no build;
#   - no line for the asset in checksums.txt: refused likewise;
#   - pinned to a commit sha that a release tag points at: that release's verified asset, no
#     build (the full version chosen over the major tag at the same commit);
#   - the same, with the tag on the second page of tags;
#   - pinned to a commit no tag points at: a clear log line, then the source build;
#   - pinned to a commit whose tag has no release: likewise;
#   - pinned to a commit whose release's checksum does not match: refused, no source build.
# .ci/act.sh runs the real source build (uses: ./ has no release).
set -euo pipefail
export GOTOOLCHAIN=go1.27.3

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
# http.server with one addition GitHub's paged lists need: GET PATH?page=N (N > 1) answers the
# file PATH.page-N, or [] when there is none, as GitHub answers a page past the end.
cat >"$work/server.py" <<'PY'
import functools, http.server, io, os, sys, urllib.parse

class Handler(http.server.SimpleHTTPRequestHandler):
    def send_head(self):
        url = urllib.parse.urlsplit(self.path)
        page = urllib.parse.parse_qs(url.query).get("page", ["1"])[0]
        if page == "1":
            return super().send_head()
        name = self.translate_path(url.path) + ".page-" + page
        body = b"[]"
        if os.path.isfile(name):
            with open(name, "rb") as f:
                body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

server = http.server.ThreadingHTTPServer(
    ("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
print("serving on port %d" % server.server_address[1], flush=True)
server.serve_forever()
PY
python3 -u "$work/server.py" "$www" >"$work/server.log" 2>&1 &
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

# The stand-in go: `go version` answers, `go build ... -o OUT ...` logs its arguments to
# go.log and writes a binary that differs from the release's, so a case can tell them apart.
mkdir -p "$work/bin"
cat >"$work/bin/go" <<GO
#!/bin/sh
case "\$1" in
version) echo "go version go-stand-in linux/amd64" ;;
build)
	echo "\$*" >>"$work/go.log"
	out=""
	while [ \$# -gt 0 ]; do
		[ "\$1" = -o ] && out=\$2
		shift
	done
	[ -n "\$out" ] || exit 2
	printf '#!/bin/sh\\n# built from source\\nexit 0\\n' >"\$out"
	;;
*) exit 2 ;;
esac
GO
chmod +x "$work/bin/go"
: >"$work/go.log"
builds() { wc -l <"$work/go.log" | tr -d ' '; }
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
		RUNNER_OS=Linux RUNNER_ARCH=X64 PATH="$work/bin:$PATH" \
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

# --- pinned to a commit sha (uses: OWNER/recess@<40 hex>) -------------------------------------

sha_rel=$(printf '1%.0s' $(seq 40))   # v9 and v9.9.9 of octo/recess, v3.0.0 of octo/many
sha_old=$(printf '2%.0s' $(seq 40))   # v9.9.8, and the first page of octo/many
sha_norel=$(printf '3%.0s' $(seq 40)) # v0.1.0: a tag without a release
sha_none=$(printf '4%.0s' $(seq 40))  # no tag at all

# tags NAME=SHA... prints GET /repos/{owner}/{repo}/tags's answer for those tags, in that order.
tags() {
	local t
	for t in "$@"; do
		jq -n --arg name "${t%%=*}" --arg sha "${t#*=}" \
			'{name: $name, commit: {sha: $sha, url: "https://api.github.invalid/commits/\($sha)"}}'
	done | jq -s .
}
# The major tag first: install-recess.sh must still prefer the full version at the same commit.
tags v9="$sha_rel" v9.9.9="$sha_rel" v9.9.8="$sha_old" v0.1.0="$sha_norel" >"$www/api/v3/repos/octo/recess/tags"
# octo/many: a full first page of other tags, the wanted one on page two.
mkdir -p "$www/api/v3/repos/octo/many"
first_page=()
for i in $(seq 100); do first_page+=("v1.0.$i=$sha_old"); done
tags "${first_page[@]}" >"$www/api/v3/repos/octo/many/tags"
tags v3.0.0="$sha_rel" >"$www/api/v3/repos/octo/many/tags.page-2"
publish octo/many v3.0.0 "$good"
# octo/badsha: the release of the pinned commit's tag does not match its checksums.txt.
mkdir -p "$www/api/v3/repos/octo/badsha"
tags v2.0.0="$sha_rel" >"$www/api/v3/repos/octo/badsha/tags"
publish octo/badsha v2.0.0 "$(printf '%064d  %s\n' 1 "$asset")"

[ "$(builds)" = 0 ] || fail "a release or cache case built from source: $(cat "$work/go.log")"

before=$(requests)
path=$(install octo/recess "$sha_rel" "$work/cache-sha1") || fail "sha with a release: exit $?: $(cat "$work/stdout" "$work/stderr")"
cmp -s "$path" "$work/stand-in" || fail "sha with a release: '$path' is not the release asset: $(cat "$work/stderr")"
grep -q "commit $sha_rel, which tag v9.9.9 of octo/recess points at" "$work/stderr" ||
	fail "sha with a release: did not take v9.9.9: $(cat "$work/stderr")"
grep -q 'from release v9.9.9 of octo/recess (sha256 [0-9a-f]* verified)' "$work/stderr" ||
	fail "sha with a release: no verification logged: $(cat "$work/stderr")"
[ "$(builds)" = 0 ] || fail "sha with a release: built from source"
n=$(($(requests) - before))
[ "$n" = 4 ] || fail "sha with a release: $n requests, want 4 (tags, release, asset, checksums): $(tail -n "$n" "$work/server.log")"
check "commit $sha_rel: tag v9.9.9 (not v9) points at it, its asset verified, no build ($n requests)"

path=$(install octo/many "$sha_rel" "$work/cache-sha2") || fail "sha on page 2: exit $?: $(cat "$work/stdout" "$work/stderr")"
cmp -s "$path" "$work/stand-in" || fail "sha on page 2: not the release asset: $(cat "$work/stderr")"
grep -q 'which tag v3.0.0 of octo/many points at' "$work/stderr" || fail "sha on page 2: $(cat "$work/stderr")"
grep -q 'GET /api/v3/repos/octo/many/tags?per_page=100&page=2 ' "$work/server.log" || fail "sha on page 2: page 2 not read"
[ "$(builds)" = 0 ] || fail "sha on page 2: built from source"
check "commit $sha_rel of octo/many: its tag found on the second page of tags"

path=$(install octo/recess "$sha_none" "$work/cache-sha3") || fail "sha without a tag: exit $?: $(cat "$work/stdout" "$work/stderr")"
grep -q "no tag of octo/recess points at commit $sha_none" "$work/stderr" || fail "sha without a tag: $(cat "$work/stderr")"
grep -q "no verified release binary for octo/recess@$sha_none: building from source" "$work/stderr" ||
	fail "sha without a tag: no fallback line: $(cat "$work/stderr")"
[ "$(builds)" = 1 ] || fail "sha without a tag: $(builds) builds, want 1"
grep -q 'built from source' "$path" || fail "sha without a tag: '$path' is not the source build"
check "commit $sha_none (no tag): said so, then built from source"

path=$(install octo/recess "$sha_norel" "$work/cache-sha4") || fail "sha without a release: exit $?: $(cat "$work/stdout" "$work/stderr")"
grep -q "tags of octo/recess at commit $sha_norel (v0.1.0) have no published release" "$work/stderr" ||
	fail "sha without a release: $(cat "$work/stderr")"
[ "$(builds)" = 2 ] || fail "sha without a release: $(builds) builds, want 2"
grep -q 'built from source' "$path" || fail "sha without a release: '$path' is not the source build"
check "commit $sha_norel (tag v0.1.0, no release): said so, then built from source"

if path=$(install octo/badsha "$sha_rel" "$work/cache-sha5"); then
	fail "sha with a bad checksum: accepted a binary checksums.txt does not vouch for"
fi
[ -z "$path" ] || fail "sha with a bad checksum: path $path handed on"
grep -q '^::error title=recess binary::sha256 of recess_linux_amd64 from release v2.0.0 is .*refusing the download' "$work/stdout" ||
	fail "sha with a bad checksum: no refusal annotation: $(cat "$work/stdout" "$work/stderr")"
[ "$(builds)" = 2 ] || fail "sha with a bad checksum: fell back to a source build"
if find "$work/cache-sha5" -name recess -type f 2>/dev/null | grep -q .; then
	fail "sha with a bad checksum: a refused binary was cached"
fi
check "commit $sha_rel of octo/badsha: checksum mismatch refused, no source build"

echo "== install-recess-test passed"
