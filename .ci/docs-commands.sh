#!/usr/bin/env bash
# docs-commands.sh runs every shell command of README.md and docs/*.md that works offline, as
# written, the way a new user would: each ```sh block, in the order a reader meets it (the README,
# then docs/*.md by name), with `bash -euo pipefail`. A block that needs what CI does not have says
# so after `sh` and is shown, not run: `sh needs-network` (git clone, go install ...@v1, gh),
# `sh needs-github` (a real repository and a token), `sh needs-ctrl-c` (a server that runs until
# stopped). internal/action's TestDocs_* keep the blocks so marked.
#
# The blocks share one new machine, as a reader's commands do:
#   HOME              a new directory, with nothing in it but
#   ~/recess          this checkout, as the README's `git clone` gives it (the clone needs the
#                     network; the files on disk are copied, new ones included, and committed)
#   ~/src/your-repo   an empty git repository: "your repository"
#   PATH              the system's directories and Go's, plus `recess` built from this checkout (what
#                     the README's `go install ...@v1` puts there; that needs the network)
#   GOTOOLCHAIN=local so a command that needs go.mod's Go 1.27.3 must say so itself, as a machine
#                     whose Go is older (or set to local) needs; nothing else is set (no token)
# Go's build cache, module cache and proxy are this machine's (a new user's Go fills its own once).
# A block runs in ~/recess unless it says cd. The README's first block is the demo and the test
# command: this script is what runs the tests in CI.
#
# Usage: docs-commands.sh [PAGE.md]...   (default: README.md docs/*.md)
# DOCS_COMMANDS_KEEP=1 keeps the new machine's directory.
set -euo pipefail
export GOTOOLCHAIN=go1.27.3 # this script's own go commands
cd "$(dirname "$0")/.."
root=$PWD

if [ $# -eq 0 ]; then
	set -- README.md docs/*.md
fi

machine=$(mktemp -d "${TMPDIR:-/tmp}/recess-docs.XXXXXX")
if [ "${DOCS_COMMANDS_KEEP:-}" = 1 ]; then
	echo "the new machine: $machine"
else
	trap 'chmod -R u+w "$machine" 2>/dev/null; rm -rf "$machine"' EXIT
fi
home=$machine/home
mkdir -p "$home/recess" "$home/src/your-repo" "$machine/bin" "$machine/blocks" "$machine/tmp"
git -C "$home/src/your-repo" init -q

git ls-files -z --cached --others --exclude-standard |
	tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$home/recess"
git -C "$home/recess" init -q
git -C "$home/recess" add -A
git -C "$home/recess" -c user.name=recess -c user.email=recess@example.com commit -qm "a clone of recess"
go build -o "$machine/bin/recess" ./cmd/recess

gobin=$(dirname "$(command -v go)")
env_of_a_new_machine=(
	HOME="$home"
	PATH="$machine/bin:$gobin:/usr/local/bin:/usr/bin:/bin"
	TMPDIR="$machine/tmp"
	LANG=C.UTF-8
	GOTOOLCHAIN=local
	GOCACHE="$(go env GOCACHE)"
	GOPATH="$(go env GOPATH)"
	GOPROXY="$(go env GOPROXY)"
	GOSUMDB="$(go env GOSUMDB)"
	GOFLAGS="$(go env GOFLAGS)"
)

# Every ```sh block, unindented, as blocks/NNN.sh, with its page, line and what it needs.
n=0
for page in "$@"; do
	inside=0
	lineno=0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		if [ $inside = 0 ]; then
			stripped=${line#"${line%%[! ]*}"}
			case $stripped in
			'```sh' | '```sh '*)
				indent=${line%%\`\`\`*}
				needs=${stripped#\`\`\`sh}
				n=$((n + 1))
				block=$(printf '%s/blocks/%03d.sh' "$machine" "$n")
				printf '%s:%d%s\n' "$page" "$lineno" "$needs" >"$block.where"
				: >"$block"
				inside=1
				;;
			esac
			continue
		fi
		if [ "$line" = "$indent"'```' ]; then
			inside=0
			continue
		fi
		printf '%s\n' "${line#"$indent"}" >>"$block"
	done <"$page"
	[ $inside = 0 ] || {
		echo "FAIL: $page: a sh block is not closed" >&2
		exit 1
	}
done

# CI's tests are the README's test command, run here: make sure it is still there.
if [ "$1" = README.md ] && ! grep -qxF 'GOTOOLCHAIN=go1.27.3 go test -race -count=1 ./...' "$machine/blocks/001.sh"; then
	echo "FAIL: the README's first sh block no longer holds the test command CI runs:" >&2
	cat "$machine/blocks/001.sh" >&2
	exit 1
fi

ran=0
shown=0
for block in "$machine"/blocks/*.sh; do
	[ -e "$block" ] || break
	read -r where needs <"$block.where" || true
	if [ -n "$needs" ]; then
		echo "== $where: shown, not run ($needs)"
		shown=$((shown + 1))
		continue
	fi
	echo "== $where"
	sed 's/^/   $ /' "$block"
	start=$SECONDS
	if ! (cd "$home/recess" && env -i "${env_of_a_new_machine[@]}" bash -euo pipefail "$block") </dev/null >"$block.log" 2>&1; then
		echo "FAIL: the block at $where, run as written on a new machine, failed; its output's failures and end:" >&2
		grep -E '^(--- FAIL|FAIL|panic:)' "$block.log" | head -n 40 >&2 || true
		echo "..." >&2
		tail -n 40 "$block.log" >&2
		exit 1
	fi
	# go test's package lines, so that CI's log shows which tests ran.
	grep -E '^(ok|FAIL|\?) ' "$block.log" | sed 's/^/   /' || true
	echo "   ok in $((SECONDS - start))s"
	ran=$((ran + 1))
done
echo "docs-commands: $ran blocks ran as written, $shown shown (they need the network, GitHub or a ctrl-c)"
