#!/usr/bin/env bash
# act-test.sh runs the example workflows (.github/workflows/recess.yml and agent.yml) under act
# on this machine, against cmd/fakegithub, and checks what they did to the fake GitHub.
#
# (.ci/run checks the action's release download path before, with .ci/install-recess-test.sh.)
# It needs Go, curl and jq, and no network but the Go module
# proxy (to install act the first time). No Docker: act runs the jobs on the host
# (-P ubuntu-latest=-self-hosted), offline (--action-offline-mode). act checks out this
# repository by copying the working tree (it skips actions/checkout of the repository itself),
# and `uses: ./` runs action.yml from that copy, which builds the binary once per test run
# (RECESS_CACHE_DIR is the test's own directory) and then takes it from the cache.
#
# The story:
#   1. front door, discussion.created   -> intake: one agent dispatch, EYES on the discussion
#   2. agent, workflow_dispatch          -> claim, placeholder lead, adjourned verdict: one reply
#   3. bob comments; front door, discussion_comment.created -> a fresh dispatch
#   4. agent again with the first, now stale, correlation id -> claim says stale, nothing posted
#   5. front door, schedule              -> sweep visits the pending discussion: no second dispatch
#   6. agent with the new correlation id -> a second reply
# Every act run is bounded by ACT_TEST_TIMEOUT seconds (default 300); any failure exits 1 and
# prints the log of the step that failed. ACT_TEST_KEEP=1 keeps the work directory.
set -euo pipefail

ACT_VERSION=0.2.89
REPO=octo/hello
BOT_TOKEN=ghs_act_recess # the fake's github-actions[bot] token (testdata/act/seed.yml)
BOB_TOKEN=ghp_act_bob
STEP_TIMEOUT=${ACT_TEST_TIMEOUT:-300}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
started=$SECONDS

say() { printf '== %s\n' "$*"; }
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

for tool in go curl jq timeout; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/recess-act.XXXXXX")
fake_pid=""
cleanup() {
	local status=$?
	if [ -n "$fake_pid" ]; then
		kill "$fake_pid" 2>/dev/null || true
		wait "$fake_pid" 2>/dev/null || true
	fi
	if [ "$status" -ne 0 ] || [ "${ACT_TEST_KEEP:-}" = 1 ]; then
		echo "work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

# --- tools ---------------------------------------------------------------------------------------

gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
act="$gobin/act"
if ! { [ -x "$act" ] && "$act" --version 2>/dev/null | grep -q "version $ACT_VERSION\$"; }; then
	say "installing act v$ACT_VERSION"
	timeout 900 go install "github.com/nektos/act@v$ACT_VERSION" || fail "go install act@v$ACT_VERSION"
fi
say "$("$act" --version)"

say "building cmd/fakegithub"
timeout 600 go build -o "$work/bin/fakegithub" ./cmd/fakegithub || fail "go build ./cmd/fakegithub"

# act v$ACT_VERSION validates workflows against a schema that predates concurrency `queue`
# (GitHub added `queue: max` in May 2026) and refuses the file. act ignores concurrency anyway,
# so it runs a copy of the front door without that one line.
mkdir -p "$work/workflows"
grep -v '^ *queue: max$' .github/workflows/recess.yml >"$work/workflows/recess.yml"
[ "$(($(wc -l <.github/workflows/recess.yml) - $(wc -l <"$work/workflows/recess.yml")))" -le 3 ] ||
	fail "unexpected edit of recess.yml for act"
front_door="$work/workflows/recess.yml"
agent=.github/workflows/agent.yml

# --- the fake GitHub ----------------------------------------------------------------------------

say "starting the fake GitHub"
"$work/bin/fakegithub" --addr 127.0.0.1:0 --seed testdata/act/seed.yml >"$work/fake.env" 2>"$work/fake.log" &
fake_pid=$!
for _ in $(seq 100); do
	[ "$(grep -c '^GITHUB_' "$work/fake.env" 2>/dev/null)" = 3 ] && break
	kill -0 "$fake_pid" 2>/dev/null || fail "fakegithub exited: $(cat "$work/fake.log")"
	sleep 0.1
done
api_url=$(sed -n 's/^GITHUB_API_URL=//p' "$work/fake.env")
graphql_url=$(sed -n 's/^GITHUB_GRAPHQL_URL=//p' "$work/fake.env")
server_url=$(sed -n 's/^GITHUB_SERVER_URL=//p' "$work/fake.env")
if [ -z "$api_url" ] || [ -z "$graphql_url" ] || [ -z "$server_url" ]; then
	fail "fakegithub printed no URLs"
fi
say "fake GitHub at $server_url"

# --- helpers ------------------------------------------------------------------------------------

# rest PATH prints the JSON the fake answers to GET PATH.
rest() {
	curl --fail --silent --show-error --max-time 10 -H "Authorization: token $BOT_TOKEN" "$api_url$1"
}

# graphql TOKEN QUERY [VARIABLES] prints data of the answer; GraphQL errors fail the test.
graphql() {
	local out vars=${3:-}
	[ -n "$vars" ] || vars='{}'
	out=$(jq -n --arg q "$2" --argjson v "$vars" '{query: $q, variables: $v}' |
		curl --fail --silent --show-error --max-time 10 -H "Authorization: bearer $1" --data-binary @- "$graphql_url") ||
		fail "GraphQL request failed"
	jq -e '.errors == null' >/dev/null <<<"$out" || fail "GraphQL errors: $out"
	jq '.data' <<<"$out"
}

# agent_runs prints the agent workflow's runs, oldest first: {id, name, cid}.
agent_runs() {
	rest "/repos/$REPO/actions/workflows/agent.yml/runs?per_page=100" |
		jq -c '[.workflow_runs[] | {id, name, cid: (.name | ltrimstr("agent "))}] | reverse'
}

discussion() {
	graphql "$BOT_TOKEN" 'query {
		repository(owner: "octo", name: "hello") {
			discussion(number: 1) {
				id
				labels(first: 10) { nodes { name } }
				reactionGroups { content reactors { totalCount } }
				comments(first: 50) {
					nodes {
						author { login } body
						replies(first: 50) { nodes { author { login } body } }
					}
				}
			}
		}
	}' | jq '.repository.discussion'
}

# placeholder_replies counts what the placeholder lead had recess post.
placeholder_replies() {
	discussion | jq '[.comments.nodes[] | (., .replies.nodes[])
		| select(.author.login == "github-actions")
		| select(.body | startswith("Placeholder agent:"))] | length'
}

step_no=0
# run_act NAME EVENT WORKFLOW PAYLOAD RUN_ID runs one workflow under act; a non-zero exit, or a
# run past STEP_TIMEOUT, fails the test with the log.
run_act() {
	local name=$1 event=$2 workflow=$3 payload=$4 run_id=$5
	step_no=$((step_no + 1))
	local log="$work/$step_no-$name.log" t0=$SECONDS
	say "act $event: $name"
	if ! ACT_DISABLE_VERSION_CHECK=1 timeout --kill-after=10 "$STEP_TIMEOUT" "$act" "$event" \
		-W "$workflow" -e "$payload" \
		-P ubuntu-latest=-self-hosted --action-offline-mode --no-cache-server \
		--container-daemon-socket - \
		--action-cache-path "$work/act-cache" \
		--env GITHUB_API_URL="$api_url" \
		--env GITHUB_GRAPHQL_URL="$graphql_url" \
		--env GITHUB_SERVER_URL="$server_url" \
		--env GITHUB_REPOSITORY="$REPO" \
		--env GITHUB_RUN_ID="$run_id" \
		--env RECESS_CACHE_DIR="$work/tool-cache" \
		-s GITHUB_TOKEN="$BOT_TOKEN" \
		</dev/null >"$log" 2>&1; then
		tail -n 80 "$log" >&2
		fail "act $event ($name) failed or timed out after ${STEP_TIMEOUT}s; log: $log"
	fi
	grep -q 'Job succeeded' "$log" || {
		tail -n 80 "$log" >&2
		fail "act $event ($name): no 'Job succeeded' in $log"
	}
	printf '   ok in %ss\n' "$((SECONDS - t0))"
}

# agent_payload CID writes the workflow_dispatch payload recess's dispatch would have produced.
agent_payload() {
	local out="$work/agent-$1.json"
	jq --arg cid "$1" '.inputs.correlation_id = $cid' testdata/act/workflow_dispatch.agent.json >"$out"
	printf '%s\n' "$out"
}

expect() { # expect WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got $2, want $3"
	printf '   %s: %s\n' "$1" "$2"
}

# --- 1. a new discussion ------------------------------------------------------------------------

run_act intake discussion "$front_door" testdata/act/discussion.created.json 1001
runs=$(agent_runs)
expect "agent runs dispatched" "$(jq length <<<"$runs")" 1
cid1=$(jq -r '.[0].cid' <<<"$runs")
run1=$(jq -r '.[0].id' <<<"$runs")
[[ "$cid1" =~ ^c-[A-Za-z0-9._-]+$ ]] || fail "run name $(jq -r '.[0].name' <<<"$runs") carries no correlation id"
say "dispatched run $run1 with correlation id $cid1"
d=$(discussion)
expect "EYES on the discussion" "$(jq '.reactionGroups[] | select(.content == "EYES") | .reactors.totalCount' <<<"$d")" 1
expect "recess:waiting label" "$(jq '[.labels.nodes[].name] | index("recess:waiting") != null' <<<"$d")" true

# --- 2. the agent run ---------------------------------------------------------------------------

run_act agent-claim-lead-verdict workflow_dispatch "$agent" "$(agent_payload "$cid1")" "$run1"
expect "placeholder replies posted" "$(placeholder_replies)" 1

# --- 3. someone replies -------------------------------------------------------------------------

discussion_id=$(discussion | jq -r '.id')
comment_body=$(jq -r '.comment.body' testdata/act/discussion_comment.created.json)
# shellcheck disable=SC2016 # $input is a GraphQL variable
graphql "$BOB_TOKEN" 'mutation($input: AddDiscussionCommentInput!) {
	addDiscussionComment(input: $input) { comment { id } }
}' "$(jq -n --arg id "$discussion_id" --arg body "$comment_body" '{input: {discussionId: $id, body: $body}}')" >/dev/null
say "bob commented"
run_act comment discussion_comment "$front_door" testdata/act/discussion_comment.created.json 1002
runs=$(agent_runs)
expect "agent runs dispatched" "$(jq length <<<"$runs")" 2
cid2=$(jq -r '.[1].cid' <<<"$runs")
run2=$(jq -r '.[1].id' <<<"$runs")
[ "$cid2" != "$cid1" ] || fail "the fresh dispatch reused correlation id $cid1"
say "dispatched run $run2 with correlation id $cid2"

# --- 4. a stale dispatch does no work -----------------------------------------------------------

# A re-run of the first agent run: claim answers stale=true, the lead and the verdict are skipped
# (had the verdict run, recess would refuse it and the job would fail).
run_act agent-stale workflow_dispatch "$agent" "$(agent_payload "$cid1")" "$run1"
expect "placeholder replies after the stale run" "$(placeholder_replies)" 1
grep -q 'stale=true' "$work/$step_no-agent-stale.log" || fail "claim did not report stale=true (log: $work/$step_no-agent-stale.log)"

# --- 5. the scheduled sweep, while that run is out -----------------------------------------------

# The discussion is pending (an active run): the sweep visits it, finds the run recently
# dispatched and leaves it alone.
run_act sweep schedule "$front_door" testdata/act/schedule.json 1003
expect "agent runs after the sweep" "$(agent_runs | jq length)" 2

# --- 6. the fresh dispatch answers --------------------------------------------------------------

run_act agent-second workflow_dispatch "$agent" "$(agent_payload "$cid2")" "$run2"
expect "placeholder replies posted" "$(placeholder_replies)" 2

say "act-test passed in $((SECONDS - started))s"
