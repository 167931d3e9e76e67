package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recessedRepo is the fake GitHub with discussion #1 in recess: the agent
// asked a question and waits 12 hours from due.Add(-12 * time.Hour).
type recessedRepo struct {
	r      *repo
	repo   string
	discID string
	number int
	due    time.Time
}

func newRecessedRepo(t *testing.T) *recessedRepo {
	t.Helper()
	r := newRepo(t, "comment")
	at := r.clock.Now()
	n, id, _ := r.recessed(`{"kind":"elapsed","elapsed":"PT12H"}`)
	return &recessedRepo{r: r, repo: hostileRepo, discID: id, number: n, due: at.Add(12 * time.Hour)}
}

func (st *recessedRepo) clock() time.Time { return st.r.clock.Now() }

// cli runs the binary with arguments against the fake GitHub at the moment
// now.
func (st *recessedRepo) cli(now time.Time, args ...string) (code int, stdout, stderr string) {
	return st.cliEnv(now, map[string]string{"GITHUB_TOKEN": hostileToken}, args...)
}

// cliEnv is cli with the token variables of tokens (and nothing else of
// them) in the environment.
func (st *recessedRepo) cliEnv(now time.Time, tokens map[string]string, args ...string) (code int, stdout, stderr string) {
	env := map[string]string{
		"GITHUB_API_URL":     strings.TrimSuffix(st.r.gh.URL(), "/"),
		"GITHUB_GRAPHQL_URL": st.r.gh.GraphQLURL(),
		"RECESS_NOW":         now.Format(time.RFC3339),
	}
	for k, v := range tokens {
		env[k] = v
	}
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// world is what a command must not change: recess's comments, labels and
// the agent runs.
func (st *recessedRepo) world(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	cs, err := st.r.gh.Comments(st.discID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "comment %s %s %s\n", c.ID, c.UpdatedAt.Format(time.RFC3339Nano), c.Body)
	}
	d, err := st.r.gh.Discussion(st.repo, st.number)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "labels %v\n", d.Labels)
	runs, err := st.r.gh.Runs(st.repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "run %d %s %s\n", r.ID, r.Status, r.Inputs["correlation_id"])
	}
	return b.String()
}

// noMarkup fails when text meant for a terminal carries HTML or escaped
// HTML, or a dry run speaks as if it had written.
func noMarkup(t *testing.T, what, text string) {
	t.Helper()
	for _, bad := range []string{"&lt;", "&gt;", "<sub>", "<!--", "dispatched | true", "fired=true", `"fired": true`} {
		if strings.Contains(text, bad) {
			t.Errorf("%s contains %q:\n%s", what, bad, text)
		}
	}
}

func TestStatus_prints_a_table_and_JSON(t *testing.T) {
	t.Parallel()
	st := newRecessedRepo(t)
	now := st.clock()
	due := st.due
	before := st.world(t)

	code, out, errs := st.cli(now, "status", "--repo", st.repo)
	if code != 0 {
		t.Fatalf("recess status: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"recess status · octo/rfcs · at " + now.Format(time.RFC3339),
		"DISCUSSION", "WAITING", "FIRES BY TIME AT",
		"#1", "until Sat 21 Nov 22:00 UTC", due.Format(time.RFC3339),
		"1 discussion with something pending",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("recess status lacks %q:\n%s", want, out)
		}
	}
	noMarkup(t, "recess status", out)

	code, out, errs = st.cli(now, "status", "--repo", st.repo, "--json")
	if code != 0 {
		t.Fatalf("recess status --json: exit %d\n%s\n%s", code, out, errs)
	}
	var got cliReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("recess status --json is not JSON: %v\n%s", err, out)
	}
	if got.OpenRFCs != 1 || len(got.RFCs) != 1 || got.RFCs[0].DueAt == nil || !got.RFCs[0].DueAt.Equal(due) {
		t.Errorf("status rfcs = %+v, want one recess due %v", got.RFCs, due)
	}
	wantRows := []discussionRow{{Discussion: 1, Waiting: "until Sat 21 Nov 22:00 UTC", DueAt: &due}}
	if diff := cmp.Diff(wantRows, got.Discussions); diff != "" {
		t.Errorf("status discussions (-want +got):\n%s", diff)
	}
	if got.DryRun || got.Requests == 0 {
		t.Errorf("status dry_run = %v, requests = %d; want false and some", got.DryRun, got.Requests)
	}

	code, out, _ = st.cli(now, "status", "--repo", st.repo, "--discussion", "1")
	if code != 0 || !strings.Contains(out, "#1") || !strings.Contains(out, due.Format(time.RFC3339)) {
		t.Errorf("recess status --discussion 1: exit %d\n%s", code, out)
	}
	if after := st.world(t); after != before {
		t.Errorf("recess status changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestSweepDryRun_says_what_it_would_do(t *testing.T) {
	t.Parallel()
	st := newRecessedRepo(t)
	due := st.due
	before := st.world(t)

	// Before the due moment a sweep would do nothing, and says when.
	code, out, errs := st.cli(due.Add(-time.Minute), "sweep", "--dry-run", "--repo", st.repo)
	if code != 0 {
		t.Fatalf("recess sweep --dry-run: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"nothing was written", "#1", due.Format(time.RFC3339), "nothing: not due until " + due.Format(time.RFC3339), "What a real sweep now would write:\n  nothing"} {
		if !strings.Contains(out, want) {
			t.Errorf("early dry run lacks %q:\n%s", want, out)
		}
	}

	// At the due moment it would resume the agent, and writes nothing.
	code, out, errs = st.cli(due, "sweep", "--dry-run", "--repo", st.repo)
	if code != 0 {
		t.Fatalf("recess sweep --dry-run: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"recess sweep --dry-run (nothing was written) · octo/rfcs · at " + due.Format(time.RFC3339),
		"A SWEEP NOW", "would resume the agent (fired by elapsed)",
		"#1: would dispatch the agent workflow: a resumed run",
		"#1: would save the record",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run at the due moment lacks %q:\n%s", want, out)
		}
	}
	noMarkup(t, "recess sweep --dry-run", out)

	code, out, _ = st.cli(due, "sweep", "--dry-run", "--repo", st.repo, "--json")
	var got cliReport
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("recess sweep --dry-run --json: exit %d, %v\n%s", code, err, out)
	}
	if !got.DryRun || len(got.Discussions) != 1 || got.Discussions[0].Sweep != "would resume the agent (fired by elapsed)" || len(got.Would) == 0 {
		t.Errorf("dry-run JSON = %+v", got)
	}
	for _, w := range got.Would {
		if !strings.HasPrefix(w, "#1: would ") {
			t.Errorf("would line %q does not say which discussion and \"would\"", w)
		}
	}
	noMarkup(t, "recess sweep --dry-run --json", out)

	if after := st.world(t); after != before {
		t.Errorf("a dry run changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// A refusal is one line that names what to fix; the usage follows it only
// when the command was misused (a flag or argument it does not take, a
// missing --repo), never after a value or a setting that is wrong.
func TestRepoCommands_refuse_and_help(t *testing.T) {
	t.Parallel()
	st := newRecessedRepo(t)
	now := st.clock()
	for _, tc := range []struct {
		name   string
		args   []string
		tokens map[string]string
		code   int
		stdout string
		stderr string // the first line of stderr
		usage  bool   // the usage follows that line
	}{
		{"sweep_without_dry_run", []string{"sweep", "--repo", st.repo}, nil, 2, "", "recess sweep: only --dry-run", true},
		{"sweep_with_discussion", []string{"sweep", "--dry-run", "--repo", st.repo, "--discussion", "1"}, nil, 2, "", "recess sweep: --discussion is for status", true},
		{"unknown_flag", []string{"status", "--repo", st.repo, "--bogus"}, nil, 2, "", "recess status: flag provided but not defined: -bogus", true},
		{"argument", []string{"status", "--repo", st.repo, "extra"}, nil, 2, "", `recess status: unexpected argument "extra"`, true},
		{"no_repo", []string{"status"}, nil, 2, "", "recess status: --repo is missing (or set GITHUB_REPOSITORY)", true},
		{"bad_store", []string{"status", "--repo", st.repo, "--state-store", "disk"}, nil, 2, "", `recess status: --state-store: "disk" is not comment or branch`, false},
		{"bad_repo", []string{"status", "--repo", "octo"}, nil, 2, "", `recess status: --repo: "octo" is not OWNER/REPO`, false},
		{"negative_discussion", []string{"status", "--repo", st.repo, "--discussion", "-3"}, nil, 2, "", "recess status: --discussion -3 is not a discussion number", false},
		{"status_without_a_token", []string{"status", "--repo", st.repo}, map[string]string{}, 2, "", "recess status: no token: set GITHUB_TOKEN (or GH_TOKEN)", false},
		{"sweep_without_a_token", []string{"sweep", "--dry-run", "--repo", st.repo}, map[string]string{}, 2, "", "recess sweep: no token: set GITHUB_TOKEN (or GH_TOKEN)", false},
		{"status_help", []string{"status", "--help"}, nil, 0, "usage: recess status", "", false},
		{"sweep_help", []string{"sweep", "-h"}, nil, 0, "-dry-run", "", false},
		{"top_help", []string{"--help"}, nil, 0, "recess COMMAND --help", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokens := tc.tokens
			if tokens == nil {
				tokens = map[string]string{"GITHUB_TOKEN": hostileToken}
			}
			code, out, errs := st.cliEnv(now, tokens, tc.args...)
			first, rest, _ := strings.Cut(errs, "\n")
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.HasPrefix(first, tc.stderr) {
				t.Errorf("recess %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr starting %q",
					tc.args, code, out, errs, tc.code, tc.stdout, tc.stderr)
			}
			if got := strings.Contains(rest, "usage: recess"); got != tc.usage {
				t.Errorf("recess %v: usage after the refusal = %v, want %v; stderr:\n%s", tc.args, got, tc.usage, errs)
			}
			if !tc.usage && rest != "" {
				t.Errorf("recess %v: stderr is more than one line: %q", tc.args, errs)
			}
			if tc.code == 0 && errs != "" {
				t.Errorf("recess %v wrote to stderr: %q", tc.args, errs)
			}
		})
	}
}

// The repository commands take the token from GITHUB_TOKEN, else from
// GH_TOKEN (where gh users keep it); GITHUB_TOKEN wins when both are set.
func TestRepoCommands_take_the_token_from_GITHUB_TOKEN_else_GH_TOKEN(t *testing.T) {
	t.Parallel()
	st := newRecessedRepo(t)
	now := st.clock()
	for _, tc := range []struct {
		name   string
		tokens map[string]string
	}{
		{"github_token", map[string]string{"GITHUB_TOKEN": hostileToken}},
		{"gh_token", map[string]string{"GH_TOKEN": hostileToken}},
		{"github_token_over_gh_token", map[string]string{"GITHUB_TOKEN": hostileToken, "GH_TOKEN": "ghp_unknown_to_the_fake"}},
	} {
		for _, args := range [][]string{{"status", "--repo", st.repo}, {"sweep", "--dry-run", "--repo", st.repo}} {
			t.Run(tc.name+"_"+args[0], func(t *testing.T) {
				code, out, errs := st.cliEnv(now, tc.tokens, append(args, "--json")...)
				if code != exitOK {
					t.Fatalf("recess %v with %v: exit %d, stderr %q", args, tc.tokens, code, errs)
				}
				var rep cliReport
				if err := json.Unmarshal([]byte(out), &rep); err != nil {
					t.Fatalf("recess %v --json: %v\n%s", args, err, out)
				}
				if rep.OpenRFCs != 1 {
					t.Errorf("recess %v with %v: open_rfcs %d, want the one recess", args, tc.tokens, rep.OpenRFCs)
				}
			})
		}
	}
}

// A repository or discussion GitHub does not know is refused with a line
// naming it, never reported as "nothing pending"; one it knows with nothing
// pending is reported so, whatever the store.
func TestRepoCommands_name_what_GitHub_does_not_know(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			d, err := r.gh.CreateDiscussion(hostileRepo, "alice", "RFC", "never seen by recess")
			if err != nil {
				t.Fatal(err)
			}
			st := &recessedRepo{r: r, repo: hostileRepo}
			unknownRepo := "recess status: --repo: repository octo/nope was not found (or the token cannot read it)\n"
			for _, tc := range []struct {
				name   string
				args   []string
				code   int
				stderr string
				// waiting is the one row of a status that succeeds ("" for none).
				waiting string
			}{
				{"status_of_an_unknown_repository", []string{"status", "--repo", "octo/nope"}, ExitRefused, unknownRepo, ""},
				{"status_of_a_discussion_in_an_unknown_repository", []string{"status", "--repo", "octo/nope", "--discussion", "1"}, ExitRefused, unknownRepo, ""},
				{"sweep_dry_run_of_an_unknown_repository", []string{"sweep", "--dry-run", "--repo", "octo/nope"}, ExitRefused,
					"recess sweep: --repo: repository octo/nope was not found (or the token cannot read it)\n", ""},
				{"status_of_an_unknown_discussion", []string{"status", "--repo", hostileRepo, "--discussion", "7"}, ExitRefused,
					"recess status: --discussion: discussion #7 was not found in octo/rfcs\n", ""},
				{"status_of_a_discussion_without_a_record", []string{"status", "--repo", hostileRepo, "--discussion", fmt.Sprint(d.Number)}, exitOK,
					"", fmt.Sprintf("recess has no record of discussion %d", d.Number)},
				{"status_of_a_known_repository_with_nothing_pending", []string{"status", "--repo", hostileRepo}, exitOK, "", ""},
				{"sweep_dry_run_of_a_known_repository_with_nothing_pending", []string{"sweep", "--dry-run", "--repo", hostileRepo}, exitOK, "", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					code, out, errs := st.cli(r.clock.Now(), append(tc.args, "--json", "--state-store", store)...)
					if code != tc.code || errs != tc.stderr {
						t.Fatalf("recess %v: exit %d, stderr %q; want exit %d, stderr %q", tc.args, code, errs, tc.code, tc.stderr)
					}
					if tc.code != exitOK {
						if out != "" {
							t.Errorf("recess %v refused, yet printed %q", tc.args, out)
						}
						return
					}
					var rep cliReport
					if err := json.Unmarshal([]byte(out), &rep); err != nil {
						t.Fatalf("recess %v --json: %v\n%s", tc.args, err, out)
					}
					var got []string
					for _, row := range rep.Discussions {
						got = append(got, row.Waiting)
					}
					var want []string
					if tc.waiting != "" {
						want = []string{tc.waiting}
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("recess %v rows (-want +got):\n%s", tc.args, diff)
					}
				})
			}
		})
	}
}

// Every command answers --help and -h with its usage on stdout, exit 0.
func TestHelp_exits_0_everywhere(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"eval", "--help"}, {"status", "--help"}, {"sweep", "--help"}, {"prompt", "--help"}, {"mcp", "--help"},
		{"eval", "-h"}, {"status", "-h"}, {"sweep", "-h"}, {"prompt", "-h"}, {"mcp", "-h"},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "usage:") || !strings.Contains(out.String(), "recess") || errb.Len() != 0 {
			t.Errorf("recess %v: exit %d, stdout %.60q, stderr %q; want exit 0 and the usage on stdout", args, code, out.String(), errb.String())
		}
	}
	// A bad flag is refused naming the command; the lab's commands are not
	// the action binary's.
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"eval", "--bogus"}, "recess eval: flag provided but not defined: -bogus"},
		{[]string{"status", "--bogus"}, "recess status: flag provided but not defined: -bogus"},
		{[]string{"demo"}, `recess: unknown command "demo"`},
		{[]string{"scenario", "x.yaml"}, `recess: unknown command "scenario"`},
		{[]string{"act"}, `recess: unknown command "act"`},
		{[]string{"mcp-script"}, `recess: unknown command "mcp-script"`},
	} {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), tc.args, func(string) string { return "" }, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("recess %v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errb.String(), tc.stderr)
		}
	}
}

// The top-level usage and recess mcp's own name every tool the server
// lists: a reader of "recess --help" knows what the lead can call.
func TestUsage_names_every_MCP_tool(t *testing.T) {
	t.Parallel()
	m := regexp.MustCompile(`(?s)recess mcp \[flags\](.*?)\n  recess `).FindStringSubmatch(usage)
	if m == nil {
		t.Fatalf("the usage has no recess mcp entry:\n%s", usage)
	}
	line := m[1] // the entry's words, without the command's own name
	for _, tool := range inMemoryTools(t) {
		if !regexp.MustCompile(`\b` + tool.Name + `\b`).MatchString(line) {
			t.Errorf("the usage's recess mcp entry does not name the tool %s:\n%s", tool.Name, line)
		}
		if !strings.Contains(mcpUsage, tool.Name) {
			t.Errorf("recess mcp -h does not name the tool %s", tool.Name)
		}
	}
}

// The repository commands report every request they send, and their cost
// does not grow: status runs the engine once, sweep --dry-run runs the
// status and a dry-run sweep beside it.
func TestRepoCommands_report_the_requests_they_send(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"status_of_every_pending_discussion", []string{"status"}, 4},
		{"status_of_one_discussion", []string{"status", "--discussion", "1"}, 1},
		{"sweep_dry_run", []string{"sweep", "--dry-run"}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := newRecessedRepo(t)
			before := len(st.r.gh.Requests())
			code, out, errs := st.cli(st.clock(), append(tt.args, "--repo", st.repo, "--json")...)
			if code != 0 {
				t.Fatalf("recess %v: exit %d\n%s\n%s", tt.args, code, out, errs)
			}
			var got cliReport
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("recess %v --json is not JSON: %v\n%s", tt.args, err, out)
			}
			sent := len(st.r.gh.Requests()) - before
			if got.Requests != sent {
				t.Errorf("recess %v reports %d requests; the fake GitHub received %d", tt.args, got.Requests, sent)
			}
			if sent > tt.want {
				t.Errorf("recess %v sent %d requests; the budget is %d", tt.args, sent, tt.want)
			}
		})
	}
}

// sweep --dry-run reads and decides once: the status it shows and the sweep
// it predicts share one engine, so a maintainer's command that neither has
// handled yet costs one permission request, not one for each.
func TestSweepDryRun_asks_each_permission_once(t *testing.T) {
	t.Parallel()
	st := newRecessedRepo(t)
	if _, err := st.r.gh.Comment(st.discID, "maya", "/recess resume"); err != nil {
		t.Fatal(err)
	}
	before := len(st.r.gh.Requests())
	code, out, errs := st.cli(st.clock(), "sweep", "--dry-run", "--repo", st.repo, "--json")
	if code != 0 {
		t.Fatalf("recess sweep --dry-run: exit %d\n%s\n%s", code, out, errs)
	}
	var got cliReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("recess sweep --dry-run --json is not JSON: %v\n%s", err, out)
	}
	if len(got.Discussions) != 1 || got.Discussions[0].Sweep != "would resume the agent (fired by manual)" {
		t.Errorf("discussions = %+v, want #1 resumed by maya's command", got.Discussions)
	}
	sent := st.r.gh.Requests()[before:]
	asked := 0
	for _, r := range sent {
		if strings.HasSuffix(r.Path, "/collaborators/maya/permission") {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("maya's permission was asked %d times, want once", asked)
	}
	if got.Requests != len(sent) {
		t.Errorf("the report says %d requests; the fake GitHub received %d", got.Requests, len(sent))
	}
}
