package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recess-action/recess/internal/recesstest"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// The MCP tests drive the real binary over real stdio pipes with the SDK's
// own client, as an agent runner would.
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// recessBinary builds the recess binary once for the package's tests.
func recessBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "recess-mcp-test-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "recess")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/recess").CombinedOutput()
		if err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

const mcpNow = "2026-11-21T10:00:00Z"

// mcpSession starts `recess mcp` with args and env (nothing inherited) and
// connects the SDK client to it.
func mcpSession(t *testing.T, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(recessBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append([]string{"RECESS_NOW=" + mcpNow}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "recess-test", Version: "v0"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to recess mcp: %v (stderr: %s)", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Logf("close: %v (stderr: %s)", err, stderr.String())
		}
	})
	return s
}

// call calls a tool; a protocol error fails the test (tool errors do not).
func call(t *testing.T, s *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// refusedField is the field a refusal names; it fails the test when the
// call was not refused.
func refusedField(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("call succeeded (%q), want a refusal", resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Field, Reason string }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	if !strings.Contains(resultText(res), got.Field) {
		t.Errorf("refusal text %q does not name the field %q", resultText(res), got.Field)
	}
	return got.Field
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		b, _ := os.ReadFile(path)
		t.Fatalf("%s exists (%v): %s", path, err, b)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("stray file %s in the verdict directory", e.Name())
	}
}

func TestMCPListsTools(t *testing.T) {
	t.Parallel()
	s := mcpSession(t, nil, "--verdict-file", filepath.Join(t.TempDir(), "v.json"), "--correlation-id", "c-1", "--discussion", "7")
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	for _, tool := range res.Tools {
		desc[tool.Name] = tool.Description
	}
	for _, name := range []string{"reply", "recess", "adjourn", "resume_context"} {
		if _, ok := desc[name]; !ok {
			t.Errorf("tool %q is missing (have %v)", name, desc)
		}
	}
	// The recess tool teaches the convention and the trigger language.
	for _, want := range []string{"end your turn", "woken", "missing_input", "elapsed", "escalation_needed",
		`"any"`, `"all"`, "expires", "on_expire", "PT12H", "P2W"} {
		if !strings.Contains(desc["recess"], want) {
			t.Errorf("recess description lacks %q", want)
		}
	}
	if !strings.Contains(desc["adjourn"], "end your turn") {
		t.Errorf("adjourn description lacks the convention: %q", desc["adjourn"])
	}
}

func TestMCPRefusesBadCallsAndWritesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   []string
		tool  string
		args  map[string]any
		field string
	}{
		{"zero_duration", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "PT0S"}}, "trigger.elapsed"},
		{"lower_case_duration", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "p1d"}}, "trigger.elapsed"},
		{"unknown_kind", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "someday"}}, "trigger.kind"},
		{"zero_replies", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "missing_input", "replies": 0}}, "trigger.replies"},
		{"unknown_trigger_field", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "missing_input", "replies": 1, "when": "soon"}}, "trigger.when"},
		{"nested_child", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "any", "of": []any{
			map[string]any{"kind": "missing_input", "replies": 1}, map[string]any{"kind": "elapsed", "elapsed": "1D"}}}}, "trigger.of[1].elapsed"},
		{"trigger_as_string", nil, "recess", map[string]any{"summary": "s", "trigger": `{"kind":"elapsed","elapsed":"P1D"}`}, "trigger"},
		{"beyond_max_recess_env", []string{"RECESS_MAX_RECESS=P7D"}, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P8D"}}, "trigger.elapsed"},
		{"beyond_default_max_recess", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P91D"}}, "trigger.elapsed"},
		{"kind_not_allowed", []string{"RECESS_ALLOWED_KINDS=missing_input,any"}, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P1D"}}, "trigger.kind"},
		{"missing_trigger", nil, "recess", map[string]any{"summary": "s"}, "trigger"},
		{"missing_summary", nil, "recess", map[string]any{"trigger": map[string]any{"kind": "missing_input", "replies": 1}}, "summary"},
		{"blank_summary", nil, "adjourn", map[string]any{"summary": "  "}, "summary"},
		{"summary_not_string", nil, "adjourn", map[string]any{"summary": 3}, "summary"},
		{"empty_reply_body", nil, "adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": "ok"}, map[string]any{"body": " "}}}, "replies[1].body"},
		{"bad_reply_to", nil, "adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": "ok", "reply_to": "DC 1; rm"}}}, "replies[0].reply_to"},
		{"trigger_on_adjourn", nil, "adjourn", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "missing_input", "replies": 1}}, `"trigger"`},
		{"correlation_id_from_model", nil, "recess", map[string]any{"summary": "s", "correlation_id": "c-other", "trigger": map[string]any{"kind": "missing_input", "replies": 1}}, `"correlation_id"`},
		{"reply_without_body", nil, "reply", map[string]any{"reply_to": "DC_1"}, "body"},
		{"reply_body_too_long", nil, "reply", map[string]any{"body": strings.Repeat("x", resume.MaxReplyBody+1)}, "body"},
		{"reply_body_nul", nil, "reply", map[string]any{"body": "a\x00b"}, "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "verdict.json")
			s := mcpSession(t, tt.env, "--verdict-file", path, "--correlation-id", "c-1", "--discussion", "7")
			if got := refusedField(t, call(t, s, tt.tool, tt.args)); got != tt.field {
				t.Errorf("%s(%v) refused field %q, want %q", tt.tool, tt.args, got, tt.field)
			}
			mustNotExist(t, path)
		})
	}
}

// A refused reply leaves the queue as it was: the verdict posts exactly the
// replies that were accepted, and a full queue is refused with its count.
func TestMCPReplyQueue(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "verdict.json")
	s := mcpSession(t, nil, "--verdict-file", path, "--correlation-id", "c-1", "--discussion", "7")
	if res := call(t, s, "reply", map[string]any{"body": "first", "reply_to": "DC_kwA1"}); res.IsError {
		t.Fatalf("reply: %s", resultText(res))
	}
	if got := refusedField(t, call(t, s, "reply", map[string]any{"body": ""})); got != "body" {
		t.Errorf("empty body refused as %q", got)
	}
	for i := 2; i <= resume.MaxReplies; i++ {
		if res := call(t, s, "reply", map[string]any{"body": "more"}); res.IsError {
			t.Fatalf("reply %d: %s", i, resultText(res))
		}
	}
	if got := refusedField(t, call(t, s, "reply", map[string]any{"body": "one too many"})); got != "replies" {
		t.Errorf("eleventh reply refused as %q, want replies", got)
	}
	if got := refusedField(t, call(t, s, "adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": "extra"}}})); got != "replies" {
		t.Errorf("adjourn past the limit refused as %q, want replies", got)
	}
	mustNotExist(t, path)
	if res := call(t, s, "adjourn", map[string]any{"summary": "answered"}); res.IsError {
		t.Fatalf("adjourn: %s", resultText(res))
	}
	v := readVerdict(t, path, "c-1", 7)
	if len(v.Replies) != resume.MaxReplies || v.Replies[0].Body != "first" || v.Replies[0].ReplyTo != "DC_kwA1" || v.Replies[1].Body != "more" {
		t.Errorf("verdict replies = %+v", v.Replies)
	}
}

func readVerdict(t *testing.T, path, cid string, n int) *resume.Verdict {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := resume.ParseVerdict(b, wait.TriggerLimits{MaxRecess: resume.Defaults().MaxRecess, At: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatalf("the verdict path refuses the file: %v\n%s", err, b)
	}
	if v.CorrelationID != cid || v.DiscussionNumber != n {
		t.Errorf("verdict for %s/#%d, want %s/#%d", v.CorrelationID, v.DiscussionNumber, cid, n)
	}
	return v
}

func TestMCPOneVerdictPerRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "verdict.json")
	s := mcpSession(t, []string{"RECESS_VERDICT_FILE=" + path, "RECESS_CORRELATION_ID=c-1", "RECESS_DISCUSSION=7"})
	res := call(t, s, "recess", map[string]any{"summary": "waiting for storage owners",
		"trigger": map[string]any{"kind": "missing_input", "replies": 2}, "replies": []any{map[string]any{"body": "Which backend?"}}})
	if res.IsError {
		t.Fatalf("recess: %s", resultText(res))
	}
	if !strings.Contains(resultText(res), "End your turn") {
		t.Errorf("recess result does not tell the model to end its turn: %q", resultText(res))
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := refusedField(t, call(t, s, "adjourn", map[string]any{"summary": "changed my mind"})); got != "verdict" {
		t.Errorf("second verdict refused as %q, want verdict", got)
	}
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "again", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P1D"}})); got != "verdict" {
		t.Errorf("second recess refused as %q, want verdict", got)
	}
	if got := refusedField(t, call(t, s, "reply", map[string]any{"body": "late"})); got != "verdict" {
		t.Errorf("reply after the verdict refused as %q, want verdict", got)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, after) {
		t.Errorf("the verdict file changed after the refusals:\n%s\n---\n%s", first, after)
	}
	v := readVerdict(t, path, "c-1", 7)
	if v.Verdict != resume.VerdictRecessed || string(v.TriggerJSON) != `{"kind":"missing_input","replies":2}` || v.Summary != "waiting for storage owners" {
		t.Errorf("verdict = %+v (trigger %s)", v, v.TriggerJSON)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("verdict directory holds %d files, want the verdict alone", len(entries))
	}
}

// A verdict file already on disk (another server, an earlier step) is never
// overwritten.
func TestMCPRefusesExistingVerdictFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "verdict.json")
	if err := os.WriteFile(path, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mcpSession(t, nil, "--verdict-file", path, "--correlation-id", "c-1", "--discussion", "7")
	if got := refusedField(t, call(t, s, "adjourn", map[string]any{"summary": "s"})); got != "verdict" {
		t.Errorf("refused as %q, want verdict", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "earlier" {
		t.Errorf("verdict file overwritten: %q", b)
	}
}

func TestWriteNewIsExclusive(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v.json")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = writeNew(path, []byte{byte('a' + i)}) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("writeNew: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers succeeded, want exactly 1", won)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d files, want 1", len(entries))
	}
}

// Settings come from flags over environment; every refusal names the flag
// and the server does not start.
func TestMCPSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yml")
	if err := os.WriteFile(policy, []byte("allowed-kinds: [frobnicate]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"RECESS_VERDICT_FILE": filepath.Join(dir, "v.json"), "RECESS_CORRELATION_ID": "c-1", "RECESS_DISCUSSION": "7"}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no_verdict_file", map[string]string{"RECESS_VERDICT_FILE": ""}, nil, "--verdict-file"},
		{"no_correlation_id", map[string]string{"RECESS_CORRELATION_ID": ""}, nil, "--correlation-id"},
		{"bad_correlation_id", nil, []string{"--correlation-id", "c 1"}, "--correlation-id"},
		{"no_discussion", map[string]string{"RECESS_DISCUSSION": ""}, nil, "--discussion"},
		{"discussion_not_number", map[string]string{"RECESS_DISCUSSION": "seven"}, nil, "--discussion"},
		{"discussion_too_big", nil, []string{"--discussion", "99999999999"}, "--discussion"},
		{"bad_max_recess", map[string]string{"RECESS_MAX_RECESS": "90 days"}, nil, "--max-recess"},
		{"bad_kind", nil, []string{"--allowed-kinds", "missing_input,someday"}, "--allowed-kinds"},
		{"bad_policy_file", nil, []string{"--config", policy}, "allowed-kinds[0]"},
		{"missing_policy_file", map[string]string{"RECESS_CONFIG": filepath.Join(dir, "nope.yml")}, nil, "nope.yml"},
		{"bad_resume_context", map[string]string{"RECESS_RESUME_CONTEXT": `{"fired_by":"elapsed","history_since":[{"id":"DC_1","created_at":"yesterday"}]}`}, nil, "--resume-context"},
		{"bad_now", map[string]string{"RECESS_NOW": "now"}, nil, "RECESS_NOW"},
		{"both_contexts", map[string]string{"RECESS_RESUME_CONTEXT": `{"fired_by":"elapsed"}`}, []string{"--resume-context-file", policy}, "give one"},
		{"missing_context_file", nil, []string{"--resume-context-file", filepath.Join(dir, "none.json")}, "--resume-context-file"},
		{"bad_context_file", nil, []string{"--resume-context-file", policy}, "--resume-context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range tt.env {
				env[k] = v
			}
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), append([]string{"mcp"}, tt.args...), func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q does not name %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing (it is the protocol channel)", stdout.String())
			}
		})
	}
}

// The policy file sets the limits; RECESS_* override it.
func TestMCPPolicyFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".github", "recess.yml"), []byte("max-recess: P2D\nallowed-kinds: [elapsed]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v.json")
	s := mcpSession(t, []string{"GITHUB_WORKSPACE=" + ws}, "--verdict-file", path, "--correlation-id", "c-1", "--discussion", "7")
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P3D"}})); got != "trigger.elapsed" {
		t.Errorf("P3D under max-recess P2D refused as %q", got)
	}
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "missing_input", "replies": 1}})); got != "trigger.kind" {
		t.Errorf("missing_input outside allowed-kinds refused as %q", got)
	}
	mustNotExist(t, path)

	path2 := filepath.Join(t.TempDir(), "v.json")
	s2 := mcpSession(t, []string{"GITHUB_WORKSPACE=" + ws, "RECESS_MAX_RECESS=P5D"}, "--verdict-file", path2, "--correlation-id", "c-1", "--discussion", "7")
	if res := call(t, s2, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P3D"}}); res.IsError {
		t.Errorf("P3D under RECESS_MAX_RECESS=P5D refused: %s", resultText(res))
	}
	readVerdict(t, path2, "c-1", 7)
}

// The whole path: recess dispatches an agent run; the agent, through
// recess mcp, asks a question and recesses; the verdict file is applied by
// the engine against the fake GitHub; a person answers under the question;
// the resume carries it, and the prompt frames it as the answer.
func TestMCPVerdictAppliesEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := recesstest.New(t, recesstest.Options{})
	n, discussionID := w.Open("alice")
	if _, err := w.Engine(nil).Engine.Intake(ctx, n); err != nil {
		t.Fatal(err)
	}
	runs := w.Waiting()
	if len(runs) != 1 {
		t.Fatalf("%d runs after intake, want 1", len(runs))
	}
	run := runs[0]

	path := filepath.Join(t.TempDir(), "verdict.json")
	s := mcpSession(t, []string{"RECESS_NOW=" + w.Now().Format(time.RFC3339)}, "--verdict-file", path,
		"--correlation-id", run.Inputs["correlation_id"], "--discussion", run.Inputs["discussion_number"])
	if res := call(t, s, "reply", map[string]any{"body": "Which storage backend should we assume?"}); res.IsError {
		t.Fatalf("reply: %s", resultText(res))
	}
	if res := call(t, s, "recess", map[string]any{"summary": "waiting for the storage owners",
		"trigger": map[string]any{"kind": "any", "of": []any{map[string]any{"kind": "missing_input", "replies": 1}, map[string]any{"kind": "elapsed", "elapsed": "P2D"}}}}); res.IsError {
		t.Fatalf("recess: %s", resultText(res))
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if stale, err := w.Answer(ctx, run, func(string, int) string { return string(doc) }); err != nil || stale {
		t.Fatalf("command verdict on the file: stale %v, err %v\n%s", stale, err, doc)
	}
	// The questions as the claim step of the resume would find them: in the
	// discussion GitHub returns, by recess's own reply markers.
	d, err := w.Engine(nil).Client.Discussion(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	asked := resume.Questions(d, run.Inputs["correlation_id"])
	if len(asked) != 1 || asked[0].Body != "Which storage backend should we assume?" {
		t.Fatalf("questions found = %+v; recess comments: %+v", asked, w.RecessComments(discussionID))
	}
	question := &asked[0]
	if line := w.StatusLine(discussionID); !strings.Contains(line, "Waiting") {
		t.Errorf("status line %q, want a waiting recess", line)
	}

	w.Advance(time.Minute)
	w.Say(discussionID, question.Thread, "bob", "Postgres, please.")
	if _, err := w.Engine(nil).Engine.Inbound(ctx, n); err != nil {
		t.Fatal(err)
	}
	runs = w.Waiting()
	if len(runs) != 1 {
		t.Fatalf("%d runs after the answer, want the resume", len(runs))
	}
	rc, err := decodeResumeContext([]byte(runs[0].Inputs["resume_context"]))
	if err != nil {
		t.Fatalf("resume_context of the resume: %v", err)
	}
	if rc.FiredBy != wait.KindMissingInput || rc.CorrelationID != run.Inputs["correlation_id"] {
		t.Errorf("resume fired_by %q for %q, want missing_input for %q", rc.FiredBy, rc.CorrelationID, run.Inputs["correlation_id"])
	}
	prompt := resume.Prompt(*rc, []resume.Question{*question})
	for _, want := range []string{"Answer to your question (“Which storage backend should we assume?”", "Postgres, please.", "@bob", "`" + run.Inputs["correlation_id"] + "`"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}

	// The resumed run reads the same through its own server, from the file
	// a workflow step wrote the input to.
	rcFile := filepath.Join(t.TempDir(), "resume_context.json")
	if err := os.WriteFile(rcFile, []byte(runs[0].Inputs["resume_context"]), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := mcpSession(t, []string{"RECESS_RESUME_CONTEXT_FILE=" + rcFile}, "--verdict-file", filepath.Join(t.TempDir(), "v.json"),
		"--correlation-id", runs[0].Inputs["correlation_id"], "--discussion", runs[0].Inputs["discussion_number"])
	if got := resultText(call(t, s2, "resume_context", map[string]any{})); !strings.Contains(got, "Postgres, please.") || !strings.Contains(got, "missing_input") {
		t.Errorf("resume_context tool = %q", got)
	}
}

func TestMCPResumeContextFirstRun(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "rc.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := mcpSession(t, nil, "--verdict-file", filepath.Join(t.TempDir(), "v.json"), "--correlation-id", "c-1", "--discussion", "7", "--resume-context-file", empty)
	res := call(t, s, "resume_context", nil)
	if res.IsError || !strings.Contains(resultText(res), "first run") {
		t.Errorf("resume_context on a first run = %q (error %v)", resultText(res), res.IsError)
	}
}

// FuzzMCPToolCall: whatever arguments a model sends, a tool call never
// panics; a refusal names a field and writes nothing; an accepted recess or
// adjourn leaves a verdict the verdict path accepts, for this run's own
// correlation id and discussion.
func FuzzMCPToolCall(f *testing.F) {
	f.Add("recess", []byte(`{"summary":"s","trigger":{"kind":"missing_input","replies":2}}`))
	f.Add("recess", []byte(`{"summary":"s","trigger":{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1DT1.5H"}],"expires":"P2D","on_expire":"cancel"},"replies":[{"body":"q","reply_to":"DC_1"}]}`))
	f.Add("recess", []byte(`{"summary":"s","trigger":{"kind":"elapsed","elapsed":"P91D"}}`))
	f.Add("adjourn", []byte(`{"summary":"done","replies":[{"body":"answer"}]}`))
	f.Add("adjourn", []byte(`{"summary":"s","summary":"t"}`))
	f.Add("adjourn", []byte(`{"summary":"s","replies":{"body":"x"}}`))
	f.Add("reply", []byte(`{"body":"hello","reply_to":"DC_kwA"}`))
	f.Add("reply", []byte(`{"body":"\ud800"}`))
	f.Add("reply", []byte(`[1,2]`))
	f.Add("resume_context", []byte(`{"x":1}`))
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "v.json")
		s, err := newMCPServer(mcpOptions{VerdictFile: path, CorrelationID: "c-fuzz", Discussion: "9"}, func(k string) string {
			if k == "RECESS_NOW" {
				return mcpNow
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		var h mcp.ToolHandler
		switch tool {
		case "reply":
			h = s.reply
		case "recess":
			h = s.verdictTool(resume.VerdictRecessed)
		case "adjourn":
			h = s.verdictTool(resume.VerdictAdjourned)
		default:
			h = s.contextTool
		}
		res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: args}})
		if err != nil {
			t.Fatalf("protocol error for a bad call (want a tool error): %v", err)
		}
		if res.IsError {
			fields, _ := res.StructuredContent.(map[string]string)
			if fields["field"] == "" || fields["reason"] == "" {
				t.Fatalf("refusal without a field: %+v", res)
			}
			mustNotExist(t, path)
			return
		}
		if tool != "recess" && tool != "adjourn" {
			mustNotExist(t, path)
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("accepted %s wrote no verdict: %v", tool, err)
		}
		v, err := resume.ParseVerdict(b, wait.TriggerLimits{MaxRecess: resume.Defaults().MaxRecess, At: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatalf("accepted %s wrote a verdict the verdict path refuses: %v\n%s", tool, err, b)
		}
		if v.CorrelationID != "c-fuzz" || v.DiscussionNumber != 9 {
			t.Fatalf("verdict for %s/#%d", v.CorrelationID, v.DiscussionNumber)
		}
	})
}
