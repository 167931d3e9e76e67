#!/usr/bin/env bash
# install-recess.sh puts the recess binary for this runner on disk and hands its path to the
# next step (path=... in GITHUB_OUTPUT; printed on stdout when there is no GITHUB_OUTPUT).
# action.yml runs it as the action's first step, on Linux, macOS and Windows (Git Bash).
#
# Where the binary comes from, fastest first:
#   1. the cache: a binary kept from an earlier run of this exact action source (key: action
#      ref + a hash of the action's files + OS/arch), so a self-hosted runner builds once;
#   2. the GitHub release of the action's ref: asset recess_<os>_<arch>[.exe], verified
#      against the release's checksums.txt (sha256). A mismatch or a missing checksum line is
#      refused: the run fails rather than run a binary nobody vouched for. The ref is a release
#      tag (v1.4.2), a moving major or minor tag (v1, v1.4: the newest final release under it),
#      or a commit sha (uses: OWNER/recess@<40 hex>, as GitHub advises): then the release whose
#      tag points at that commit;
#   3. a build from the action's own source with the runner's Go (GOTOOLCHAIN=auto fetches the
#      Go that go.mod asks for when the runner's is older).
#
# Environment (action.yml sets these; no event text is involved):
#   RECESS_ACTION_PATH        github.action_path: the action's files
#   RECESS_ACTION_REF         github.action_ref (runners leave it empty in some composite runs)
#   RECESS_ACTION_REPOSITORY  github.action_repository (likewise)
#   RECESS_TOKEN              the github-token input, for the release lookup
#   RECESS_CACHE_DIR          optional: where binaries are kept (default: RUNNER_TOOL_CACHE/recess)
#   GITHUB_API_URL, GITHUB_SERVER_URL, RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE, RUNNER_TEMP,
#   GITHUB_OUTPUT             as the runner provides them
set -euo pipefail

log() { printf 'recess: %s\n' "$*" >&2; }
die() {
	# An annotation on stdout, which is where the runner reads workflow commands.
	printf '::error title=recess binary::%s\n' "$*"
	exit 1
}

# Windows runners hand out C:\... paths; Git Bash tools want /c/....
unix_path() {
	if [ -n "$1" ] && command -v cygpath >/dev/null 2>&1; then
		cygpath -u "$1"
	else
		printf '%s\n' "$1"
	fi
}

# The sha256 tool: Linux and Git Bash have sha256sum, macOS has shasum.
if command -v sha256sum >/dev/null 2>&1; then
	sha256=(sha256sum)
elif command -v shasum >/dev/null 2>&1; then
	sha256=(shasum -a 256)
elif command -v openssl >/dev/null 2>&1; then
	sha256=(openssl dgst -sha256 -r)
else
	die "no sha256 tool on this runner (sha256sum, shasum or openssl)"
fi

# sha256 of stdin, lower-case hex.
sha256_stdin() { "${sha256[@]}" | awk '{print tolower($1)}'; }

# curl with the token in a config read from stdin, so it never shows in the process list.
curl_api() {
	local url=$1
	shift
	if [ -n "${RECESS_TOKEN:-}" ]; then
		printf 'header = "Authorization: Bearer %s"\n' "$RECESS_TOKEN" |
			curl --config - --fail --silent --show-error --location --max-time 60 --retry 2 \
				-H 'X-GitHub-Api-Version: 2022-11-28' "$@" "$url"
	else
		curl --fail --silent --show-error --location --max-time 60 --retry 2 \
			-H 'X-GitHub-Api-Version: 2022-11-28' "$@" "$url"
	fi
}

# --- where we are ----------------------------------------------------------------------------

case "${RUNNER_OS:-$(uname -s)}" in
Linux) goos=linux ;;
macOS | Darwin) goos=darwin ;;
Windows | MINGW* | MSYS* | CYGWIN*) goos=windows ;;
*) die "unsupported runner OS ${RUNNER_OS:-$(uname -s)}" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
X64 | x86_64 | amd64) goarch=amd64 ;;
ARM64 | arm64 | aarch64) goarch=arm64 ;;
*) die "unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac
exe=recess
[ "$goos" = windows ] && exe=recess.exe
asset="recess_${goos}_${goarch}"
[ "$goos" = windows ] && asset="$asset.exe"

action_path=$(unix_path "${RECESS_ACTION_PATH:-${GITHUB_ACTION_PATH:-}}")
[ -n "$action_path" ] || die "RECESS_ACTION_PATH is not set (github.action_path)"
[ -f "$action_path/cmd/recess/main.go" ] || die "$action_path does not hold recess's source (cmd/recess)"

ref=${RECESS_ACTION_REF:-}
repo=${RECESS_ACTION_REPOSITORY:-}
if [ -z "$ref" ] || [ -z "$repo" ]; then
	# Runners unpack a downloaded action at .../_actions/OWNER/REPO/REF, and the path is there
	# even when github.action_ref and github.action_repository are not. A local action
	# (uses: ./) has neither and is built from the checkout.
	case "$action_path" in
	*/_actions/*/*/*)
		IFS=/ read -r path_owner path_repo path_ref <<<"${action_path##*/_actions/}"
		[ -n "$repo" ] || repo="$path_owner/$path_repo"
		[ -n "$ref" ] || ref=$path_ref
		;;
	esac
fi

# The cache key names the action's source by content: a downloaded action carries no .git, and
# a local checkout may hold uncommitted changes. Hashing every file (not only *.go) keeps
# embedded data and new packages in the key; a changed README costs one rebuild.
source_hash=$(
	cd "$action_path" &&
		find . -type f ! -path './.git/*' -print0 | LC_ALL=C sort -z | xargs -0 "${sha256[@]}" | sha256_stdin
)
safe_ref=$(printf '%s' "${ref:-local}" | tr -c 'A-Za-z0-9._-' '_')
cache_root=${RECESS_CACHE_DIR:-}
if [ -z "$cache_root" ]; then
	cache_root="$(unix_path "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}")/recess"
fi
cache_dir="$(unix_path "$cache_root")/${safe_ref}-${source_hash:0:20}-${goos}-${goarch}"
bin="$cache_dir/$exe"

emit() {
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		printf 'path=%s\n' "$1" >>"$GITHUB_OUTPUT"
	else
		printf '%s\n' "$1"
	fi
}

# usable tells a binary that runs from a truncated or foreign file.
usable() { [ -x "$1" ] && "$1" --help >/dev/null 2>&1; }

if usable "$bin"; then
	log "using the cached binary $bin"
	emit "$bin"
	exit 0
fi

if ! mkdir -p "$cache_dir" 2>/dev/null; then
	# A tool cache this job cannot write to (some self-hosted setups): keep it for this job only.
	cache_dir="$(unix_path "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")/recess/$(basename "$cache_dir")"
	bin="$cache_dir/$exe"
	mkdir -p "$cache_dir" || die "cannot create $cache_dir"
fi
work=$(mktemp -d "$cache_dir/.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT

# install moves a verified or freshly built binary into place. Same file system, so the rename is
# atomic: a concurrent job on the same runner sees the old state or the new, never half a file.
install_bin() {
	chmod +x "$1"
	mv -f "$1" "$bin"
	usable "$bin" || die "$bin does not run on this $goos/$goarch runner"
	emit "$bin"
}

# --- 2. the release asset ----------------------------------------------------------------------

api=${GITHUB_API_URL:-https://api.github.com}

# release_json prints the release for the action's tag: the release named by the ref itself, or
# for a moving major/minor tag (v1, v1.4; release.yml moves v1 to every v1.x.y) the newest
# published release under it. Needs jq; fails when there is none.
release_json() {
	local exact
	if exact=$(curl_api "$api/repos/$repo/releases/tags/$ref" -H 'Accept: application/vnd.github+json' 2>/dev/null); then
		printf '%s\n' "$exact"
		return 0
	fi
	[[ "$ref" =~ ^v[0-9]+(\.[0-9]+)?$ ]] || return 1
	curl_api "$api/repos/$repo/releases?per_page=30" -H 'Accept: application/vnd.github+json' 2>/dev/null |
		jq -e --arg prefix "$ref." '
			[.[] | select(.draft | not) | select(.prerelease | not)
			     | select(.tag_name | startswith($prefix))] | first // empty'
}

# fetch_asset NAME DEST downloads one asset of the release: first the public download URL (no
# API quota spent), then through the API with the token (private action repositories).
fetch_asset() {
	local name=$1 dest=$2 public api_url
	public=$(jq -r --arg n "$name" '.assets[]? | select(.name == $n) | .browser_download_url' <<<"$release" | head -n 1)
	api_url=$(jq -r --arg n "$name" '.assets[]? | select(.name == $n) | .url' <<<"$release" | head -n 1)
	[ -n "$public" ] || [ -n "$api_url" ] || return 1
	if [ -n "$public" ] && curl --fail --silent --show-error --location --max-time 300 --retry 2 -o "$dest" "$public" 2>/dev/null; then
		return 0
	fi
	[ -n "$api_url" ] && curl_api "$api_url" -H 'Accept: application/octet-stream' --max-time 300 -o "$dest"
}

# Tag pages read when looking for the tags of a commit: 10 pages of 100, newest tags first.
max_tag_pages=${RECESS_MAX_TAG_PAGES:-10}

# tags_at_commit prints the names of the action repository's tags that point at commit $ref,
# full versions (v1.4.2) first, then the other tags with a dot (v1.5.0-rc.1), then the rest (a
# major tag v1 has no release of its own). GET /repos/{owner}/{repo}/tags names each tag's
# commit, annotated tags included (git/matching-refs would give an annotated tag's own object,
# one more request each to peel). It pages until a short page or max_tag_pages.
tags_at_commit() {
	local page=1 body count found=""
	while [ "$page" -le "$max_tag_pages" ]; do
		body=$(curl_api "$api/repos/$repo/tags?per_page=100&page=$page" -H 'Accept: application/vnd.github+json') ||
			return 1
		count=$(jq -e 'if type == "array" then length else error("not a list of tags") end' <<<"$body") || return 1
		found+=$(jq -r --arg sha "$ref" '.[] | objects | select(.commit.sha? == $sha) | .name | strings' <<<"$body")$'\n' ||
			return 1
		[ "$count" -ge 100 ] || break
		page=$((page + 1))
	done
	if [ "$page" -gt "$max_tag_pages" ]; then
		log "read the newest $((max_tag_pages * 100)) tags of $repo only"
	fi
	printf '%s' "$found" | awk 'NF {
		if ($0 ~ /^v?[0-9]+\.[0-9]+\.[0-9]+$/) print 0, $0; else if (index($0, ".")) print 1, $0; else print 2, $0
	}' | LC_ALL=C sort -s -k1,1n | cut -d' ' -f2-
}

# release_at_commit prints the published release of the first tag (in tags_at_commit's order)
# that points at commit $ref and has one. Fails, saying why, when there is none.
release_at_commit() {
	local tags tag
	tags=$(tags_at_commit) || {
		log "cannot list the tags of $repo"
		return 1
	}
	if [ -z "$tags" ]; then
		log "no tag of $repo points at commit $ref"
		return 1
	fi
	while IFS= read -r tag; do
		# Tag names are git ref names: no spaces, but '/' and '+' need escaping in a URL path.
		if curl_api "$api/repos/$repo/releases/tags/$(jq -rn --arg t "$tag" '$t | @uri')" \
			-H 'Accept: application/vnd.github+json' 2>/dev/null; then
			log "the action is pinned to commit $ref, which tag $tag of $repo points at"
			return 0
		fi
	done <<<"$tags"
	log "tags of $repo at commit $ref ($(paste -sd, - <<<"$tags")) have no published release"
	return 1
}

from_release() {
	[ -n "$ref" ] && [ -n "$repo" ] || return 1
	if ! command -v jq >/dev/null 2>&1; then
		log "jq is not installed: cannot read the release of $repo@$ref"
		return 1
	fi
	if [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
		release=$(release_at_commit) || return 1
	else
		release=$(release_json) || {
			log "no release for $repo@$ref"
			return 1
		}
	fi
	local tag
	tag=$(jq -r '.tag_name' <<<"$release")
	fetch_asset checksums.txt "$work/checksums.txt" || {
		log "release $tag of $repo has no checksums.txt"
		return 1
	}
	fetch_asset "$asset" "$work/$asset" || {
		log "release $tag of $repo has no $asset"
		return 1
	}
	local want got
	want=$(awk -v n="$asset" '$2 == n || $2 == "*" n { print tolower($1); exit }' "$work/checksums.txt")
	[ -n "$want" ] || die "checksums.txt of release $tag has no line for $asset: refusing the download"
	got=$(sha256_stdin <"$work/$asset")
	[ "$want" = "$got" ] || die "sha256 of $asset from release $tag is $got, checksums.txt says $want: refusing the download"
	log "downloaded $asset from release $tag of $repo (sha256 $got verified)"
	install_bin "$work/$asset"
}

# --- 3. a build from source --------------------------------------------------------------------

from_source() {
	command -v go >/dev/null 2>&1 ||
		die "no release binary for ${repo:-this action}@${ref:-local} and no Go on this runner: add actions/setup-go before recess, or use a released tag"
	log "building recess from $action_path with $(go version)"
	local start=$SECONDS
	(
		cd "$action_path"
		GOTOOLCHAIN=auto CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o "$work/$exe" ./cmd/recess
	) || die "go build of $action_path failed"
	log "built in $((SECONDS - start))s; cached as $bin"
	install_bin "$work/$exe"
}

from_release && exit 0
log "no verified release binary for ${repo:-this action}@${ref:-local}: building from source"
from_source
