#!/usr/bin/env bash
# act.sh: the whole story under act, against the embedded fake GitHub, twice, with the README's
# local command (`go run ./cmd/recess-lab act`, see cmd/recess-lab/act.go and testdata/act/README.md):
#
#   1. this repository's own example workflows, .github/workflows/recess.yml and agent.yml
#      (the action step by step, `uses: ./`, the placeholder lead);
#   2. the README's quick start (testdata/quickstart, unmodified) as a user's repository holds it:
#      its files in .github/workflows of an otherwise empty repository, `recess check` clean
#      on it first, then the story with recess-action/recess@v1 and its reusable workflows served
#      from this checkout and the Claude step replaced by the scripted lead (no ANTHROPIC_API_KEY).
#
# Each: intake -> claim -> lead -> recess -> replies -> resume with the prompt -> adjourn, checked
# against the fake's state after every step. It needs Go and bash; no Docker, and no network but
# the Go module proxy (to install act v0.2.89 the first time).
#
# ACT_TEST_KEEP=1 keeps the work directories (logs, events, the workflow copies);
# ACT_TEST_TIMEOUT bounds each act run (a Go duration, default 5m).
set -euo pipefail
export GOTOOLCHAIN=go1.27.3
cd "$(dirname "$0")/.."

args=(--timeout "${ACT_TEST_TIMEOUT:-5m}")
[ "${ACT_TEST_KEEP:-}" = 1 ] && args+=(--keep)
# The story's lead is the scripted one: a model key in CI's environment would change the story.
unset ANTHROPIC_API_KEY

lab=$(mktemp -d)
trap 'rm -rf "$lab"' EXIT
go build -o "$lab/recess-lab" ./cmd/recess-lab
go build -o "$lab/recess" ./cmd/recess

echo "== act 1/2: .github/workflows/recess.yml and agent.yml"
start=$SECONDS
"$lab/recess-lab" act "${args[@]}"
echo "act 1/2 took $((SECONDS - start))s"

echo
echo "== act 2/2: the quick start (testdata/quickstart), unmodified, as a repository's .github/workflows"
start=$SECONDS
repo="$lab/your-repo"
mkdir -p "$repo/.github/workflows"
cp testdata/quickstart/*.yml "$repo/.github/workflows/"
"$lab/recess" check "$repo"
"$lab/recess-lab" act "${args[@]}" "$repo"
# The story ran copies; the repository's files are as the README gives them.
diff -r testdata/quickstart "$repo/.github/workflows"
echo "act 2/2 took $((SECONDS - start))s"
