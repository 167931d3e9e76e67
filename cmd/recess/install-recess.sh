#!/usr/bin/env bash
# install-recess.sh puts the recess binary for this runner on disk and hands its path to the next
# step (path=... in GITHUB_OUTPUT; on stdout without one). action.yml runs it first, on Linux,
# macOS and Windows (Git Bash); nothing from the event reaches it.
#
#  1. The release of the action's ref: recess_<os>_<arch>[.exe] from
#     SERVER/OWNER/REPO/releases/download/TAG/, checked against that release's checksums.txt
#     (sha256) and, when gh is on the runner, its artifact attestation (gh attestation verify).
#     A mismatch, a missing checksum line or a refused attestation fails the step: recess never
#     runs, nor builds around, a download nobody vouched for. TAG is the ref itself when it is a
#     version (v1.4.2, v1.5.0-rc.1); for any other ref (a major tag v1, a commit sha) it is the
#     newest final vX.Y.Z tag at the same commit, read with git ls-remote.
#  2. Otherwise (no such tag or release: a branch, an untagged commit, a fork without releases):
#     a build from the action's own source with the runner's Go.
#
# Environment: RECESS_ACTION_PATH, RECESS_ACTION_REF, RECESS_ACTION_REPOSITORY (github.action_*;
# runners leave the last two empty in some composite runs, and then the runner's path
# .../_actions/OWNER/REPO/REF tells them), RECESS_TOKEN (gh's token), GITHUB_SERVER_URL,
# RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP and GITHUB_OUTPUT as the runner sets them.
set -euo pipefail

log() { printf 'recess install: %s\n' "$*" >&2; }
die() { # an annotation on stdout, where the runner reads workflow commands
	printf '::error title=recess binary::%s\n' "$*"
	exit 1
}
sha256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi | awk '{print tolower($1)}'; }

case ${RUNNER_OS:-$(uname -s)} in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows | MINGW* | MSYS*) os=windows ;;
*) die "unsupported runner OS ${RUNNER_OS:-$(uname -s)}" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | arm64 | aarch64) arch=arm64 ;;
*) die "unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac
exe=recess asset=recess_${os}_$arch
[ "$os" = windows ] && exe=recess.exe asset=$asset.exe

# Windows hands out D:\a\...; Git Bash and Windows programs alike read D:/a/... .
src=${RECESS_ACTION_PATH:-}
src=${src//\\//}
[ -f "$src/cmd/recess/main.go" ] || die "RECESS_ACTION_PATH ($src) does not hold recess's source"
ref=${RECESS_ACTION_REF:-} repo=${RECESS_ACTION_REPOSITORY:-}
if [[ -z $ref || -z $repo ]] && [[ $src =~ /_actions/([^/]+/[^/]+)/([^/]+)$ ]]; then
	repo=${repo:-${BASH_REMATCH[1]}} ref=${ref:-${BASH_REMATCH[2]}}
fi
server=${GITHUB_SERVER_URL:-https://github.com}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
dir=$(mktemp -d "${tmp//\\//}/recess.XXXXXX")
bin=$dir/$exe

# release_tag prints the release tag of the action's ref, or nothing.
release_tag() {
	if [[ $ref =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
		printf '%s\n' "$ref"
		return
	fi
	[ -n "$ref" ] && [ -n "$repo" ] || return 0
	local tags commit=$ref
	tags=$(GIT_TERMINAL_PROMPT=0 git ls-remote --tags "$server/$repo" 2>/dev/null) || {
		log "cannot list the tags of $server/$repo"
		return 0
	}
	# A tag's commit: an annotated tag's peeled line (TAG^{}) comes after its own.
	[[ $ref =~ ^[0-9a-f]{40}$ ]] ||
		commit=$(awk -v t="refs/tags/$ref" '$2 == t || $2 == t "^{}" { c = $1 } END { print c }' <<<"$tags")
	awk -v c="$commit" '$1 == c { t = $2; sub(/^refs\/tags\//, "", t); sub(/\^\{\}$/, "", t); print t }' <<<"$tags" |
		grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -t. -k1.2,1n -k2,2n -k3,3n | tail -n 1 || true
}

tag=$(release_tag)
url=$server/$repo/releases/download/$tag
fetch() { curl --fail --silent --show-error --location --retry 2 --max-time 300 -o "$dir/$1" "$url/$1" 2>/dev/null; }
if [ -n "$tag" ] && fetch checksums.txt && fetch "$asset"; then
	want=$(awk -v n="$asset" '$2 == n || $2 == "*" n { print tolower($1); exit }' "$dir/checksums.txt")
	[ -n "$want" ] || die "checksums.txt of release $tag of $repo has no line for $asset: refusing the download"
	got=$(sha256 <"$dir/$asset")
	[ "$got" = "$want" ] || die "sha256 of $asset from release $tag of $repo is $got, checksums.txt says $want: refusing the download"
	if command -v gh >/dev/null; then
		GH_TOKEN=${RECESS_TOKEN:-${GH_TOKEN:-}} gh attestation verify "$dir/$asset" --repo "$repo" >&2 ||
			die "the attestation of $asset from release $tag of $repo does not verify (gh attestation verify): refusing the download"
		attested="and its attestation"
	else
		attested="(gh is not on this runner: its attestation is not checked, its checksum is)"
	fi
	mv "$dir/$asset" "$bin"
	log "downloaded $asset from release $tag of $repo: sha256 $got verified $attested"
else
	log "no release binary for ${repo:-this action}@${ref:-local}${tag:+ (none under tag $tag)}: building from source"
	command -v go >/dev/null ||
		die "no release binary for ${repo:-this action}@${ref:-local} and no Go on this runner: add actions/setup-go before recess, or pin a release"
	(cd "$src" && GOTOOLCHAIN=auto CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o "$bin" ./cmd/recess) ||
		die "go build of $src failed"
fi
chmod +x "$bin"
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "path=$bin" >>"$GITHUB_OUTPUT"; else echo "$bin"; fi
