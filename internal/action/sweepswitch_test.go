package action

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

const sweepFile = "recess-sweep.yml"

// sweepOnly is the input that keeps the sweep workflow on only while
// something waits, as the front door's event job and the sweep's plan pass
// it.
var sweepOnly = map[string]string{"INPUT_SWEEP-ONLY-WHILE-WAITING": "true"}

// withSweep is sweepOnly and more inputs.
func withSweep(more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range sweepOnly {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// newSweepRepo is newRepo with the sweep's own workflow, in state from.
func newSweepRepo(t *testing.T, store, from string) *repo {
	t.Helper()
	r := newRepo(t, store)
	if err := r.gh.AddWorkflow(hostileRepo, sweepFile, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.gh.SetWorkflowState(hostileRepo, sweepFile, from); err != nil {
		t.Fatal(err)
	}
	return r
}

// sweepState is the sweep workflow's state on the fake GitHub.
func (r *repo) sweepState() string {
	r.t.Helper()
	s, err := r.gh.WorkflowState(hostileRepo, sweepFile)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// switchCalls runs fn and returns the requests it sent about the sweep
// workflow ("GET", "PUT enable", "PUT disable").
func (r *repo) switchCalls(fn func()) []string {
	r.t.Helper()
	r.gh.ResetLog()
	fn()
	var out []string
	prefix := "/repos/" + hostileRepo + "/actions/workflows/" + sweepFile
	for _, q := range r.gh.Requests() {
		if q.GraphQL || !strings.HasPrefix(q.Path, prefix) {
			continue
		}
		call := q.Method
		if rest := strings.TrimPrefix(q.Path, prefix); rest != "" {
			call += " " + strings.TrimPrefix(rest, "/")
		}
		out = append(out, call)
	}
	return out
}

// sayWith comments and runs the front door's event job with extra inputs.
func (r *repo) sayWith(discussionID, author, body string, extra map[string]string) outcome {
	r.t.Helper()
	c, err := r.gh.Comment(discussionID, author, body)
	if err != nil {
		r.t.Fatal(err)
	}
	payload, err := r.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "created"})
	if err != nil {
		r.t.Fatal(err)
	}
	return r.action("discussion_comment", payload, extra)
}

// plan runs the sweep's plan job, with the input on.
func (r *repo) plan() outcome {
	r.t.Helper()
	return r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), withSweep(map[string]string{"INPUT_COMMAND": "plan"}))
}

// The sweep workflow is on exactly while something waits: the intake that
// leaves a run at work enables it, the event runs on the waiting
// discussion only look, a plan with something pending sends nothing about
// it, a plan that finds nothing pending disables it, and a run that leaves
// nothing pending sends nothing.
func TestSweepSwitch_on_while_something_waits(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newSweepRepo(t, store, githubfake.WorkflowDisabledManually)
			type step struct {
				Calls []string
				State string
			}
			check := func(what string, calls []string, want step) {
				t.Helper()
				if d := cmp.Diff(want, step{Calls: calls, State: r.sweepState()}); d != "" {
					t.Errorf("%s (-want +got):\n%s", what, d)
				}
			}

			var id string
			calls := r.switchCalls(func() {
				var o outcome
				_, id, o = r.openWith("alice", sweepOnly)
				r.ok(o, "intake")
			})
			check("intake that leaves a run at work", calls, step{[]string{"GET", "PUT enable"}, "active"})

			first := r.newest()
			r.answer(first, "recessed", map[string]any{"trigger": json.RawMessage(`{"kind":"elapsed","elapsed":"PT1H"}`),
				"replies": []map[string]string{{"body": "Which storage backend should we assume?"}}})
			r.clock.Step(time.Minute)

			calls = r.switchCalls(func() { r.ok(r.sayWith(id, "bob", "a thought while it waits", sweepOnly), "inbound") })
			check("a comment on the waiting discussion", calls, step{[]string{"GET"}, "active"})

			calls = r.switchCalls(func() { r.ok(r.plan(), "plan with a recess waiting") })
			check("a plan with something pending", calls, step{nil, "active"})

			r.clock.Step(2 * time.Hour)
			runs := len(r.runs())
			calls = r.switchCalls(func() {
				plan := r.ok(r.plan(), "plan with a recess due")
				if plan.outputs["discussions"] == "[]" {
					t.Fatalf("plan with a recess due lists nothing")
				}
				r.ok(r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), map[string]string{"INPUT_COMMAND": "visit", "INPUT_DISCUSSION": plan.outputs["discussions"][1:2]}), "visit")
			})
			check("the sweep that resumes the recess", calls, step{nil, "active"})
			if len(r.runs()) != runs+1 {
				t.Fatalf("the due recess was not resumed: %d runs, want %d", len(r.runs()), runs+1)
			}
			r.answer(r.newest(), "adjourned", nil)

			calls = r.switchCalls(func() { r.ok(r.plan(), "plan with nothing pending") })
			check("a plan that finds nothing pending", calls, step{[]string{"PUT disable"}, "disabled_manually"})

			calls = r.switchCalls(func() {
				r.ok(r.sayWith(id, "dependabot[bot]", "bump", withSweep(map[string]string{"INPUT_IGNORE-AUTHORS": "dependabot[bot]"})), "ignored comment")
			})
			check("a run that leaves nothing pending", calls, step{nil, "disabled_manually"})
		})
	}
}

// A switch that fails loses nothing: the run reports it with the fix and
// succeeds, a comment still resumes the recess on its own event while the
// sweep is off, and the next event run on the waiting discussion switches
// it on. GitHub's own disabled_inactivity is healed the same way.
func TestSweepSwitch_failure_is_retried_and_loses_nothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		from     string
		fail     int
		wantWarn string // in the ::warning annotation
	}{
		{name: "token_without_actions_write", from: githubfake.WorkflowDisabledManually, fail: 403, wantWarn: "actions: write"},
		{name: "github_had_a_bad_moment", from: githubfake.WorkflowDisabledManually, fail: 502, wantWarn: "gh workflow enable " + sweepFile},
		{name: "switched_off_for_inactivity", from: githubfake.WorkflowDisabledInactivity},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newSweepRepo(t, "comment", tc.from)
			if err := r.gh.FailWorkflowSwitch(hostileRepo, tc.fail); err != nil {
				t.Fatal(err)
			}
			_, id, o := r.openWith("alice", sweepOnly)
			r.ok(o, "intake")
			if tc.fail != 0 {
				if !strings.Contains(o.stdout, "::warning") || !strings.Contains(o.stdout, tc.wantWarn) {
					t.Errorf("intake with a failing switch: no ::warning naming %q:\n%s", tc.wantWarn, o.stdout)
				}
				if got := r.sweepState(); got != tc.from {
					t.Errorf("sweep workflow = %s after a failed switch, want %s", got, tc.from)
				}
			}
			if len(r.runs()) != 1 {
				t.Fatalf("intake dispatched %d runs, want 1 whatever the switch did", len(r.runs()))
			}
			r.answer(r.newest(), "recessed", map[string]any{"trigger": json.RawMessage(`{"kind":"missing_input","replies":1}`),
				"replies": []map[string]string{{"body": "Which storage backend should we assume?"}}})
			r.clock.Step(time.Minute)
			if err := r.gh.SetWorkflowState(hostileRepo, sweepFile, tc.from); err != nil {
				t.Fatal(err)
			}

			// The reply resumes the recess on its own event, the sweep off.
			o = r.ok(r.sayWith(id, "bob", "Postgres, please.", sweepOnly), "reply")
			if o.outputs["fired"] != "true" || o.outputs["fired_by"] != "missing_input" {
				t.Errorf("reply with the sweep %s: fired %q by %q, want the recess resumed by missing_input", tc.from, o.outputs["fired"], o.outputs["fired_by"])
			}
			if tc.fail != 0 {
				if got := r.sweepState(); got != tc.from {
					t.Errorf("sweep workflow = %s while the switch fails, want %s", got, tc.from)
				}
				if err := r.gh.FailWorkflowSwitch(hostileRepo, 0); err != nil {
					t.Fatal(err)
				}
				// The next event run on the waiting discussion tries again.
				r.ok(r.sayWith(id, "carol", "and a cache", sweepOnly), "next comment")
			}
			if got := r.sweepState(); got != githubfake.WorkflowActive {
				t.Errorf("sweep workflow = %s after the next run on a waiting discussion, want active", got)
			}
		})
	}
}

// A plan (or a whole sweep) that cannot disable the sweep says so and
// succeeds; the next one disables it.
func TestSweepSwitch_failed_disable_is_retried_by_the_next_plan(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"plan", "sweep"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			r := newSweepRepo(t, "branch", githubfake.WorkflowActive)
			run := func(what string) outcome {
				return r.ok(r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), withSweep(map[string]string{"INPUT_COMMAND": command})), what)
			}
			if err := r.gh.FailWorkflowSwitch(hostileRepo, 502); err != nil {
				t.Fatal(err)
			}
			o := run("the first " + command)
			if !strings.Contains(o.stdout, "::warning") || !strings.Contains(o.stdout, "gh workflow disable "+sweepFile) {
				t.Errorf("%s with a failing disable: no ::warning with the fix:\n%s", command, o.stdout)
			}
			if got := r.sweepState(); got != githubfake.WorkflowActive {
				t.Errorf("sweep workflow = %s after a failed disable, want active", got)
			}
			if err := r.gh.FailWorkflowSwitch(hostileRepo, 0); err != nil {
				t.Fatal(err)
			}
			run("the next " + command)
			if got := r.sweepState(); got != githubfake.WorkflowDisabledManually {
				t.Errorf("sweep workflow = %s after the next %s, want disabled_manually", got, command)
			}
		})
	}
}

// A sweep workflow the repository does not have is reported with the fix,
// and the run goes on.
func TestSweepSwitch_missing_workflow_names_the_fix(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	_, _, o := r.openWith("alice", sweepOnly)
	r.ok(o, "intake")
	if !strings.Contains(o.stdout, "::warning") || !strings.Contains(o.stdout, "add .github/workflows/"+sweepFile) {
		t.Errorf("intake without the sweep workflow: no ::warning naming the file to add:\n%s", o.stdout)
	}
	if len(r.runs()) != 1 {
		t.Errorf("intake dispatched %d runs, want 1", len(r.runs()))
	}
}

// Without the input, no run looks at any workflow's state.
func TestSweepSwitch_off_by_default(t *testing.T) {
	t.Parallel()
	r := newSweepRepo(t, "comment", githubfake.WorkflowDisabledManually)
	calls := r.switchCalls(func() { r.open("alice") })
	calls = append(calls, r.switchCalls(func() {
		r.ok(r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), map[string]string{"INPUT_COMMAND": "plan"}), "plan")
	})...)
	if len(calls) != 0 || r.sweepState() != githubfake.WorkflowDisabledManually {
		t.Errorf("without sweep-only-while-waiting: calls %v, state %s; want none and disabled_manually", calls, r.sweepState())
	}
}

// Refused settings name the input, and an event run refused for them
// changes nothing.
func TestSweepSwitch_refusals(t *testing.T) {
	t.Parallel()
	in := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name   string
		inputs map[string]string
	}{
		{"not_a_boolean", map[string]string{"sweep-only-while-waiting": "sometimes"}},
		{"a_path", map[string]string{"sweep-only-while-waiting": "true", "sweep-workflow": ".github/workflows/recess-sweep.yml"}},
		{"not_yaml", map[string]string{"sweep-only-while-waiting": "true", "sweep-workflow": "recess-sweep"}},
		{"the_agent_workflow", map[string]string{"sweep-only-while-waiting": "true", "workflow": "agent.yml", "sweep-workflow": "Agent.yml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadSettings(in(tc.inputs), t.TempDir())
			want := inputField(inSweepWorkflow)
			if tc.name == "not_a_boolean" {
				want = inputField(inSweepOnlyWhileWaiting)
			}
			if got := RefusedField(err); got != want {
				t.Errorf("loadSettings(%v) = %v, want a refusal naming %s", tc.inputs, err, want)
			}
		})
	}
	t.Run("event_run_from_the_sweep_workflow", func(t *testing.T) {
		t.Parallel()
		r := newSweepRepo(t, "comment", githubfake.WorkflowDisabledManually)
		var o outcome
		calls := r.switchCalls(func() {
			_, _, o = r.openWith("alice", withSweep(map[string]string{"GITHUB_WORKFLOW_REF": hostileRepo + "/.github/workflows/" + sweepFile + "@refs/heads/main"}))
		})
		if o.code != ExitRefused || !strings.Contains(o.stdout, "input "+inSweepWorkflow) {
			t.Errorf("event run from the sweep workflow: exit %d, want %d naming input %s\n%s", o.code, ExitRefused, inSweepWorkflow, o.stdout)
		}
		if len(calls) != 0 || len(r.runs()) != 0 {
			t.Errorf("refused run: %v switch calls, %d runs; want none", calls, len(r.runs()))
		}
	})
}

// A plan that switches the sweep off looks again, and turns it back on when
// a concurrent run opened something between its listing and the switch.
func TestSweepSwitch_off_undone_when_something_started_waiting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		second    []state.Summary
		secondErr error
		want      []string
		wantWarn  bool
	}{
		{name: "still_nothing", want: []string{"disable"}},
		{name: "a_recess_opened_meanwhile", second: []state.Summary{{Discussion: 7, Known: true}}, want: []string{"disable", "enable"}},
		{name: "second_listing_failed", secondErr: context.DeadlineExceeded, want: []string{"disable", "enable"}, wantWarn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := &listings{answers: [][]state.Summary{nil, tc.second}, errs: []error{nil, tc.secondErr}}
			e := &resume.Engine{Clock: resume.ClockFunc(func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }), Store: st}
			sw := &recordingSwitch{}
			res, err := e.Plan(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			inv := &invocation{settings: &settings{SweepWorkflow: sweepFile, Engine: resume.Config{SweepOnlyWhileWaiting: true}}}
			switchSweep(context.Background(), e, sw, inv, res)
			if d := cmp.Diff(tc.want, sw.calls); d != "" {
				t.Errorf("switch calls (-want +got):\n%s", d)
			}
			if (len(res.Warnings) > 0) != tc.wantWarn {
				t.Errorf("warnings = %q, want some: %v", res.Warnings, tc.wantWarn)
			}
		})
	}
}

// listings is a store whose Pending answers in turn.
type listings struct {
	resume.Store
	answers [][]state.Summary
	errs    []error
	n       int
}

func (l *listings) Pending(context.Context) ([]state.Summary, error) {
	i := min(l.n, len(l.answers)-1)
	l.n++
	return l.answers[i], l.errs[i]
}

// recordingSwitch records the switches asked of it.
type recordingSwitch struct{ calls []string }

func (s *recordingSwitch) WorkflowState(context.Context, string) (string, error) {
	s.calls = append(s.calls, "state")
	return "active", nil
}

func (s *recordingSwitch) EnableWorkflow(context.Context, string) error {
	s.calls = append(s.calls, "enable")
	return nil
}

func (s *recordingSwitch) DisableWorkflow(context.Context, string) error {
	s.calls = append(s.calls, "disable")
	return nil
}

// What the switch costs, in requests, over the same story with the input
// off and on: a plan with nothing pending pays the disable and a second
// listing (and on the comment store, outside the hour's first slot, the
// look at the recently updated discussions that makes sure no pending
// record lost its label: a page, and the bodies of recess's comments there
// once it has written any); the intake that leaves a run at work pays a
// look and the enable; a comment on the waiting discussion pays a look; a
// plan with something pending pays nothing. BENCHMARKS.md quotes these
// counts.
func TestSweepSwitch_cost(t *testing.T) {
	t.Parallel()
	type cost struct {
		EmptyPlan, Intake, Comment, BusyPlan, IdlePlan int
	}
	for _, tc := range []struct {
		store string
		extra cost // with the input on, over the same run with it off
	}{
		{"comment", cost{EmptyPlan: 3, Intake: 2, Comment: 1, BusyPlan: 0, IdlePlan: 4}},
		{"branch", cost{EmptyPlan: 2, Intake: 2, Comment: 1, BusyPlan: 0, IdlePlan: 2}},
	} {
		t.Run(tc.store, func(t *testing.T) {
			t.Parallel()
			story := func(inputs map[string]string) cost {
				r := newSweepRepo(t, tc.store, githubfake.WorkflowActive)
				// Past the hour's first slot, where the comment store's
				// plan also looks at recently updated discussions.
				r.clock.Step(7 * time.Minute)
				count := func(fn func()) int {
					r.gh.ResetLog()
					fn()
					return len(r.gh.Requests())
				}
				schedule := []byte(`{"schedule":"2-59/5 * * * *"}`)
				plan := func() { r.ok(r.action("schedule", schedule, withInputs(inputs, "INPUT_COMMAND", "plan")), "plan") }
				var c cost
				var id string
				c.EmptyPlan = count(plan)
				c.Intake = count(func() {
					var o outcome
					_, id, o = r.openWith("alice", inputs)
					r.ok(o, "intake")
				})
				r.answer(r.newest(), "recessed", map[string]any{"trigger": json.RawMessage(`{"kind":"elapsed","elapsed":"PT1H"}`),
					"replies": []map[string]string{{"body": "Which storage backend should we assume?"}}})
				r.clock.Step(time.Minute)
				c.Comment = count(func() { r.ok(r.sayWith(id, "bob", "a thought", inputs), "comment") })
				c.BusyPlan = count(plan)
				r.ok(r.sayWith(id, "maya", "/recess cancel", inputs), "cancel")
				c.IdlePlan = count(plan)
				return c
			}
			off, on := story(nil), story(sweepOnly)
			got := cost{on.EmptyPlan - off.EmptyPlan, on.Intake - off.Intake, on.Comment - off.Comment, on.BusyPlan - off.BusyPlan, on.IdlePlan - off.IdlePlan}
			t.Logf("%s store, requests without the switch %+v, with it %+v", tc.store, off, on)
			if d := cmp.Diff(tc.extra, got); d != "" {
				t.Errorf("requests the switch adds (-want +got):\n%s", d)
			}
		})
	}
}

// withInputs is inputs plus one more.
func withInputs(inputs map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for kk, vv := range inputs {
		out[kk] = vv
	}
	return out
}

// A verdict that opens a recess makes sure the sweep is on: a plan whose
// listing lagged behind may have switched it off while the agent worked,
// and a recess that waits for time alone sees no event that would heal it.
func TestSweepSwitch_on_after_a_verdict_that_recesses(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newSweepRepo(t, store, githubfake.WorkflowActive)
			_, _, o := r.openWith("alice", sweepOnly)
			r.ok(o, "intake")
			// The sweep went off while the agent worked.
			if err := r.gh.SetWorkflowState(hostileRepo, sweepFile, githubfake.WorkflowDisabledManually); err != nil {
				t.Fatal(err)
			}
			ru := r.newest()
			if c := r.ok(r.agent(ru, "claim", nil), "claim"); c.outputs["stale"] != "false" {
				t.Fatalf("claim: stale = %q", c.outputs["stale"])
			}
			doc, _ := json.Marshal(map[string]any{"verdict": "recessed", "correlation_id": ru.Inputs["correlation_id"], "discussion_number": 1,
				"trigger": json.RawMessage(`{"kind":"elapsed","elapsed":"P2D"}`)})
			calls := r.switchCalls(func() { r.ok(r.agentWith(ru, "verdict", doc, sweepOnly), "verdict") })
			if d := cmp.Diff([]string{"GET", "PUT enable"}, calls); d != "" {
				t.Errorf("the verdict's calls to the sweep workflow (-want +got):\n%s", d)
			}
			if got := r.sweepState(); got != githubfake.WorkflowActive {
				t.Errorf("sweep workflow after the verdict = %q, want %q", got, githubfake.WorkflowActive)
			}
		})
	}
}

// The comment store's plan looks at recently updated discussions in the
// hour's first sweep slot, read from the run's clock (RECESS_NOW), not the
// wall clock: the same plan at 10:00 looks and at 10:07 does not.
func TestSweepPlan_hourly_look_follows_the_runs_clock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		after time.Duration
		want  []string
	}{
		{"first_slot", 0, []string{"search", "repository"}},
		{"later_slot", 7 * time.Minute, []string{"search"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newSweepRepo(t, "comment", githubfake.WorkflowActive)
			r.clock.Step(tc.after)
			r.gh.ResetLog()
			r.ok(r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), map[string]string{"INPUT_COMMAND": "plan"}), "plan")
			var got []string
			for _, q := range r.gh.Requests() {
				got = append(got, q.Fields...)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("plan requests (-want +got):\n%s", d)
			}
		})
	}
}

// A workflow or state-branch input the GitHub adapter cannot use is a
// refusal that names the input, not the adapter's Config field, and the
// run changes nothing.
func TestAdapterSettings_refusals_name_the_input(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, store string
		inputs      map[string]string
		field       string
	}{
		{"workflow_path", "comment", map[string]string{"INPUT_WORKFLOW": "a/agent.yml"}, inputField(inWorkflow)},
		{"state_branch", "branch", map[string]string{"INPUT_STATE-BRANCH": "bad..name"}, inputField(inStateBranch)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, tc.store)
			r.gh.ResetLog()
			_, _, o := r.openWith("alice", tc.inputs)
			if o.code != ExitRefused || !strings.Contains(o.stdout, tc.field) {
				t.Errorf("exit %d, want %d naming %q:\n%s", o.code, ExitRefused, tc.field, o.stdout)
			}
			if n := len(r.gh.Requests()); n != 0 {
				t.Errorf("a refused run sent %d requests, want none", n)
			}
		})
	}
}

// sweepTick is one scheduled run of the sweep workflow, as GitHub runs it:
// nothing at all while the workflow is not active; otherwise the plan, then
// a visit of each discussion it lists. It reports whether the sweep ran.
func (r *repo) sweepTick() bool {
	r.t.Helper()
	if r.sweepState() != githubfake.WorkflowActive {
		return false
	}
	plan := r.ok(r.plan(), "plan")
	var visit []int
	if err := json.Unmarshal([]byte(plan.outputs["discussions"]), &visit); err != nil {
		r.t.Fatalf("plan output discussions %q: %v", plan.outputs["discussions"], err)
	}
	for _, n := range visit {
		r.ok(r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), map[string]string{"INPUT_COMMAND": "visit", "INPUT_DISCUSSION": strconv.Itoa(n)}), "visit")
	}
	return true
}

// A pending record whose waiting label a person removed is still pending:
// the sweep that finds nothing by the label, outside the hour's first slot,
// does not switch itself off while such a record may exist, so a recess
// that waits only on time still fires (and the comment store's label comes
// back with the visit). The branch store lists its records from its index.
func TestSweepSwitch_keeps_a_time_only_recess_whose_label_was_removed(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newSweepRepo(t, store, githubfake.WorkflowActive)
			_, id, o := r.openWith("alice", sweepOnly)
			r.ok(o, "intake")
			r.answer(r.newest(), "recessed", map[string]any{"trigger": json.RawMessage(`{"kind":"elapsed","elapsed":"PT2H"}`),
				"replies": []map[string]string{{"body": "Let us come back to this in two hours."}}})
			runs := len(r.runs())
			labelled := func() bool {
				d, err := r.gh.Discussion(hostileRepo, 1)
				if err != nil {
					t.Fatal(err)
				}
				return slices.ContainsFunc(d.Labels, func(l string) bool { return strings.EqualFold(l, resume.LabelWaiting) })
			}
			if store == "comment" {
				if !labelled() {
					t.Fatalf("the waiting discussion has no %s label", resume.LabelWaiting)
				}
				if err := r.gh.UnlabelDiscussion(id, resume.LabelWaiting); err != nil {
					t.Fatal(err)
				}
			}
			// 10:07, 10:32: sweeps outside the hour's first slot.
			r.clock.Step(6 * time.Minute)
			if !r.sweepTick() {
				t.Fatal("the sweep did not run at 10:07")
			}
			if got := r.sweepState(); got != githubfake.WorkflowActive {
				t.Fatalf("sweep workflow after the 10:07 sweep = %s, want active: a recess waits for time alone", got)
			}
			if store == "comment" && !labelled() {
				t.Errorf("the 10:07 sweep did not put the %s label back", resume.LabelWaiting)
			}
			r.clock.Step(25 * time.Minute)
			r.sweepTick()
			// 12:07: the recess is due.
			r.clock.Step(95 * time.Minute)
			if !r.sweepTick() {
				t.Fatalf("the sweep did not run at 12:07 (workflow %s)", r.sweepState())
			}
			if got := len(r.runs()); got != runs+1 {
				t.Errorf("agent runs after the recess was due = %d, want %d: the recess never fired", got, runs+1)
			}
		})
	}
}
