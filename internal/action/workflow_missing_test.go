package action

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
)

// A workflow input that names no file in the repository fails the run
// that would start the agent, with an ::error annotation and a job summary
// that name the input, the file and the fix; the discussion stays owed, and
// the first run after the input is right starts the agent once.
func TestAction_missing_agent_workflow_fails_loudly(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id, env, o := r.openEnv("alice", map[string]string{"INPUT_WORKFLOW": "agnet.yml"})
			if o.code == 0 || len(r.runs()) != 0 {
				t.Fatalf("intake with a missing agent workflow: exit %d, %d agent runs; want a failed run and none\n%s", o.code, len(r.runs()), o.stdout)
			}
			summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
			if err != nil {
				t.Fatal(err)
			}
			var annotation string
			for _, line := range strings.Split(o.stdout, "\n") {
				if strings.HasPrefix(line, "::error") {
					annotation = line
				}
			}
			for _, want := range []string{"workflow input", `"agnet.yml"`, ".github/workflows/agnet.yml"} {
				if !strings.Contains(annotation, want) {
					t.Errorf("::error annotation %q does not say %q", annotation, want)
				}
				if !strings.Contains(string(summary), want) {
					t.Errorf("job summary does not say %q:\n%s", want, summary)
				}
			}
			c, err := r.gh.Comment(id, "bob", "any news?")
			if err != nil {
				t.Fatal(err)
			}
			payload, err := r.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "created"})
			if err != nil {
				t.Fatal(err)
			}
			r.ok(r.action("discussion_comment", payload, nil), "the next event with the input right")
			if len(r.runs()) != 1 {
				t.Errorf("agent runs after the input was fixed = %d, want 1", len(r.runs()))
			}
		})
	}
}

// sweepCost is what one run cost on the fake GitHub: requests, and the
// writes among them (GraphQL mutations, REST calls other than GET).
type sweepCost struct{ Requests, Writes int }

// measure runs fn and counts the requests GitHub saw meanwhile.
func (r *repo) measure(fn func()) sweepCost {
	r.t.Helper()
	r.gh.ResetLog()
	fn()
	var c sweepCost
	for _, q := range r.gh.Requests() {
		c.Requests++
		if q.Mutation || !q.GraphQL && q.Method != "GET" {
			c.Writes++
		}
	}
	return c
}

// A dispatch GitHub refuses for a reason no retry fixes (here the agent
// workflow the workflow input names does not exist) is escalated once per
// discussion: one note that mentions escalate-to, the recess:escalated
// label, one failed run. Then it costs a sweep nothing more than any
// waiting discussion: no visit, no write. Once the setup changes (the
// workflow appears), the next sweep dispatches each owed run, once. The
// status comment says a maintainer was told only when escalate-to names
// someone, and otherwise what to do.
func TestAction_refused_dispatch_escalates_once_and_costs_sweeps_nothing(t *testing.T) {
	t.Parallel()
	const owed = 12
	for _, tc := range []struct {
		store, escalateTo string
	}{
		{storeComment, "lead"},
		{storeComment, ""},
		{storeBranch, "lead"},
	} {
		name := tc.store + "_escalate_to_" + cmp.Or(tc.escalateTo, "nobody")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, tc.store)
			inputs := map[string]string{"INPUT_WORKFLOW": "answer.yml", "INPUT_ESCALATE-TO": tc.escalateTo}
			ids := map[int]string{}
			for range owed {
				n, id, o := r.openWith("alice", inputs)
				if o.code == 0 {
					t.Fatalf("intake with a missing agent workflow: exit 0, want a failed run\n%s", o.stdout)
				}
				ids[n] = id
			}
			// A sweep as the shipped workflows run it: the plan, then a visit
			// of each discussion it lists; failed is how many runs failed.
			sweep := func(what string) (visits, failed int, c sweepCost) {
				schedule := []byte(`{"schedule":"2-59/5 * * * *"}`)
				c = r.measure(func() {
					plan := r.action("schedule", schedule, withInputs(inputs, "INPUT_COMMAND", "plan"))
					if plan.code != 0 {
						failed++
					}
					var list []int
					if err := json.Unmarshal([]byte(plan.outputs["discussions"]), &list); err != nil {
						t.Fatalf("plan output discussions %q: %v", plan.outputs["discussions"], err)
					}
					for _, n := range list {
						visit := withInputs(withInputs(inputs, "INPUT_COMMAND", "visit"), "INPUT_DISCUSSION", strconv.Itoa(n))
						if o := r.action("schedule", schedule, visit); o.code != 0 {
							failed++
						}
					}
					visits = len(list)
				})
				t.Logf("%s: %d visits, %d requests, %d writes, %d failed runs", what, visits, c.Requests, c.Writes, failed)
				return visits, failed, c
			}
			for i, at := range []time.Duration{7 * time.Minute, 5 * time.Minute} {
				r.clock.Step(at)
				visits, failed, c := sweep(fmt.Sprintf("sweep %d over %d discussions owed a refused dispatch", i+1, owed))
				if visits != 0 || failed != 0 || c.Writes != 0 || c.Requests > 4 {
					t.Errorf("sweep %d: %d visits, %d failed runs, %d requests, %d writes; want no visit, no failure, no write, at most the listing, the probe and a look at the agent workflow (4 requests)", i+1, visits, failed, c.Requests, c.Writes)
				}
			}
			if n := len(r.runs()); n != 0 {
				t.Fatalf("agent runs = %d, want none while the workflow is missing", n)
			}
			for n, id := range ids {
				var notes []string
				for _, c := range r.recessComments(id) {
					if strings.HasPrefix(c.Body, "⚠️") && !strings.Contains(c.Body, "recess:state") {
						notes = append(notes, c.Body)
					}
				}
				if len(notes) != 1 {
					t.Fatalf("discussion %s: %d escalation notes, want 1: %q", id, len(notes), notes)
				}
				if mentioned := strings.Contains(notes[0], "@lead"); mentioned != (tc.escalateTo != "") {
					t.Errorf("discussion %s: note mentions @lead = %v, want %v: %q", id, mentioned, tc.escalateTo != "", notes[0])
				}
				if !r.hasLabel(n, "recess:escalated") {
					t.Errorf("discussion %s: no recess:escalated label", id)
				}
				if tc.store != storeComment {
					continue
				}
				status := r.statusText(id)
				told := strings.Contains(status, "A maintainer was told")
				if told != (tc.escalateTo != "") || !strings.Contains(status, "/recess retry") {
					t.Errorf("discussion %s: status %q; says a maintainer was told: %v, want %v, and it must say what to do", id, status, told, tc.escalateTo != "")
				}
				if tc.escalateTo == "" && !strings.Contains(status, "please let a maintainer of this repository know") {
					t.Errorf("discussion %s: status %q does not say what to do when nobody is mentioned", id, status)
				}
			}

			// The setup changes: the agent workflow appears.
			if err := r.gh.AddWorkflow(hostileRepo, "answer.yml", map[string]githubfake.InputSpec{
				"correlation_id": {Required: true}, "discussion_number": {Required: true}, "resume_context": {}}, nil); err != nil {
				t.Fatal(err)
			}
			r.clock.Step(5 * time.Minute)
			if visits, failed, _ := sweep("the sweep after the workflow appeared"); visits != owed || failed != 0 {
				t.Errorf("sweep after the fix: %d visits, %d failed runs; want %d and none", visits, failed, owed)
			}
			if n := len(r.runs()); n != owed {
				t.Errorf("agent runs after the workflow appeared = %d, want %d (one per discussion)", n, owed)
			}
			r.clock.Step(5 * time.Minute)
			sweep("the next sweep")
			if n := len(r.runs()); n != owed {
				t.Errorf("agent runs after the next sweep = %d, want still %d", n, owed)
			}
		})
	}
}

// recessComments are the comments recess's identity wrote in a discussion.
func (r *repo) recessComments(discussionID string) []githubfake.Comment {
	r.t.Helper()
	cs, err := r.gh.Comments(discussionID)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []githubfake.Comment
	for _, c := range cs {
		if c.Author == hostileBot {
			out = append(out, c)
		}
	}
	return out
}

// statusText is the visible text of recess's status comment ("" if none).
func (r *repo) statusText(discussionID string) string {
	for _, c := range r.recessComments(discussionID) {
		if strings.Contains(c.Body, "recess:state") {
			return shown(c.Body)
		}
	}
	return ""
}

// hasLabel reports whether discussion n carries the label.
func (r *repo) hasLabel(n int, name string) bool {
	r.t.Helper()
	d, err := r.gh.Discussion(hostileRepo, n)
	if err != nil {
		r.t.Fatal(err)
	}
	return slices.ContainsFunc(d.Labels, func(l string) bool { return strings.EqualFold(l, name) })
}
