#!/usr/bin/env bash
# act.sh: the whole story under act, against the embedded fake GitHub, with the README's local
# command (`recess-lab act`, see cmd/recess-lab/act.go and testdata/act/README.md), on every setup
# recess ships:
#
#   1. this repository's own example workflows, .github/workflows/recess.yml and agent.yml
#      (the action step by step, `uses: ./`, the placeholder lead, the sweep in the front door);
#   2. the README's quick start (testdata/quickstart, unmodified, what `recess init` writes) as a
#      user's repository holds it: its files in .github/workflows of an otherwise empty
#      repository, the sweep in a workflow of its own, enabled only while something waits;
#   3. and 4. the Claude and the Gemini examples (.github/examples/agent-*.yml) as the agent
#      workflow beside the quick start's front door and the sweep example;
#   5. the README's own `recess init` example (another agent workflow name, the branch store,
#      categories, wake-on mention, another schedule): the story's discussion is one it serves;
#   6. the README's `recess init --threads issues` example: the issue story
#      (testdata/act/story-issue.yaml), its issue mentioning the setup's handle.
#
# Each repository is `recess check` clean first. recess-action/recess@v1 and its reusable
# workflows are served from this checkout, and each model step is replaced by the scripted lead
# (no ANTHROPIC_API_KEY, no GEMINI_API_KEY). Each story: intake -> claim -> lead -> recess ->
# replies -> resume with the prompt -> adjourn -> a sweep that finds nothing pending, checked
# against the fake's state after every step. It needs Go, bash and jq (the examples' leads build
# their MCP configuration with it); no Docker, and no network but the Go module proxy (to install
# act v0.2.89 the first time).
#
# ACT_TEST_KEEP=1 keeps the work directories (logs, events, the workflow copies);
# ACT_TEST_TIMEOUT bounds each act run (a Go duration, default 5m).
set -euo pipefail
export GOTOOLCHAIN=go1.27.3
cd "$(dirname "$0")/.."

args=(--timeout "${ACT_TEST_TIMEOUT:-5m}")
[ "${ACT_TEST_KEEP:-}" = 1 ] && args+=(--keep)
# The stories' leads are the scripted one: a model key in CI's environment would change them.
unset ANTHROPIC_API_KEY GEMINI_API_KEY
command -v jq >/dev/null || { echo "act.sh: the examples' leads need jq on PATH" >&2; exit 1; }

lab=$(mktemp -d)
trap 'rm -rf "$lab"' EXIT
go build -o "$lab/recess-lab" ./cmd/recess-lab
go build -o "$lab/recess" ./cmd/recess

# story N TITLE REPO: recess check on REPO, then the story under act.
story() {
	echo
	echo "== act $1/6: $2"
	local start=$SECONDS
	[ -z "$3" ] || "$lab/recess" check "$3"
	"$lab/recess-lab" act "${args[@]}" ${3:+"$3"}
	echo "act $1/6 took $((SECONDS - start))s"
}

# repo NAME FILE AS ...: a repository whose .github/workflows holds each FILE under the name AS.
repo() {
	local dir="$lab/$1"
	shift
	mkdir -p "$dir/.github/workflows"
	while [ $# -gt 0 ]; do
		cp "$1" "$dir/.github/workflows/$2"
		shift 2
	done
	echo "$dir"
}

story 1 ".github/workflows/recess.yml and agent.yml" ""

quickstart=$(repo quickstart testdata/quickstart/recess.yml recess.yml testdata/quickstart/recess-sweep.yml recess-sweep.yml testdata/quickstart/agent.yml agent.yml)
story 2 "the quick start (testdata/quickstart), unmodified, as a repository's .github/workflows" "$quickstart"
# The story ran copies; the repository's files are as the README gives them.
diff -r testdata/quickstart "$quickstart/.github/workflows"

for agent in claude gemini; do
	dir=$(repo "$agent" testdata/quickstart/recess.yml recess.yml .github/examples/recess-sweep.yml recess-sweep.yml ".github/examples/agent-$agent.yml" agent.yml)
	n=3
	[ "$agent" = gemini ] && n=4
	story "$n" ".github/examples/agent-$agent.yml as agent.yml, beside the quick start's front door and .github/examples/recess-sweep.yml" "$dir"
done

# The README's `recess init` example, flag for flag.
readme="$lab/readme-init"
mkdir -p "$readme"
"$lab/recess" init --dir "$readme" --workflow answer.yml --state-store branch --categories "RFCs, Ideas" \
	--wake-on mention --mention-handles @lead --schedule "7-59/15 * * * *"
story 5 "the README's recess init example (answer.yml, branch store, categories, wake-on mention)" "$readme"

# The README's example for issues: the issue story.
issues="$lab/issues-init"
mkdir -p "$issues"
"$lab/recess" init --dir "$issues" --threads issues --mention-handles @lead
story 6 "the README's recess init --threads issues example (an issue, wake-on mention by default)" "$issues"
