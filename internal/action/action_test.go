package action

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/internal/githubfake"
)

// newRepoAs is newRepo with recess running as another identity than the
// workflow token's (a GitHub App, say).
func newRepoAs(t *testing.T, store, bot string) *repo {
	t.Helper()
	r := &repo{t: t, store: store, dir: t.TempDir(), clock: fakeclock.New(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)), seq: 7000}
	r.gh = githubfake.New(githubfake.WithClock(r.clock.Now), githubfake.WithContentCreationLimit(0))
	if err := r.gh.InstallRecess(githubfake.RecessSetup{Owner: "octo", Name: "rfcs", Token: hostileToken, Bot: bot}); err != nil {
		t.Fatal(err)
	}
	r.gh.Start()
	t.Cleanup(r.gh.Close)
	return r
}

// Whose comment an event is about is GitHub's viewerDidAuthor, never the
// payload's login: with recess running as an App, a comment by the
// workflow token's bot (another workflow) is someone else's and counts,
// and recess's own comments never do.
func TestAction_own_identity_is_viewerDidAuthor(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepoAs(t, store, "recess-app")
			r.gh.AddAccount("github-actions", githubfake.KindBot)
			_, id, _ := r.recessed(`{"kind":"missing_input","replies":1}`)
			before := len(r.runs())

			// recess's own comment (its identity, a bot as well): no reply.
			_, o := r.say(id, "recess-app", "a note recess wrote itself")
			if r.ok(o, "inbound of recess's own comment"); o.outputs["fired"] != "false" || len(r.runs()) != before {
				t.Fatalf("recess's own comment fired the recess (fired %q, %d new run(s))", o.outputs["fired"], len(r.runs())-before)
			}

			// Another workflow's comment: github-actions[bot] in the payload,
			// not recess. It is a reply like any other.
			_, o = r.say(id, "github-actions", "the nightly build is green")
			if r.ok(o, "inbound of another bot's comment"); o.outputs["fired"] != "true" || len(r.runs()) != before+1 {
				t.Fatalf("another bot's comment did not count (fired %q, %d new run(s))\n%s", o.outputs["fired"], len(r.runs())-before, o.stdout)
			}
		})
	}
}

// A dry run in action mode says what it would do: it reports no fire in
// its outputs and never "dispatched | true" under "nothing was written".
func TestAction_dry_run_says_would(t *testing.T) {
	t.Parallel()
	r := newRepo(t, storeComment)
	r.recessed(`{"kind":"elapsed","elapsed":"PT1H"}`)
	r.clock.Step(2 * time.Hour)
	runs := len(r.runs())
	env, o := r.actionEnv("schedule", []byte(`{"schedule":"*/5 * * * *"}`), map[string]string{"INPUT_DRY-RUN": "true"})
	r.ok(o, "dry-run sweep")
	if len(r.runs()) != runs {
		t.Fatalf("a dry run dispatched")
	}
	if o.outputs["fired"] != "false" || o.outputs["correlation_id"] != "" || o.outputs["fired_by"] != "" {
		t.Errorf("dry-run outputs = %v, want nothing fired", o.outputs)
	}
	b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	summary := string(b)
	for _, want := range []string{"**dry run: nothing was written**", "| would dispatch an agent run | yes |", "| would resume a recess | yes |",
		"**What a real run would have written**", "#1: would dispatch the agent workflow: a resumed run",
		"<details><summary>The engine's notes, as a real run would record them</summary>"} {
		if !strings.Contains(summary, want) {
			t.Errorf("dry-run summary lacks %q:\n%s", want, summary)
		}
	}
	for _, bad := range []string{"| dispatched |", "| fired |", "&lt;sub&gt;", "| correlation id |", "**What happened**"} {
		if strings.Contains(summary, bad) {
			t.Errorf("dry-run summary contains %q:\n%s", bad, summary)
		}
	}

	// The same sweep for real: dispatched and fired, in the same words as
	// ever.
	env, o = r.actionEnv("schedule", []byte(`{"schedule":"*/5 * * * *"}`), nil)
	r.ok(o, "sweep")
	b, err = os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); o.outputs["fired"] != "true" || !strings.Contains(s, "| dispatched | true |\n| fired | true |") || strings.Contains(s, "would") {
		t.Errorf("real sweep: fired %q, summary:\n%s", o.outputs["fired"], s)
	}
}

// The job log says what happened, one line a note, where a person reading
// why a run did nothing looks first (the summary holds the same notes).
func TestAction_job_log_says_what_happened(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{name: "dispatched", want: "recess: new discussion: fresh dispatch\n"},
		{name: "out_of_scope", inputs: map[string]string{"INPUT_CATEGORIES": "RFCs"},
			want: "recess: discussion 1 is out of scope (categories): nothing to do\n"},
		{name: "not_mentioned", inputs: map[string]string{"INPUT_WAKE-ON": "mention", "INPUT_MENTION-HANDLES": "@lead"},
			want: "recess: the new discussion, not mentioning @lead (wake-on mention): nothing to do\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, storeComment)
			_, _, o := r.openWith("alice", tt.inputs)
			r.ok(o, "intake")
			if !strings.Contains(o.stdout, tt.want) {
				t.Errorf("the job log lacks %q:\n%s", tt.want, o.stdout)
			}
		})
	}
}
