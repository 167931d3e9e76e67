package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/fakeclock"
	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// The hostile corpus (testdata/hostile) through the binary's entry point,
// run as the action against the embedded fake GitHub, for both stores. The
// manifest says what each case must do; every case is checked.

const hostileDir = "../../testdata/hostile"

type hostileManifest struct {
	Verdicts []struct {
		File   string `yaml:"file"`
		Exit   int    `yaml:"exit"`
		Field  string `yaml:"field"`
		Posted int    `yaml:"posted"`
	} `yaml:"verdicts"`
	Comments []struct {
		File      string `yaml:"file"`
		Author    string `yaml:"author"`
		Fires     bool   `yaml:"fires"`
		Log       string `yaml:"log"`
		LogStore  string `yaml:"log_store"`
		Truncated bool   `yaml:"truncated"`
	} `yaml:"comments"`
	States []struct {
		File  string `yaml:"file"`
		Store string `yaml:"store"`
	} `yaml:"states"`
	Events []struct {
		File  string `yaml:"file"`
		Event string `yaml:"event"`
		Field string `yaml:"field"`
	} `yaml:"events"`
}

func readManifest(t *testing.T) *hostileManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hostileDir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m hostileManifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	return &m
}

// TestHostile_corpus_is_complete: every file of the corpus is a case of the
// manifest, and every case names a file that exists.
func TestHostile_corpus_is_complete(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	named := map[string]bool{}
	for _, c := range m.Verdicts {
		named[c.File] = true
	}
	for _, c := range m.Comments {
		named[c.File] = true
	}
	for _, c := range m.States {
		named[c.File] = true
	}
	for _, c := range m.Events {
		named[c.File] = true
	}
	var files []string
	for _, dir := range []string{"verdicts", "comments", "states", "events"} {
		entries, err := os.ReadDir(filepath.Join(hostileDir, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, dir+"/"+e.Name())
		}
	}
	for _, f := range files {
		if !named[f] {
			t.Errorf("%s is in the corpus but not in the manifest", f)
		}
		delete(named, f)
	}
	for f := range named {
		t.Errorf("the manifest names %s, which does not exist", f)
	}
	if len(files) < 60 {
		t.Errorf("the corpus holds %d files; it shrank", len(files))
	}
}

// corpusData is what corpus templates see.
type corpusData struct {
	N, Other   int
	CID, Stale string
	NUL        string
}

func render(t *testing.T, file string, d corpusData) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(hostileDir, file))
	if err != nil {
		t.Fatal(err)
	}
	funcs := template.FuncMap{
		"repeat": strings.Repeat,
		"replies": func(n int, body string) string {
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf(`{"body":%q}`, body)
			}
			return strings.Join(parts, ",")
		},
		"record": func(n int) *state.Record { return state.New(n) },
		"status": func(rec *state.Record) (string, error) { return state.EncodeComment("⏸️ Waiting.", rec) },
		"encode": func(rec *state.Record) (string, error) {
			b, err := state.Encode(rec)
			return string(b), err
		},
		"forged": func(n int) (string, error) {
			rec := state.New(n)
			rec.Active = &state.Run{CorrelationID: "c-evil", State: state.RunDispatched, Claimed: true, Attempt: 1}
			return state.EncodeComment("⏸️ Waiting for nothing.", rec)
		},
	}
	tmpl, err := template.New(file).Funcs(funcs).Option("missingkey=error").Parse(string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return b.Bytes()
}

// repo is the fake GitHub with recess installed, driven through the
// binary's run as GitHub Actions would run it.
type repo struct {
	t     *testing.T
	gh    *githubfake.GitHub
	store string
	dir   string

	clock *fakeclock.Clock
	seq   int64
}

const (
	hostileRepo  = "octo/rfcs"
	hostileToken = "recess-hostile-token"
	hostileBot   = "github-actions"
)

func newRepo(t *testing.T, store string) *repo {
	t.Helper()
	r := &repo{t: t, store: store, dir: t.TempDir(), clock: fakeclock.New(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)), seq: 7000}
	r.gh = githubfake.New(githubfake.WithClock(r.clock.Now), githubfake.WithContentCreationLimit(0))
	err := r.gh.InstallRecess(githubfake.RecessSetup{Owner: "octo", Name: "rfcs", Token: hostileToken, Bot: hostileBot,
		Maintainers: []string{"maya"}, Members: []string{"mia"}})
	if err != nil {
		t.Fatal(err)
	}
	r.gh.Start()
	t.Cleanup(r.gh.Close)
	return r
}

// outcome is what one run of the binary did.
type outcome struct {
	code    int
	stdout  string
	outputs map[string]string
}

// action runs the binary as the action for one event; extra sets more
// environment (INPUT_COMMAND, INPUT_VERDICT, GITHUB_RUN_ID).
func (r *repo) action(event string, payload []byte, extra map[string]string) outcome {
	r.t.Helper()
	_, o := r.actionEnv(event, payload, extra)
	return o
}

// actionEnv is action, and the run's environment (where its summary is).
func (r *repo) actionEnv(event string, payload []byte, extra map[string]string) (map[string]string, outcome) {
	r.t.Helper()
	r.seq++
	inputs := map[string]string{"INPUT_STATE-STORE": r.store}
	for k, v := range extra {
		inputs[k] = v
	}
	env, err := actionsRun{gh: r.gh, repo: hostileRepo, token: hostileToken, dir: r.dir, seq: r.seq,
		now: r.clock.Now(), event: event, payload: payload}.env(inputs)
	if err != nil {
		r.t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), nil, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	outputs, err := readOutputs(env["GITHUB_OUTPUT"])
	if err != nil {
		r.t.Fatal(err)
	}
	return env, outcome{code: code, stdout: stdout.String() + stderr.String(), outputs: outputs}
}

// ok fails the test unless the run exited 0.
func (r *repo) ok(o outcome, what string) outcome {
	r.t.Helper()
	if o.code != 0 {
		r.t.Fatalf("%s: exit %d\n%s", what, o.code, o.stdout)
	}
	return o
}

func (r *repo) open(author string) (int, string) {
	r.t.Helper()
	n, id, o := r.openWith(author, nil)
	r.ok(o, "intake")
	return n, id
}

// openWith opens a discussion and runs the front door's event job on it
// with extra inputs, whatever its outcome.
func (r *repo) openWith(author string, extra map[string]string) (int, string, outcome) {
	r.t.Helper()
	n, id, _, o := r.openEnv(author, extra)
	return n, id, o
}

// openEnv is openWith, and the run's environment (where its summary is).
func (r *repo) openEnv(author string, extra map[string]string) (int, string, map[string]string, outcome) {
	r.t.Helper()
	d, err := r.gh.CreateDiscussion(hostileRepo, author, "RFC", "please review")
	if err != nil {
		r.t.Fatal(err)
	}
	payload, err := r.gh.DiscussionPayload(d.ID, githubfake.Event{Action: "created"})
	if err != nil {
		r.t.Fatal(err)
	}
	env, o := r.actionEnv("discussion", payload, extra)
	return d.Number, d.ID, env, o
}

// say comments and runs recess for the comment's event.
func (r *repo) say(discussionID, author, body string) (string, outcome) {
	r.t.Helper()
	c, err := r.gh.Comment(discussionID, author, body)
	if err != nil {
		r.t.Fatal(err)
	}
	payload, err := r.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "created"})
	if err != nil {
		r.t.Fatal(err)
	}
	return c.ID, r.action("discussion_comment", payload, nil)
}

// agent runs a step of agent run ru: claim, or verdict with doc (passed as
// the verdict input, or as a verdict-file when large, as a workflow would).
func (r *repo) agent(ru githubfake.Run, command string, doc []byte) outcome {
	r.t.Helper()
	return r.agentWith(ru, command, doc, nil)
}

// agentWith is agent with more inputs (INPUT_*) for the step.
func (r *repo) agentWith(ru githubfake.Run, command string, doc []byte, inputs map[string]string) outcome {
	r.t.Helper()
	payload, _ := json.Marshal(map[string]any{"inputs": ru.Inputs, "ref": "refs/heads/main",
		"repository": map[string]any{"full_name": hostileRepo}, "workflow": ".github/workflows/agent.yml"})
	env := map[string]string{"GITHUB_RUN_ID": strconv.FormatInt(ru.ID, 10), "INPUT_COMMAND": command}
	for k, v := range inputs {
		env[k] = v
	}
	switch {
	case doc == nil:
	case len(doc) > 64<<10:
		f := filepath.Join(r.dir, fmt.Sprintf("verdict-%d.json", ru.ID))
		if err := os.WriteFile(f, doc, 0o600); err != nil {
			r.t.Fatal(err)
		}
		env["INPUT_VERDICT-FILE"] = f
	default:
		env["INPUT_VERDICT"] = string(doc)
	}
	return r.action("workflow_dispatch", payload, env)
}

func (r *repo) runs() []githubfake.Run {
	r.t.Helper()
	runs, err := r.gh.Runs(hostileRepo)
	if err != nil {
		r.t.Fatal(err)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	return runs
}

// newest is the newest agent run.
func (r *repo) newest() githubfake.Run {
	r.t.Helper()
	runs := r.runs()
	if len(runs) == 0 {
		r.t.Fatal("no agent run")
	}
	return runs[len(runs)-1]
}

// answer claims run ru and delivers a verdict built from the run's inputs.
func (r *repo) answer(ru githubfake.Run, verdict string, extra map[string]any) {
	r.t.Helper()
	o := r.ok(r.agent(ru, "claim", nil), "claim")
	if o.outputs["stale"] != "false" {
		r.t.Fatalf("claim of run %d: stale = %q", ru.ID, o.outputs["stale"])
	}
	n, _ := strconv.Atoi(ru.Inputs["discussion_number"])
	doc := map[string]any{"verdict": verdict, "correlation_id": ru.Inputs["correlation_id"], "discussion_number": n}
	for k, v := range extra {
		doc[k] = v
	}
	b, _ := json.Marshal(doc)
	r.ok(r.agent(ru, "verdict", b), "verdict")
	if err := r.gh.SetRunStatus(ru.ID, "completed", "success"); err != nil {
		r.t.Fatal(err)
	}
}

// recessed opens a discussion whose first run recesses on trigger.
func (r *repo) recessed(trigger string) (int, string, githubfake.Run) {
	r.t.Helper()
	n, id := r.open("alice")
	first := r.newest()
	r.answer(first, "recessed", map[string]any{"trigger": json.RawMessage(trigger),
		"replies": []map[string]string{{"body": "Which storage backend should we assume?"}}})
	r.clock.Step(time.Minute)
	return n, id, first
}

// snapshot is everything a refused input must leave as it was: recess's
// comments (bodies included, so the status comment is the record under the
// comment store), the state branch's files, the agent runs.
func (r *repo) snapshot(discussionIDs ...string) string {
	r.t.Helper()
	var b strings.Builder
	for _, id := range discussionIDs {
		cs, err := r.gh.Comments(id)
		if err != nil {
			r.t.Fatal(err)
		}
		for _, c := range cs {
			if c.Author == hostileBot {
				fmt.Fprintf(&b, "comment %s %s\n%s\n", c.ID, c.UpdatedAt.Format(time.RFC3339), c.Body)
			}
		}
		d, err := r.gh.Discussion(hostileRepo, discussionNumber(r, id))
		if err != nil {
			r.t.Fatal(err)
		}
		fmt.Fprintf(&b, "labels %v\n", d.Labels)
		if f, ok, _ := r.gh.File(hostileRepo, gh.DefaultStateBranch, fmt.Sprintf("discussions/%d.json", d.Number)); ok {
			fmt.Fprintf(&b, "file %d\n%s\n", d.Number, f)
		}
	}
	for _, ru := range r.runs() {
		fmt.Fprintf(&b, "run %d %s\n", ru.ID, ru.Inputs["correlation_id"])
	}
	return b.String()
}

func discussionNumber(r *repo, id string) int {
	for n := 1; n < 100; n++ {
		if d, err := r.gh.Discussion(hostileRepo, n); err == nil && d.ID == id {
			return n
		}
	}
	r.t.Fatalf("no discussion %s", id)
	return 0
}

// annotations are the ::error lines of a run: title and message.
func annotations(stdout string) [][2]string {
	var out [][2]string
	unescape := strings.NewReplacer("%3A", ":", "%2C", ",", "%0D", "\r", "%0A", "\n", "%25", "%")
	for _, line := range strings.Split(stdout, "\n") {
		rest, ok := strings.CutPrefix(line, "::error ")
		if !ok {
			continue
		}
		props, msg, _ := strings.Cut(rest, "::")
		title := ""
		for _, p := range strings.Split(props, ",") {
			if v, ok := strings.CutPrefix(p, "title="); ok {
				title = unescape.Replace(v)
			}
		}
		out = append(out, [2]string{title, unescape.Replace(msg)})
	}
	return out
}

// TestHostile_verdicts delivers every corpus verdict as the active agent
// run of a discussion that also has a second one with its own active run.
// A refused verdict exits 2 with an ::error titled with the field, and
// leaves recess's comments, the records, the labels and the runs exactly as
// they were.
func TestHostile_verdicts(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			// One world for the cases that change nothing (which is what
			// is checked): each starts where the last left off, so these
			// subtests run in order. A case that posts gets its own world.
			shared := newVerdictWorld(t, store)
			for _, c := range m.Verdicts {
				name := strings.TrimSuffix(filepath.Base(c.File), ".json.tmpl")
				t.Run(strings.ReplaceAll(name, "-", "_"), func(t *testing.T) {
					vw := shared
					if c.Posted > 0 {
						vw = newVerdictWorld(t, store)
					}
					r, d, active, discussions := vw.r, vw.d, vw.active, vw.discussions
					r.t = t
					doc := render(t, c.File, d)
					before := r.snapshot(discussions...)
					o := r.agent(active, "verdict", doc)
					if o.code != c.Exit {
						t.Fatalf("exit %d, want %d\n%s", o.code, c.Exit, o.stdout)
					}
					after := r.snapshot(discussions...)
					if c.Exit == 2 {
						got := annotations(o.stdout)
						if len(got) != 1 || got[0][0] != "recess refused "+c.Field {
							t.Errorf("annotations = %q, want one titled %q", got, "recess refused "+c.Field)
						}
					}
					if c.Posted == 0 {
						if before != after {
							t.Errorf("the run changed something:\nbefore:\n%.2000s\nafter:\n%.2000s", before, after)
						}
						return
					}
					var posted []githubfake.Comment
					cs, _ := r.gh.Comments(discussions[0])
					for _, cm := range cs {
						if cm.Author == hostileBot && !state.HasMarker(cm.Body) && !strings.Contains(before, cm.ID) {
							posted = append(posted, cm)
						}
					}
					if len(posted) != c.Posted {
						t.Fatalf("%d comment(s) posted, want %d", len(posted), c.Posted)
					}
					for _, cm := range posted {
						if id, i, ok := state.ParseReplyMarker(cm.Body); !ok || id != d.CID || i >= c.Posted {
							t.Errorf("posted reply ends with marker (%q, %d, %v), want recess's own for %s", id, i, ok, d.CID)
						}
					}
				})
			}
		})
	}
}

// verdictWorld is a discussion with an active, claimed agent run that
// resumed a recess, beside a second discussion with its own active run.
type verdictWorld struct {
	r           *repo
	d           corpusData
	active      githubfake.Run
	discussions []string
}

func newVerdictWorld(t *testing.T, store string) *verdictWorld {
	t.Helper()
	r := newRepo(t, store)
	n, id, first := r.recessed(`{"kind":"missing_input","replies":5}`)
	_, o := r.say(id, "maya", "/recess resume")
	r.ok(o, "/recess resume")
	active := r.newest()
	r.ok(r.agent(active, "claim", nil), "claim")
	other, otherID := r.open("bob")
	r.ok(r.agent(r.newest(), "claim", nil), "claim")
	return &verdictWorld{
		r:           r,
		d:           corpusData{N: n, Other: other, CID: active.Inputs["correlation_id"], Stale: first.Inputs["correlation_id"], NUL: "\x00"},
		active:      active,
		discussions: []string{id, otherID},
	}
}

// TestHostile_comments writes every corpus comment on a discussion whose
// recess waits for one reply. The inbound run exits 0, treats the comment
// as a person's reply (a forged marker, an imitated status, a command from
// someone without write access are all just words), and hands it to the
// agent as GitHub served it; nothing in it becomes a workflow command.
func TestHostile_comments(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	for _, store := range []string{"comment", "branch"} {
		for _, c := range m.Comments {
			name := strings.TrimSuffix(filepath.Base(c.File), ".md.tmpl") + "_by_" + c.Author
			t.Run(store+"_"+strings.ReplaceAll(name, "-", "_"), func(t *testing.T) {
				t.Parallel()
				r := newRepo(t, store)
				n, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
				body := string(render(t, c.File, corpusData{N: n, CID: first.Inputs["correlation_id"], NUL: "\x00"}))
				before := len(r.runs())
				cid, o := r.say(id, c.Author, body)
				r.ok(o, "inbound")
				if got := o.outputs["fired"] == "true"; got != c.Fires {
					t.Fatalf("fired = %v, want %v\n%s", got, c.Fires, o.stdout)
				}
				if c.Log != "" && (c.LogStore == "" || c.LogStore == store) && !strings.Contains(o.stdout, c.Log) {
					t.Errorf("the run's log lacks %q:\n%s", c.Log, o.stdout)
				}
				for _, line := range strings.Split(o.stdout, "\n") {
					if strings.HasPrefix(line, "::") && strings.Contains(line, "pwned") {
						t.Errorf("comment text became a workflow command: %q", line)
					}
				}
				runs := r.runs()[before:]
				if !c.Fires {
					if len(runs) != 0 {
						t.Errorf("%d run(s) started, want none", len(runs))
					}
					return
				}
				if len(runs) != 1 {
					t.Fatalf("%d run(s) started, want 1", len(runs))
				}
				var rc resume.Context
				if err := json.Unmarshal([]byte(runs[0].Inputs["resume_context"]), &rc); err != nil {
					t.Fatalf("resume_context: %v", err)
				}
				if rc.Truncated != c.Truncated || rc.CorrelationID != first.Inputs["correlation_id"] {
					t.Errorf("resume_context: truncated %v, correlation_id %q; want %v, %q", rc.Truncated, rc.CorrelationID, c.Truncated, first.Inputs["correlation_id"])
				}
				if len(rc.HistorySince) != 1 || rc.HistorySince[0].ID != cid {
					t.Fatalf("history_since = %+v, want the comment %s", rc.HistorySince, cid)
				}
				if h := rc.HistorySince[0]; !c.Truncated && h.Body != servedBody(body) {
					t.Errorf("history body = %.80q, want what GitHub served %.80q", h.Body, servedBody(body))
				}
				if store == "comment" {
					statuses := 0
					cs, _ := r.gh.Comments(id)
					for _, cm := range cs {
						if cm.Author == hostileBot && state.HasMarker(cm.Body) {
							statuses++
							if _, _, err := state.DecodeComment(cm.Body); err != nil {
								t.Errorf("status comment unreadable: %v", err)
							}
						}
					}
					if statuses != 1 {
						t.Errorf("%d status comments, want 1", statuses)
					}
				}
			})
		}
	}
}

// servedBody is a body as GitHub's JSON carries it back (invalid UTF-8
// bytes become U+FFFD).
func servedBody(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// TestHostile_states corrupts the record where each store keeps it. Every
// run on that discussion (a comment's inbound, a sweep, the agent's
// verdict) fails loudly, and nothing is overwritten, posted or started.
func TestHostile_states(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	for _, c := range m.States {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(c.File), ".tmpl"), filepath.Ext(strings.TrimSuffix(c.File, ".tmpl")))
		t.Run(c.Store+"_"+strings.ReplaceAll(name, "-", "_"), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, c.Store)
			n, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
			bad := string(render(t, c.File, corpusData{N: n, Other: n + 100, CID: first.Inputs["correlation_id"], NUL: "\x00"}))
			switch c.Store {
			case "comment":
				status := ""
				cs, _ := r.gh.Comments(id)
				for _, cm := range cs {
					if cm.Author == hostileBot && state.HasMarker(cm.Body) {
						status = cm.ID
					}
				}
				if err := r.gh.EditComment(status, bad); err != nil {
					t.Fatal(err)
				}
			case "branch":
				if _, err := r.gh.Commit(hostileRepo, gh.DefaultStateBranch, "hand edit", map[string]string{fmt.Sprintf("discussions/%d.json", n): bad}); err != nil {
					t.Fatal(err)
				}
			}
			before := r.snapshot(id)
			_, inbound := r.say(id, "bob", "a reply that would fire the recess")
			r.clock.Step(time.Hour)
			sweep := r.action("schedule", []byte(`{"schedule":"*/5 * * * *"}`), nil)
			doc, _ := json.Marshal(map[string]any{"verdict": "adjourned", "correlation_id": first.Inputs["correlation_id"], "discussion_number": n})
			verdict := r.agent(first, "verdict", doc)
			for what, o := range map[string]outcome{"inbound": inbound, "sweep": sweep, "verdict": verdict} {
				got := annotations(o.stdout)
				if o.code != 1 || len(got) != 1 || got[0][0] != "recess failed" || !strings.Contains(got[0][1], "corrupt") {
					t.Errorf("%s: exit %d, annotations %q; want exit 1 and one \"recess failed\" naming the corrupt record", what, o.code, got)
				}
			}
			// The comment that would have fired is a person's, not recess's:
			// leave it out of the comparison.
			if after := r.snapshot(id); after != before {
				t.Errorf("the runs changed something:\nbefore:\n%.2000s\nafter:\n%.2000s", before, after)
			}
		})
	}
}

// TestHostile_events feeds broken webhook payloads: exit 2 with the field
// named, before a single request reaches GitHub.
func TestHostile_events(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	for _, c := range m.Events {
		t.Run(strings.ReplaceAll(strings.TrimSuffix(filepath.Base(c.File), ".json"), "-", "_"), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "comment")
			payload := render(t, c.File, corpusData{})
			o := r.action(c.Event, payload, nil)
			got := annotations(o.stdout)
			if o.code != 2 || len(got) != 1 || got[0][0] != "recess refused "+c.Field {
				t.Errorf("exit %d, annotations %q; want exit 2 and one titled %q", o.code, got, "recess refused "+c.Field)
			}
			if reqs := r.gh.Requests(); len(reqs) != 0 {
				t.Errorf("%d request(s) reached GitHub, want none", len(reqs))
			}
		})
	}
}

// TestHostile_permission_unreadable_holds_commands: when GitHub refuses
// the token the collaborator-permission question, a maintainer's command
// is held with a warning annotation that says so, and changes nothing:
// the recess stays open.
func TestHostile_permission_unreadable_holds_commands(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id, _ := r.recessed(`{"kind":"missing_input","replies":3}`)
			r.gh.Fail(githubfake.Fault{Path: "/repos/" + hostileRepo + "/collaborators/", Status: 403,
				Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`})
			_, o := r.say(id, "maya", "/recess cancel")
			r.ok(o, "inbound")
			var warned bool
			for _, line := range strings.Split(o.stdout, "\n") {
				warned = warned || strings.HasPrefix(line, "::warning") && strings.Contains(line, "may not read @maya's permission")
			}
			if !warned {
				t.Errorf("no ::warning saying recess may not read @maya's permission:\n%s", o.stdout)
			}
			if got := o.outputs["open_rfcs"]; got != "1" {
				t.Errorf("open_rfcs = %q after a command recess could not authorise, want 1", got)
			}
		})
	}
}
