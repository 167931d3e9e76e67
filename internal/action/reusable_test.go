package action

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/githubfake"
)

// The reusable workflows recess ships, each called by a job of the user's.
var reusableFiles = []string{"front-door.yml", "claim.yml", "verdict.yml"}

// reusable is one of recess's reusable workflows as its callers see it: the
// inputs it declares and the jobs that run the action.
type reusable struct {
	file   string
	inputs map[string]declaredInput
	jobs   map[string]map[string]string // job -> the action step's with
}

type declaredInput struct {
	Type        string
	Description string
	Default     yaml.Node // Kind 0: none
}

// actionStep is how the reusable workflows run the action: the published
// action of their own major version.
const actionStep = "recess-action/recess@v1"

func readReusable(t *testing.T, file string) *reusable {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		On struct {
			WorkflowCall struct {
				Inputs map[string]declaredInput
			} `yaml:"workflow_call"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string
				With map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	r := &reusable{file: file, inputs: doc.On.WorkflowCall.Inputs, jobs: map[string]map[string]string{}}
	for id, j := range doc.Jobs {
		for _, s := range j.Steps {
			if s.Uses == actionStep {
				if _, twice := r.jobs[id]; twice {
					t.Fatalf("%s: job %s runs the action twice", file, id)
				}
				r.jobs[id] = s.With
			}
		}
	}
	if len(r.jobs) == 0 {
		t.Fatalf("%s: no job runs %s", file, actionStep)
	}
	return r
}

// actionYML is action.yml's inputs.
func actionYML(t *testing.T) map[string]declaredInput {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Inputs map[string]declaredInput }
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Inputs
}

// expression is a ${{ ... }} in a workflow's value.
var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// step is what job hands the action when a caller's job passes with: caller
// (its with:, which must only name inputs the workflow declares: GitHub
// refuses the call otherwise), as GitHub fills the expressions in:
// inputs.NAME from the caller or the workflow's default, anything else
// from context ("matrix.discussion", "runner.temp"). The result is the
// step's environment as action.yml hands it to the binary: INPUT_<NAME>,
// action.yml's default for an input the step does not pass.
func (r *reusable) step(t *testing.T, action map[string]declaredInput, job string, caller, context map[string]string) map[string]string {
	t.Helper()
	with, ok := r.jobs[job]
	if !ok {
		t.Fatalf("%s has no job %s that runs the action", r.file, job)
	}
	inputs := map[string]string{}
	for name, in := range r.inputs {
		if in.Default.Kind != 0 {
			inputs[name] = in.Default.Value
		}
	}
	for name, v := range caller {
		if _, ok := r.inputs[name]; !ok {
			t.Errorf("%s declares no input %s: GitHub refuses a caller that passes it (left out here)", r.file, name)
			continue
		}
		inputs[name] = v
	}
	fill := func(v string) string {
		return expression.ReplaceAllStringFunc(v, func(e string) string {
			x := expression.FindStringSubmatch(e)[1]
			if name, ok := strings.CutPrefix(x, "inputs."); ok {
				if _, declared := r.inputs[name]; !declared {
					t.Fatalf("%s job %s: %s names no declared input", r.file, job, e)
				}
				return inputs[name]
			}
			if v, ok := context[x]; ok {
				return v
			}
			t.Fatalf("%s job %s: the test does not fill in %s", r.file, job, e)
			return ""
		})
	}
	env := map[string]string{}
	for name, in := range action {
		if in.Default.Kind != 0 && !strings.Contains(in.Default.Value, "${{") {
			env["INPUT_"+strings.ToUpper(name)] = in.Default.Value
		}
	}
	for name, v := range with {
		env["INPUT_"+strings.ToUpper(name)] = fill(v)
	}
	return env
}

// Every job of recess's reusable workflows that runs the action hands it
// every choice its command reads (actionInputs: the table the action reads
// its inputs by), as ${{ inputs.NAME }} of an input the workflow declares
// with action.yml's type, default and description; and it hands nothing its
// command does not read.
func TestReusable_workflows_hand_every_choice(t *testing.T) {
	t.Parallel()
	action := actionYML(t)
	for _, file := range reusableFiles {
		t.Run(strings.TrimSuffix(file, ".yml"), func(t *testing.T) {
			t.Parallel()
			r := readReusable(t, file)
			for _, job := range slices.Sorted(maps.Keys(r.jobs)) {
				with := r.jobs[job]
				command := orDefault(with[inCommand], cmdAuto)
				for _, name := range slices.Sorted(maps.Keys(with)) {
					if !reads(command, name) && name != inCommand {
						t.Errorf("job %s passes %s, which command %s does not read", job, name, command)
					}
				}
				for _, in := range actionInputs {
					if !in.choice || !reads(command, in.name) {
						continue
					}
					want := "${{ inputs." + in.name + " }}"
					if got, ok := with[in.name]; !ok || got != want {
						t.Errorf("job %s (command %s) hands the action %s = %q, want %q", job, command, in.name, got, want)
					}
					declared, ok := r.inputs[in.name]
					if !ok {
						t.Errorf("declares no input %s, which job %s (command %s) reads", in.name, job, command)
						continue
					}
					a := action[in.name]
					got := []string{declared.Type, declared.Default.Value, strings.Join(strings.Fields(declared.Description), " ")}
					if diff := cmp.Diff([]string{"string", a.Default.Value, strings.Join(strings.Fields(a.Description), " ")}, got); diff != "" {
						t.Errorf("input %s's type, default and description differ from action.yml's (-action.yml +%s):\n%s", in.name, file, diff)
					}
				}
			}
		})
	}
}

// callerWith is what the job of a user's workflow that calls file passes it
// (its with:), as recess init writes it.
func callerWith(t *testing.T, workflow, file string) map[string]string {
	t.Helper()
	var doc struct {
		Jobs map[string]struct {
			Uses string
			With map[string]string
		}
	}
	if err := yaml.Unmarshal([]byte(workflow), &doc); err != nil {
		t.Fatal(err)
	}
	for _, j := range doc.Jobs {
		if strings.HasSuffix(j.Uses, "/.github/workflows/"+file+"@v1") {
			return j.With
		}
	}
	t.Fatalf("no job calls %s:\n%s", file, workflow)
	return nil
}

// shipped runs recess the way the shipped reusable workflows do for a
// user who calls them with the choices callers gives (per file).
type shipped struct {
	*repo
	action  map[string]declaredInput
	pieces  map[string]*reusable
	callers map[string]map[string]string
}

func newShipped(t *testing.T, store string, callers map[string]map[string]string) *shipped {
	t.Helper()
	s := &shipped{repo: newRepo(t, store), action: actionYML(t), pieces: map[string]*reusable{}, callers: callers}
	for _, f := range reusableFiles {
		s.pieces[f] = readReusable(t, f)
	}
	return s
}

// inputs is what the action gets in job of file.
func (s *shipped) inputs(file, job string, context map[string]string) map[string]string {
	s.t.Helper()
	return s.pieces[file].step(s.t, s.action, job, s.callers[file], context)
}

// event runs the front door's event job for a discussion's event.
func (s *shipped) event(name string, payload []byte) outcome {
	s.t.Helper()
	return s.repo.action(name, payload, s.inputs("front-door.yml", "event", nil))
}

// sweep runs the front door's sweep: the plan, then a visit per discussion
// it lists; it returns how many were visited.
func (s *shipped) sweep() int {
	s.t.Helper()
	schedule := []byte(`{"schedule":"2-59/5 * * * *"}`)
	plan := s.ok(s.repo.action("schedule", schedule, s.inputs("front-door.yml", "plan", nil)), "plan")
	var visit []int
	if err := json.Unmarshal([]byte(plan.outputs["discussions"]), &visit); err != nil {
		s.t.Fatalf("plan's discussions output %q: %v", plan.outputs["discussions"], err)
	}
	for _, n := range visit {
		s.ok(s.repo.action("schedule", schedule, s.inputs("front-door.yml", "visit", map[string]string{"matrix.discussion": strconv.Itoa(n)})),
			fmt.Sprintf("visit of discussion %d", n))
	}
	return len(visit)
}

// agent runs the agent workflow's job (claim.yml's claim, verdict.yml's
// verdict, the lead's verdict document in the artifact) for run ru.
func (s *shipped) agent(ru githubfake.Run, file, job string, verdict []byte) outcome {
	s.t.Helper()
	payload, _ := json.Marshal(map[string]any{"inputs": ru.Inputs, "ref": "refs/heads/main",
		"repository": map[string]any{"full_name": hostileRepo}, "workflow": ".github/workflows/agent.yml"})
	temp := filepath.Join(s.dir, fmt.Sprintf("runner-%d", ru.ID))
	if verdict != nil {
		if err := os.MkdirAll(filepath.Join(temp, "recess-verdict"), 0o700); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(temp, "recess-verdict", "verdict.json"), verdict, 0o600); err != nil {
			s.t.Fatal(err)
		}
	}
	env := s.inputs(file, job, map[string]string{"runner.temp": temp})
	env["GITHUB_RUN_ID"] = strconv.FormatInt(ru.ID, 10)
	return s.repo.action("workflow_dispatch", payload, env)
}

// discuss opens a discussion and runs the front door on it.
func (s *shipped) discuss(author, body string) (int, string) {
	s.t.Helper()
	d, err := s.gh.CreateDiscussion(hostileRepo, author, "RFC", body)
	if err != nil {
		s.t.Fatal(err)
	}
	payload, err := s.gh.DiscussionPayload(d.ID, githubfake.Event{Action: "created"})
	if err != nil {
		s.t.Fatal(err)
	}
	s.ok(s.event("discussion", payload), "event job for a new discussion")
	return d.Number, d.ID
}

// comment comments and runs the front door on the comment's event.
func (s *shipped) comment(discussionID, author, body string) {
	s.t.Helper()
	c, err := s.gh.Comment(discussionID, author, body)
	if err != nil {
		s.t.Fatal(err)
	}
	payload, err := s.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "created"})
	if err != nil {
		s.t.Fatal(err)
	}
	s.ok(s.event("discussion_comment", payload), "event job for a comment")
}

// A front door called with max-dispatches-per-hour 1 holds a second
// discussion's first run back for the hour, and so does the sweep: its
// plan and visits get the limit too, and dispatch the held-back run only
// once the hour has passed.
func TestReusable_sweep_visit_honours_the_hourly_dispatch_limit(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			choices := map[string]string{"state-store": store, "max-dispatches-per-hour": "1"}
			s := newShipped(t, store, map[string]map[string]string{"front-door.yml": choices})
			start := s.clock.Now()
			d1, _ := s.discuss("alice", "Which storage backend?")
			if n := len(s.runs()); n != 1 {
				t.Fatalf("discussion %d started %d runs, want 1", d1, n)
			}
			first := s.newest()
			s.clock.Step(time.Minute)
			d2, _ := s.discuss("bob", "And the cache?")
			if n := len(s.runs()); n != 1 {
				t.Fatalf("discussion %d, a minute after the first run: %d runs, want 1 (held back by max-dispatches-per-hour 1)", d2, n)
			}
			s.answer(first, "adjourned", nil)

			s.clock.SetTime(start.Add(12 * time.Minute))
			visited := s.sweep()
			if runs := s.runs(); len(runs) != 1 {
				t.Errorf("the sweep 12 minutes after the first run (%d visited): %d runs, want 1 (max-dispatches-per-hour 1)", visited, len(runs))
			}
			s.clock.SetTime(start.Add(61 * time.Minute))
			s.sweep()
			runs := s.runs()
			if len(runs) < 2 || runs[1].Inputs["discussion_number"] != strconv.Itoa(d2) || runs[1].CreatedAt.Before(start.Add(time.Hour)) {
				var got []string
				for _, ru := range runs {
					got = append(got, fmt.Sprintf("discussion %s at %s", ru.Inputs["discussion_number"], ru.CreatedAt.Sub(start)))
				}
				t.Errorf("runs = %v, want discussion %d's held-back run started by the sweep an hour after the first", got, d2)
			}
		})
	}
}

// The verdict that ends a run looks at the discussion once more and starts
// a follow-up run for what was said meanwhile, deciding as the front door
// does: not for a comment of an ignored author, nor, with wake-on mention,
// for a comment that mentions no handle. The choices reach the verdict as
// the user passes them to the reusable workflows (for wake-on, exactly as
// recess init writes them).
func TestReusable_verdict_follow_up_decides_like_the_front_door(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "init", "--dir", dir, "--wake-on", "mention", "--mention-handles", "@lead"); code != exitOK {
		t.Fatalf("recess init: exit %d\n%s", code, stderr)
	}
	files := readDir(t, dir)
	initCallers := map[string]map[string]string{
		"front-door.yml": callerWith(t, files["recess.yml"], "front-door.yml"),
		"claim.yml":      callerWith(t, files["agent.yml"], "claim.yml"),
		"verdict.yml":    callerWith(t, files["agent.yml"], "verdict.yml"),
	}
	ignoring := map[string]string{"ignore-authors": "helperbot"}
	tests := []struct {
		name    string
		callers map[string]map[string]string
		opening string // the discussion's body
		// meanwhile is said while the run works: it must not start another.
		author, meanwhile string
	}{
		{name: "ignored_author", callers: map[string]map[string]string{"front-door.yml": ignoring, "claim.yml": ignoring, "verdict.yml": ignoring},
			opening: "Which storage backend?", author: "helperbot", meanwhile: "CI passed on main."},
		{name: "wake_on_mention_as_init_writes_it", callers: initCallers,
			opening: "@lead which storage backend?", author: "bob", meanwhile: "Following along, thanks."},
	}
	for _, tt := range tests {
		for _, store := range []string{storeComment, storeBranch} {
			t.Run(tt.name+"/"+store, func(t *testing.T) {
				t.Parallel()
				callers := map[string]map[string]string{}
				for f, c := range tt.callers {
					callers[f] = maps.Clone(c)
					if callers[f] == nil {
						callers[f] = map[string]string{}
					}
					if store != storeComment {
						callers[f]["state-store"] = store
					}
				}
				s := newShipped(t, store, callers)
				n, id := s.discuss("alice", tt.opening)
				ru := s.newest()
				if claim := s.ok(s.agent(ru, "claim.yml", "claim", nil), "claim"); claim.outputs["stale"] != "false" {
					t.Fatalf("claim: stale = %q", claim.outputs["stale"])
				}
				s.clock.Step(time.Minute)
				s.comment(id, tt.author, tt.meanwhile)
				s.clock.Step(time.Minute)
				doc, _ := json.Marshal(map[string]any{"verdict": "adjourned", "correlation_id": ru.Inputs["correlation_id"], "discussion_number": n,
					"replies": []map[string]string{{"body": "Postgres."}}})
				v := s.ok(s.agent(ru, "verdict.yml", "verdict", doc), "verdict")
				var runs []string
				for _, r := range s.runs() {
					runs = append(runs, r.Inputs["correlation_id"])
				}
				if diff := cmp.Diff([]string{ru.Inputs["correlation_id"]}, runs); diff != "" || v.outputs["fired"] != "false" {
					t.Errorf("after the verdict, agent runs (-want +got):\n%s(a follow-up for %s's %q)", diff, tt.author, tt.meanwhile)
				}
			})
		}
	}
}
