package action

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/internal/recesstest"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // generous: the package starts dozens of servers at once, under -race
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

// refusedField is the field a refusal names ("refused: FIELD: reason. ..."),
// the one form every tool error takes; it fails the test when the call was
// not refused, or when the refusal carries structured content (an error
// result conforms to no output schema).
func refusedField(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("call succeeded (%q), want a refusal", resultText(res))
	}
	if res.StructuredContent != nil {
		t.Errorf("refusal carries structured content %v", res.StructuredContent)
	}
	rest, ok := strings.CutPrefix(resultText(res), "refused: ")
	field, _, ok2 := strings.Cut(rest, ": ")
	if !ok || !ok2 {
		t.Fatalf("refusal %q is not \"refused: FIELD: reason\"", resultText(res))
	}
	return field
}

// structured decodes a result's structured content into out.
func structured(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("call refused: %s", resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// flags are the settings a workflow passes for run c-1 on discussion 7.
func flags(verdictFile string, more ...string) []string {
	return append([]string{"--verdict-file", verdictFile, "--correlation-id", "c-1", "--discussion", "7"}, more...)
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
	s := mcpSession(t, nil, flags(filepath.Join(t.TempDir(), "v.json"))...)
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	for _, tool := range res.Tools {
		desc[tool.Name] = tool.Description
	}
	var names []string
	for n := range desc {
		names = append(names, n)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"adjourn", "read_discussion", "read_thread", "recess", "reply"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	// The recess tool teaches the convention and the flat trigger.
	for _, want := range []string{"end your turn", "woken", "replies_needed", "elapsed", "signal", "combine", `"any"`, `"all"`,
		"expires", "on_expire", "PT12H", "P2W"} {
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
		args  []string
		tool  string
		call  map[string]any
		field string
	}{
		{"zero_duration", nil, "recess", map[string]any{"summary": "s", "elapsed": "PT0S"}, "elapsed"},
		{"lower_case_duration", nil, "recess", map[string]any{"summary": "s", "elapsed": "p1d"}, "elapsed"},
		{"bad_duration_among_two", nil, "recess", map[string]any{"summary": "s", "replies_needed": 1, "elapsed": "1D"}, "elapsed"},
		{"bad_expires", nil, "recess", map[string]any{"summary": "s", "replies_needed": 1, "expires": "soon"}, "expires"},
		{"negative_replies", nil, "recess", map[string]any{"summary": "s", "replies_needed": -1}, "replies_needed"},
		{"nothing_to_wait_for", nil, "recess", map[string]any{"summary": "s"}, "replies_needed"},
		{"from_without_replies", nil, "recess", map[string]any{"summary": "s", "from": []any{"alice"}, "elapsed": "P1D"}, "replies_needed"},
		{"from_deleted_account", nil, "recess", map[string]any{"summary": "s", "replies_needed": 1, "from": []any{"alice", "ghost"}}, "from[1]"},
		{"unknown_combine", nil, "recess", map[string]any{"summary": "s", "replies_needed": 1, "elapsed": "P1D", "combine": "either"}, "combine"},
		{"unknown_on_expire", nil, "recess", map[string]any{"summary": "s", "replies_needed": 1, "expires": "P2D", "on_expire": "later"}, "on_expire"},
		{"trigger_as_object", nil, "recess", map[string]any{"summary": "s", "trigger": map[string]any{"kind": "elapsed", "elapsed": "P1D"}}, "trigger"},
		{"beyond_max_recess_flag", []string{"--max-recess", "P7D"}, "recess", map[string]any{"summary": "s", "elapsed": "P8D"}, "elapsed"},
		{"beyond_default_max_recess", nil, "recess", map[string]any{"summary": "s", "elapsed": "P91D"}, "elapsed"},
		{"kind_not_allowed", []string{"--allowed-kinds", "missing_input,any"}, "recess", map[string]any{"summary": "s", "elapsed": "P1D"}, "elapsed"},
		{"combination_not_allowed", []string{"--allowed-kinds", "missing_input,elapsed"}, "recess", map[string]any{"summary": "s", "replies_needed": 1, "elapsed": "P1D"}, "combine"},
		{"missing_summary", nil, "recess", map[string]any{"replies_needed": 1}, "summary"},
		{"blank_summary", nil, "adjourn", map[string]any{"summary": "  "}, "summary"},
		{"summary_not_string", nil, "adjourn", map[string]any{"summary": 3}, "summary"},
		{"empty_reply_body", nil, "adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": "ok"}, map[string]any{"body": " "}}}, "replies[1].body"},
		{"reply_body_not_string", nil, "adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": 2}}}, "replies[0].body"},
		{"bad_reply_to", nil, "adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": "ok", "reply_to": "DC 1; rm"}}}, "replies[0].reply_to"},
		{"trigger_field_on_adjourn", nil, "adjourn", map[string]any{"summary": "s", "replies_needed": 1}, "replies_needed"},
		{"correlation_id_from_model", nil, "recess", map[string]any{"summary": "s", "correlation_id": "c-other", "replies_needed": 1}, "correlation_id"},
		{"reply_without_body", nil, "reply", map[string]any{"reply_to": "DC_1"}, "body"},
		{"reply_body_too_long", nil, "reply", map[string]any{"body": strings.Repeat("x", resume.MaxReplyBody+1)}, "body"},
		{"reply_body_nul", nil, "reply", map[string]any{"body": "a\x00b"}, "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "verdict.json")
			s := mcpSession(t, nil, flags(path, tt.args...)...)
			res := call(t, s, tt.tool, tt.call)
			if got := refusedField(t, res); got != tt.field {
				t.Errorf("%s(%v) refused field %q, want %q", tt.tool, tt.call, got, tt.field)
			}
			if got := advice(t, resultText(res)); got != adviceFix {
				t.Errorf("%s(%v) refused with %q: it says %s, want what to change", tt.tool, tt.call, resultText(res), got)
			}
			mustNotExist(t, path)
		})
	}
}

// thread_only is refused by the recess tool itself, naming it and saying
// what to change, where the run's thread holds no replies under comments
// (an issue or a pull request, known from the resume_context or as the one
// kind --threads serves): the agent learns it in its turn, not from the
// verdict step after it. Where the kind is not known, the tool writes the
// verdict and the verdict step decides.
func TestMCPRecess_thread_only_where_the_thread_holds_replies(t *testing.T) {
	t.Parallel()
	rc := func(kind string) []string {
		return []string{"--resume-context", `{"fired_by":"elapsed","kind":"` + kind + `"}`}
	}
	nested := map[string]any{"summary": "s", "replies_needed": 1, "thread_only": true, "elapsed": "P1D"}
	tests := []struct {
		name    string
		args    []string
		refused bool
	}{
		{name: "resumed_on_an_issue", args: rc("issue"), refused: true},
		{name: "resumed_on_a_pull_request", args: rc("pull_request"), refused: true},
		{name: "first_run_with_issues_alone_served", args: []string{"--threads", "issues"}, refused: true},
		{name: "resumed_on_a_discussion", args: rc("discussion")},
		{name: "first_run_with_discussions_alone", args: nil},
		{name: "first_run_of_unknown_kind", args: []string{"--threads", "discussions,issues"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "verdict.json")
			s := mcpSession(t, nil, flags(path, tt.args...)...)
			res := call(t, s, "recess", nested)
			if !tt.refused {
				var out verdictOutput
				structured(t, res, &out)
				if !strings.Contains(out.Trigger, `"scope":"thread"`) {
					t.Errorf("trigger %s lost scope thread", out.Trigger)
				}
				return
			}
			if got := refusedField(t, res); got != "thread_only" {
				t.Errorf("refused field %q, want thread_only", got)
			}
			if got := advice(t, resultText(res)); got != adviceFix {
				t.Errorf("refused with %q: it says %s, want what to change", resultText(res), got)
			}
			mustNotExist(t, path)
		})
	}
}

// What a refusal tells the model to do next: change its call, or stop.
const (
	adviceFix  = "what to change"
	adviceStop = "to stop"
)

// advice is what a refusal tells the model: exactly one of "correct or
// leave out FIELD and call again" and "no call can change this: ...".
func advice(t *testing.T, text string) string {
	t.Helper()
	fix := strings.HasSuffix(text, "and call again.") || strings.Contains(text, "call it again with none")
	stop := strings.Contains(text, ". No call can change this: ")
	switch {
	case fix && !stop:
		return adviceFix
	case stop && !fix && !strings.Contains(text, "call again"):
		return adviceStop
	}
	t.Fatalf("refusal %q says neither what to change nor to stop, or both", text)
	return ""
}

// Every refusal says what to change, or, when nothing the model sends can
// help (a second verdict, a verdict file already there, no read token, a
// full reply queue), says so and to stop; a read tool, which takes no
// arguments, says that.
func TestMCPRefusalsSayWhatToChangeOrToStop(t *testing.T) {
	t.Parallel()
	type toolCall struct {
		tool string
		args map[string]any
	}
	tenReplies := make([]toolCall, resume.MaxReplies)
	for i := range tenReplies {
		tenReplies[i] = toolCall{"reply", map[string]any{"body": "question"}}
	}
	tests := []struct {
		name   string
		before []toolCall // accepted calls first
		exists bool       // a verdict file is already there
		call   toolCall
		advice string
		want   string // the whole text, where given
	}{
		{name: "second_verdict", before: []toolCall{{"adjourn", map[string]any{"summary": "answered"}}},
			call: toolCall{"recess", map[string]any{"summary": "s", "elapsed": "P1D"}}, advice: adviceStop,
			want: "refused: verdict: this run already adjourned (one verdict per run). No call can change this: that verdict stands and nothing more is posted: end your turn now."},
		{name: "reply_after_the_verdict", before: []toolCall{{"recess", map[string]any{"summary": "s", "elapsed": "P1D"}}},
			call: toolCall{"reply", map[string]any{"body": "late"}}, advice: adviceStop},
		{name: "verdict_file_already_there", exists: true, call: toolCall{"adjourn", map[string]any{"summary": "s"}}, advice: adviceStop},
		{name: "read_without_token", call: toolCall{"read_discussion", map[string]any{}}, advice: adviceStop},
		{name: "reply_queue_full", before: tenReplies, call: toolCall{"reply", map[string]any{"body": "one more"}}, advice: adviceStop},
		{name: "argument_to_read_discussion", call: toolCall{"read_discussion", map[string]any{"number": 7}}, advice: adviceFix,
			want: "refused: number: unknown field. read_discussion takes no arguments: call it again with none ({})."},
		{name: "unknown_field_of_reply", call: toolCall{"reply", map[string]any{"body": "b", "discussion": 7}}, advice: adviceFix,
			want: "refused: discussion: unknown field. Nothing was written; leave discussion out (reply takes only body, reply_to) and call again."},
		{name: "unknown_field_of_a_reply_item", call: toolCall{"adjourn", map[string]any{"summary": "s", "replies": []any{map[string]any{"body": "b", "author": "me"}}}}, advice: adviceFix,
			want: "refused: replies[0].author: unknown field. Nothing was written; leave replies[0].author out (replies[0] takes only body, reply_to) and call again."},
		{name: "bad_duration", call: toolCall{"recess", map[string]any{"summary": "s", "elapsed": "1D"}}, advice: adviceFix},
		{name: "replies_past_the_queue", before: tenReplies[:8], call: toolCall{"adjourn", map[string]any{"summary": "s",
			"replies": []any{map[string]any{"body": "a"}, map[string]any{"body": "b"}, map[string]any{"body": "c"}}}}, advice: adviceFix,
			want: "refused: replies: more than 10 replies (8 queued with reply so far, which stay queued: give at most 2 more). Nothing was written; correct replies and call again."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "verdict.json")
			if tt.exists {
				if err := os.WriteFile(path, []byte("earlier"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := mcpSession(t, nil, flags(path)...)
			for _, c := range tt.before {
				if res := call(t, s, c.tool, c.args); res.IsError {
					t.Fatalf("%s: %s", c.tool, resultText(res))
				}
			}
			res := call(t, s, tt.call.tool, tt.call.args)
			refusedField(t, res)
			text := resultText(res)
			if got := advice(t, text); got != tt.advice {
				t.Errorf("%s(%v) = %q: it says %s, want %s", tt.call.tool, tt.call.args, text, got, tt.advice)
			}
			if tt.want != "" && text != tt.want {
				t.Errorf("%s(%v) =\n%q\nwant\n%q", tt.call.tool, tt.call.args, text, tt.want)
			}
		})
	}
}

// A model under a client's strict-mode conversion sends every field; the
// zero values mean "not given", and the verdict holds only what was meant.
func TestMCPStrictModeZeroValues(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "verdict.json")
	s := mcpSession(t, nil, flags(path)...)
	if res := call(t, s, "reply", map[string]any{"body": "Which backend?", "reply_to": ""}); res.IsError {
		t.Fatalf("reply: %s", resultText(res))
	}
	var out verdictOutput
	structured(t, call(t, s, "recess", map[string]any{"summary": "waiting", "replies": []any{}, "replies_needed": 2, "from": []any{},
		"thread_only": false, "elapsed": "", "signal": "", "combine": "all", "expires": "", "on_expire": "cancel"}), &out)
	want := verdictOutput{Verdict: resume.VerdictRecessed, Replies: 1, Trigger: `{"kind":"missing_input","replies":2}`, VerdictFile: path}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("recess output (-want +got):\n%s", diff)
	}
	v := readVerdict(t, path, "c-1", 7)
	if diff := cmp.Diff([]resume.VerdictReply{{Body: "Which backend?"}}, v.Replies); diff != "" {
		t.Errorf("verdict replies (-want +got):\n%s", diff)
	}
}

// A client's strict-mode conversion makes the optional fields nullable, and
// a model then sends null for what it leaves out: null means "not given",
// as the zero value does.
func TestMCPStrictModeNulls(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "verdict.json")
	s := mcpSession(t, nil, flags(path)...)
	if res := call(t, s, "reply", map[string]any{"body": "Which backend?", "reply_to": nil}); res.IsError {
		t.Fatalf("reply with a null reply_to: %s", resultText(res))
	}
	var out verdictOutput
	structured(t, call(t, s, "recess", map[string]any{"summary": "waiting", "replies": nil, "replies_needed": 2, "from": nil,
		"thread_only": nil, "elapsed": nil, "signal": nil, "combine": nil, "expires": nil, "on_expire": nil}), &out)
	want := verdictOutput{Verdict: resume.VerdictRecessed, Replies: 1, Trigger: `{"kind":"missing_input","replies":2}`, VerdictFile: path}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("recess output (-want +got):\n%s", diff)
	}
}

// The flat fields map to the verdict's trigger language.
func TestMCPFlatTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   recessInput
		want string
	}{
		{"replies", recessInput{RepliesNeeded: 2}, `{"kind":"missing_input","replies":2}`},
		{"replies_from_in_thread", recessInput{RepliesNeeded: 1, From: []string{"alice", "bob"}, ThreadOnly: true},
			`{"from":["alice","bob"],"kind":"missing_input","replies":1,"scope":"thread"}`},
		{"elapsed", recessInput{Elapsed: "PT12H"}, `{"elapsed":"PT12H","kind":"elapsed"}`},
		{"signal_expiring", recessInput{Signal: "security-review", Expires: "P7D", OnExpire: "cancel"},
			`{"expires":"P7D","kind":"escalation_needed","on_expire":"cancel","signal":"security-review"}`},
		{"any_by_default", recessInput{RepliesNeeded: 1, Elapsed: "P3D"},
			`{"kind":"any","of":[{"kind":"missing_input","replies":1},{"elapsed":"P3D","kind":"elapsed"}]}`},
		{"all_three", recessInput{RepliesNeeded: 1, Elapsed: "P3D", Signal: "go", Combine: "all", Expires: "P9D"},
			`{"expires":"P9D","kind":"all","of":[{"kind":"missing_input","replies":1},{"elapsed":"P3D","kind":"elapsed"},{"kind":"escalation_needed","signal":"go"}]}`},
		{"on_expire_without_expires_ignored", recessInput{RepliesNeeded: 1, OnExpire: "cancel"}, `{"kind":"missing_input","replies":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := flatTrigger(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("flatTrigger(%+v) = %s, want %s", tt.in, got, tt.want)
			}
			if _, err := wait.ParseTrigger(got, wait.TriggerLimits{}); err != nil {
				t.Errorf("the trigger language refuses %s: %v", got, err)
			}
		})
	}
}

// A refused reply leaves the queue as it was: the verdict posts exactly the
// replies that were accepted, and a full queue is refused with its count.
func TestMCPReplyQueue(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "verdict.json")
	s := mcpSession(t, nil, flags(path)...)
	if res := call(t, s, "reply", map[string]any{"body": "first", "reply_to": "DC_kwA1"}); res.IsError {
		t.Fatalf("reply: %s", resultText(res))
	}
	if got := refusedField(t, call(t, s, "reply", map[string]any{"body": ""})); got != "body" {
		t.Errorf("empty body refused as %q", got)
	}
	for i := 2; i <= resume.MaxReplies; i++ {
		var out replyOutput
		structured(t, call(t, s, "reply", map[string]any{"body": "more"}), &out)
		if want := (replyOutput{Queued: i, Max: resume.MaxReplies, Checked: true}); out != want {
			t.Errorf("reply %d = %+v, want %+v", i, out, want)
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
	// The environment is a fallback for the flags.
	s := mcpSession(t, []string{"RECESS_VERDICT_FILE=" + path, "RECESS_CORRELATION_ID=c-1", "RECESS_DISCUSSION=7"})
	res := call(t, s, "recess", map[string]any{"summary": "waiting for storage owners", "replies_needed": 2,
		"replies": []any{map[string]any{"body": "Which backend?"}}})
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
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "again", "elapsed": "P1D"})); got != "verdict" {
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
	s := mcpSession(t, nil, flags(path)...)
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

// Settings come from flags (the environment is a fallback); every refusal
// is one stderr line that names the flag, nothing is said on the protocol
// channel unasked, and the end of input is exit status 2.
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
		{"verdict_directory_missing", nil, []string{"--verdict-file", filepath.Join(dir, "nope", "v.json")}, "--verdict-file"},
		{"verdict_path_is_directory", nil, []string{"--verdict-file", dir}, "--verdict-file"},
		{"no_correlation_id", map[string]string{"RECESS_CORRELATION_ID": ""}, nil, "--correlation-id"},
		{"bad_correlation_id", nil, []string{"--correlation-id", "c 1"}, "--correlation-id"},
		{"no_discussion", map[string]string{"RECESS_DISCUSSION": ""}, nil, "--discussion"},
		{"discussion_not_number", map[string]string{"RECESS_DISCUSSION": "seven"}, nil, "--discussion"},
		{"discussion_too_big", nil, []string{"--discussion", "99999999999"}, "--discussion"},
		{"token_without_repo", nil, []string{"--token", "t"}, "--repo"},
		{"token_bad_api_url", nil, []string{"--token", "t", "--repo", "o/r", "--api-url", "ftp://x"}, "--api-url"},
		{"bad_threads", map[string]string{"RECESS_THREADS": "issues, wikis"}, nil, "--threads"},
		{"bad_max_recess", map[string]string{"RECESS_MAX_RECESS": "90 days"}, nil, "--max-recess"},
		{"bad_kind", nil, []string{"--allowed-kinds", "missing_input,someday"}, "--allowed-kinds"},
		{"bad_policy_file", nil, []string{"--config", policy}, "allowed-kinds[0]"},
		{"missing_policy_file", map[string]string{"RECESS_CONFIG": filepath.Join(dir, "nope.yml")}, nil, "nope.yml"},
		{"bad_resume_context", map[string]string{"RECESS_RESUME_CONTEXT": `{"fired_by":"elapsed","history_since":[{"id":"DC_1","created_at":"yesterday"}]}`}, nil, "--resume-context"},
		{"bad_now", map[string]string{"RECESS_NOW": "now"}, nil, "RECESS_NOW"},
		{"both_contexts", nil, []string{"--resume-context", `{"fired_by":"elapsed"}`, "--resume-context-file", policy}, "give one"},
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
			if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr %q: want one line naming %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing (it is the protocol channel)", stdout.String())
			}
		})
	}
}

// The policy file sets the limits; flags override it.
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
	s := mcpSession(t, []string{"GITHUB_WORKSPACE=" + ws}, flags(path)...)
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "s", "elapsed": "P3D"})); got != "elapsed" {
		t.Errorf("P3D under max-recess P2D refused as %q", got)
	}
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "s", "replies_needed": 1})); got != "replies_needed" {
		t.Errorf("missing_input outside allowed-kinds refused as %q", got)
	}
	mustNotExist(t, path)

	path2 := filepath.Join(t.TempDir(), "v.json")
	s2 := mcpSession(t, []string{"GITHUB_WORKSPACE=" + ws}, flags(path2, "--max-recess", "P5D")...)
	if res := call(t, s2, "recess", map[string]any{"summary": "s", "elapsed": "P3D"}); res.IsError {
		t.Errorf("P3D under --max-recess P5D refused: %s", resultText(res))
	}
	readVerdict(t, path2, "c-1", 7)
}

// An empty --resume-context-file is a first run: read_discussion says
// nothing was resumed.
func TestMCPEmptyResumeContextFileIsAFirstRun(t *testing.T) {
	t.Parallel()
	sw := newSessionWorld(t)
	empty := filepath.Join(t.TempDir(), "rc.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := mcpSession(t, []string{"RECESS_NOW=" + sw.w.Now().Format(time.RFC3339)}, append(sw.args(sw.run, sw.verdictFile), "--resume-context-file", empty)...)
	var d discussionOutput
	structured(t, call(t, s, "read_discussion", map[string]any{}), &d)
	if diff := cmp.Diff(resumedOutput{Asked: []questionOutput{}}, d.Resumed); diff != "" {
		t.Errorf("read_discussion on a first run, resumed (-want +got):\n%s", diff)
	}
}

// sessionWorld is a discussion on the fake GitHub with a person's comment
// and an agent run dispatched for it, and the flags a workflow would give
// that run's recess mcp, a read token included.
type sessionWorld struct {
	w                      *recesstest.World
	run                    githubfake.Run
	number                 int
	discussionID, question string // bob's comment
	verdictFile            string
}

func newSessionWorld(t *testing.T) *sessionWorld {
	t.Helper()
	return newSessionWorldOn(t, "comment")
}

// newSessionWorldOn is a sessionWorld on the given store.
func newSessionWorldOn(t *testing.T, store string) *sessionWorld {
	t.Helper()
	w := recesstest.New(t, recesstest.Options{Store: store})
	n, id := w.Open("alice")
	bob := w.Say(id, "", "bob", "Which storage backend is this for?")
	if _, err := w.Engine(nil).Engine.Intake(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	runs := w.Waiting()
	if len(runs) != 1 {
		t.Fatalf("%d runs after intake, want 1", len(runs))
	}
	return &sessionWorld{w: w, run: runs[0], number: n, discussionID: id, question: bob, verdictFile: filepath.Join(t.TempDir(), "verdict.json")}
}

// args are the flags of the run's server (resumeContext "" for a first run).
func (sw *sessionWorld) args(run githubfake.Run, verdictFile string) []string {
	a := []string{"--verdict-file", verdictFile, "--correlation-id", run.Inputs["correlation_id"], "--discussion", run.Inputs["discussion_number"],
		"--token", recesstest.Token, "--repo", recesstest.Repo, "--api-url", sw.w.GH.URL(), "--graphql-url", sw.w.GH.GraphQLURL()}
	if rc := run.Inputs["resume_context"]; rc != "" {
		a = append(a, "--resume-context", rc)
	}
	return a
}

// applyVerdict feeds the verdict file to the verdict step and checks that
// the recess asked its question under bob's comment; a person then answers
// and the resume is dispatched.
func (sw *sessionWorld) applyVerdict(t *testing.T, question string) githubfake.Run {
	t.Helper()
	ctx := context.Background()
	doc, err := os.ReadFile(sw.verdictFile)
	if err != nil {
		t.Fatalf("no verdict file: %v", err)
	}
	if stale, err := sw.w.Answer(ctx, sw.run, func(string, int) string { return string(doc) }); err != nil || stale {
		t.Fatalf("command verdict on the file: stale %v, err %v\n%s", stale, err, doc)
	}
	var posted []githubfake.Comment
	for _, c := range sw.w.RecessComments(sw.discussionID) {
		if strings.HasPrefix(c.Body, question) {
			posted = append(posted, c)
		}
	}
	if len(posted) != 1 || posted[0].ParentID != sw.question {
		t.Fatalf("question posted as %+v, want one reply under %s", posted, sw.question)
	}
	sw.w.Advance(time.Minute)
	sw.w.Say(sw.discussionID, sw.question, "carol", "Postgres, please.")
	if _, err := sw.w.Engine(nil).Engine.Inbound(ctx, sw.number); err != nil {
		t.Fatal(err)
	}
	runs := sw.w.Waiting()
	if len(runs) != 1 {
		t.Fatalf("%d runs after the answer, want the resume", len(runs))
	}
	return runs[0]
}

// The whole path with the Go SDK's client: read the discussion, a bad and a
// good reply_to, a bad and a good recess, the verdict step applies the
// file; the resumed run reads what it asked and what fired.
func TestMCPGoClientSession(t *testing.T) {
	t.Parallel()
	sw := newSessionWorld(t)
	s := mcpSession(t, []string{"RECESS_NOW=" + sw.w.Now().Format(time.RFC3339)}, sw.args(sw.run, sw.verdictFile)...)

	var d discussionOutput
	structured(t, call(t, s, "read_discussion", map[string]any{}), &d)
	if d.Number != sw.number || d.Title != "RFC" || d.Body != "please review" || d.Category != "General" || d.Author != "alice" || d.Resumed.Resumed {
		t.Errorf("read_discussion = %+v", d)
	}
	var people []commentOutput
	status := ""
	for _, c := range d.Comments {
		if !c.ByRecess {
			people = append(people, c)
		} else if strings.Contains(c.Body, "An agent is working") {
			status = c.ID
			if c.CanReplyTo || strings.Contains(c.Body, "recess:state") {
				t.Errorf("status comment = %+v, want it shown without its record and not to reply to", c)
			}
		}
	}
	if status == "" {
		t.Errorf("read_discussion shows no status comment: %+v", d.Comments)
	}
	want := []commentOutput{{ID: sw.question, Author: "bob", CreatedAt: sw.w.Now().Format(time.RFC3339), Thread: sw.question,
		Body: "Which storage backend is this for?", CanReplyTo: true}}
	if diff := cmp.Diff(want, people, cmpopts.IgnoreFields(commentOutput{}, "URL")); diff != "" {
		t.Errorf("people's comments (-want +got):\n%s", diff)
	}

	if got := refusedField(t, call(t, s, "reply", map[string]any{"body": "Postgres or SQLite?", "reply_to": "DC nope"})); got != "reply_to" {
		t.Errorf("reply_to that cannot be an id refused as %q, want reply_to", got)
	}
	var r replyOutput
	structured(t, call(t, s, "reply", map[string]any{"body": "Postgres or SQLite?", "reply_to": sw.question}), &r)
	if r != (replyOutput{Queued: 1, Max: resume.MaxReplies, ReplyTo: sw.question, PostedUnder: sw.question, Checked: true}) {
		t.Errorf("reply = %+v", r)
	}
	if got := refusedField(t, call(t, s, "recess", map[string]any{"summary": "waiting", "replies_needed": 1, "elapsed": "2 days"})); got != "elapsed" {
		t.Errorf("bad elapsed refused as %q", got)
	}
	mustNotExist(t, sw.verdictFile)
	var v verdictOutput
	structured(t, call(t, s, "recess", map[string]any{"summary": "waiting for the storage owners", "replies_needed": 1, "elapsed": "P2D"}), &v)
	if v.Verdict != resume.VerdictRecessed || v.Replies != 1 {
		t.Errorf("recess = %+v", v)
	}

	resumed := sw.applyVerdict(t, "Postgres or SQLite?")
	s2 := mcpSession(t, []string{"RECESS_NOW=" + sw.w.Now().Format(time.RFC3339)}, sw.args(resumed, filepath.Join(t.TempDir(), "v.json"))...)
	var d2 discussionOutput
	structured(t, call(t, s2, "read_discussion", map[string]any{}), &d2)
	if !d2.Resumed.Resumed || d2.Resumed.FiredBy != wait.KindMissingInput || d2.Resumed.CorrelationID != sw.run.Inputs["correlation_id"] ||
		len(d2.Resumed.Asked) != 1 || d2.Resumed.Asked[0].Body != "Postgres or SQLite?" || d2.Resumed.Asked[0].Thread != sw.question {
		t.Errorf("resumed read_discussion = %+v", d2.Resumed)
	}
	if !slices.ContainsFunc(d2.Comments, func(c commentOutput) bool { return c.Author == "carol" && c.Body == "Postgres, please." }) {
		t.Errorf("resumed read_discussion does not show carol's answer: %+v", d2.Comments)
	}
}

// Where a reply goes is one rule (resume.PlaceReply): the reply tool tells
// the model where the verdict step will post it, and the verdict step posts
// it there. bob's comment "top" has carol's "reply" under it; "other" is a
// comment in another discussion; "status" is recess's status comment (the
// comment store's). hide deletes or minimizes top before the model asks.
func TestMCPReply_says_where_the_verdict_posts_it(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		hide    string // "", "delete" or "minimize"
		replyTo string // top, reply, other, status, or a literal id
		under   string // where it goes: top, or "" for the top level
		note    string // what the tool's note must hold ("" for none)
		store   string // only on this store ("" for both)
	}{
		{name: "top_level_comment", replyTo: "top", under: "top"},
		{name: "reply_goes_under_its_parent", replyTo: "reply", under: "top"},
		{name: "deleted_comment", hide: "delete", replyTo: "top", note: "was deleted"},
		{name: "reply_under_a_deleted_comment", hide: "delete", replyTo: "reply", note: "under a comment that was deleted or hidden"},
		{name: "reply_under_a_minimized_comment", hide: "minimize", replyTo: "reply", note: "under a comment that was deleted or hidden"},
		{name: "minimized_comment", hide: "minimize", replyTo: "top", note: "is hidden (minimized)"},
		{name: "status_comment", replyTo: "status", note: "recess's status comment", store: "comment"},
		{name: "unknown_comment", replyTo: "DC_kwDOAAAAAAAAnope", note: "shows no comment"},
		{name: "comment_in_another_discussion", replyTo: "other", note: "shows no comment"},
	}
	for _, store := range []string{"comment", "branch"} {
		for _, tt := range tests {
			if tt.store != "" && tt.store != store {
				continue
			}
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				sw := newSessionWorldOn(t, store)
				_, otherID := sw.w.Open("dora")
				ids := map[string]string{"top": sw.question, "other": sw.w.Say(otherID, "", "dora", "elsewhere"),
					"reply": sw.w.Say(sw.discussionID, sw.question, "carol", "S3, surely")}
				for _, c := range sw.w.RecessComments(sw.discussionID) {
					if state.HasMarker(c.Body) {
						ids["status"] = c.ID
					}
				}
				var err error
				switch tt.hide {
				case "delete":
					err = sw.w.GH.DeleteComment(ids["top"])
				case "minimize":
					err = sw.w.GH.MinimizeComment(ids["top"], "OFF_TOPIC")
				}
				if err != nil {
					t.Fatal(err)
				}
				replyTo := tt.replyTo
				if id, ok := ids[replyTo]; ok {
					replyTo = id
				}

				s := mcpSession(t, []string{"RECESS_NOW=" + sw.w.Now().Format(time.RFC3339)}, sw.args(sw.run, sw.verdictFile)...)
				res := call(t, s, "reply", map[string]any{"body": "Postgres or SQLite?", "reply_to": replyTo})
				var got replyOutput
				structured(t, res, &got)
				want := replyOutput{Queued: 1, Max: resume.MaxReplies, ReplyTo: replyTo, PostedUnder: ids[tt.under], Checked: true, Note: got.Note}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("reply (-want +got):\n%s", diff)
				}
				if (tt.note == "") != (got.Note == "") || !strings.Contains(got.Note, tt.note) {
					t.Errorf("reply's note = %q, want one holding %q", got.Note, tt.note)
				}
				structured(t, call(t, s, "adjourn", map[string]any{"summary": "answered"}), &verdictOutput{})

				doc, err := os.ReadFile(sw.verdictFile)
				if err != nil {
					t.Fatal(err)
				}
				if stale, err := sw.w.Answer(ctx, sw.run, func(string, int) string { return string(doc) }); err != nil || stale {
					t.Fatalf("verdict step: stale %v, err %v", stale, err)
				}
				var posted []githubfake.Comment
				for _, c := range sw.w.RecessComments(sw.discussionID) {
					if k, _, ok := state.ParseReplyMarker(c.Body); ok && k == sw.run.Inputs["correlation_id"] {
						posted = append(posted, c)
					}
				}
				if len(posted) != 1 {
					t.Fatalf("verdict step posted %d replies, want 1", len(posted))
				}
				if posted[0].ParentID != got.PostedUnder {
					t.Errorf("verdict step posted the reply under %q; the reply tool said %q (%s)", posted[0].ParentID, got.PostedUnder, resultText(res))
				}
				if lead := strings.HasPrefix(posted[0].Body, "↪️ In answer to"); lead != (got.Note != "") {
					t.Errorf("posted reply opens with a line saying what it answered: %v; the reply tool's note: %q", lead, got.Note)
				}
			})
		}
	}
}

// A reply_to the server could not check (GitHub unreachable, or no read
// token) is said to be unchecked, never reported as placed: the reply is
// queued, and the verdict step places it by the same rule.
func TestMCPReply_unchecked_reply_to_is_said_so(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // nothing listens there any more
	tests := []struct {
		name string
		args []string
		note string
	}{
		{"github_unreachable", []string{"--token", "t", "--repo", "o/r", "--api-url", down.URL, "--graphql-url", down.URL + "/graphql"}, "could not be read"},
		{"no_read_token", nil, "without --token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "v.json")
			s := mcpSession(t, nil, flags(path, tt.args...)...)
			res := call(t, s, "reply", map[string]any{"body": "Postgres or SQLite?", "reply_to": "DC_nope"})
			var got replyOutput
			structured(t, res, &got)
			if got.Checked || got.PostedUnder != "" || !strings.Contains(got.Note, tt.note) {
				t.Errorf("reply = %+v, want it unchecked, with a note holding %q", got, tt.note)
			}
			if text := resultText(res); !strings.Contains(text, "not checked") || strings.Contains(text, "under comment DC_nope") {
				t.Errorf("reply said %q, want it to say reply_to was not checked, and not where it goes", text)
			}
			res = call(t, s, "adjourn", map[string]any{"summary": "answered", "replies": []any{map[string]any{"body": "More.", "reply_to": "DC_gone"}}})
			if text := resultText(res); res.IsError || !strings.Contains(text, "replies[0]: for comment DC_gone, not checked") {
				t.Errorf("adjourn said %q, want the written verdict and its reply_to said to be unchecked", text)
			}
			if v := readVerdict(t, path, "c-1", 7); len(v.Replies) != 2 {
				t.Errorf("verdict holds %d replies, want both", len(v.Replies))
			}
		})
	}
}

// rawServer runs the binary with a bare environment and speaks
// newline-delimited JSON to it by hand.
type rawServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *bytes.Buffer
}

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(recessBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = []string{"RECESS_NOW=" + mcpNow}
	r := &rawServer{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = r.stderr
	var err error
	if r.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.out = bufio.NewScanner(stdout)
	r.out.Buffer(nil, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return r
}

// rpcAnswer is a JSON-RPC response as the tests read it.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code int `json:"code"`
	} `json:"error,omitempty"`
}

func (r *rawServer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (r *rawServer) read(t *testing.T) rpcAnswer {
	t.Helper()
	if !r.out.Scan() {
		t.Fatalf("no answer (stderr %q)", r.stderr.String())
	}
	var a rpcAnswer
	if err := json.Unmarshal(r.out.Bytes(), &a); err != nil {
		t.Fatalf("answer %q: %v", r.out.Text(), err)
	}
	return a
}

// exit closes stdin and returns the exit status.
func (r *rawServer) exit(t *testing.T) int {
	t.Helper()
	r.in.Close()
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// A line that is not a JSON-RPC message is answered with the JSON-RPC
// error and the session goes on; the end of input without a verdict is
// exit status 3 with one line that says so.
func TestMCPBinaryMalformedLinesAndNoVerdict(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v.json")
	r := startRaw(t, flags(path)...)
	r.send(t, initializeLine)
	if a := r.read(t); a.Error != nil || string(a.ID) != "1" {
		t.Fatalf("initialize = %+v", a)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tt := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, -32700},
		{`hello`, -32700},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, -32600},
		{`{"id":4,"method":"tools/list"}`, -32600},
	} {
		r.send(t, tt.line)
		if a := r.read(t); a.Error == nil || a.Error.Code != tt.code {
			t.Errorf("%s answered %+v, want error %d", tt.line, a, tt.code)
		}
	}
	r.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if a := r.read(t); a.Error != nil || string(a.ID) != "5" {
		t.Errorf("tools/list after the bad lines = %+v", a)
	}
	if code := r.exit(t); code != exitNoVerdict {
		t.Errorf("exit %d, want %d", code, exitNoVerdict)
	}
	if got := r.stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "no verdict was given") {
		t.Errorf("stderr %q, want one line saying no verdict was given", got)
	}
}

// A start-up problem is said at once in one stderr line naming the flag;
// the server still answers initialize and tools/list, every tool call gets
// that same line as its error (hosts show only "connection closed" for a
// server that exits), and the end of input is exit status 2.
func TestMCPBinaryBadStartServesItsReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	verdict := filepath.Join(dir, "v.json")
	for _, tt := range []struct {
		name string
		args []string
		flag string // what the line names
	}{
		{"missing_flag", []string{"--verdict-file", verdict, "--correlation-id", "c-1"}, "--discussion"},
		{"unknown_flag", flags(verdict, "--verdikt-file", verdict), "-verdikt-file"},
		{"unwritable_verdict_path", flags(filepath.Join(dir, "missing", "v.json")), "--verdict-file"},
		{"missing_resume_context_file", flags(verdict, "--resume-context-file", filepath.Join(dir, "none.json")), "--resume-context-file"},
		{"unreadable_resume_context_file", flags(verdict, "--resume-context-file", dir), "--resume-context-file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startRaw(t, tt.args...)
			r.send(t, initializeLine)
			if a := r.read(t); a.Error != nil || string(a.ID) != "1" {
				t.Fatalf("initialize = %+v (stderr %q)", a, r.stderr.String())
			}
			r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			var list struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			if a := r.read(t); a.Error != nil || json.Unmarshal(a.Result, &list) != nil || len(list.Tools) == 0 {
				t.Fatalf("tools/list = %+v", a)
			}
			var errs []string
			for i, tool := range list.Tools {
				r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, 10+i, tool.Name))
				a := r.read(t)
				var res struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				}
				if a.Error != nil || json.Unmarshal(a.Result, &res) != nil || !res.IsError || len(res.Content) != 1 {
					t.Fatalf("tools/call %s = %+v, want a tool error", tool.Name, a)
				}
				errs = append(errs, res.Content[0].Text)
			}
			if code := r.exit(t); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			line, rest, _ := strings.Cut(r.stderr.String(), "\n")
			if rest != "" || !strings.Contains(line, tt.flag) || !strings.Contains(line, "end your turn") {
				t.Errorf("stderr %q, want one line naming %s and telling the model to stop", r.stderr.String(), tt.flag)
			}
			for i, e := range errs {
				if e != line {
					t.Errorf("tools/call %s answered %q, want the stderr line %q", list.Tools[i].Name, e, line)
				}
			}
			mustNotExist(t, verdict)
		})
	}
}

// After a verdict, the end of input is a clean exit.
func TestMCPBinaryVerdictThenExit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v.json")
	r := startRaw(t, flags(path)...)
	r.send(t, initializeLine)
	r.read(t)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"adjourn","arguments":{"summary":"done"}}}`)
	if a := r.read(t); a.Error != nil {
		t.Fatalf("adjourn = %+v", a)
	}
	if code := r.exit(t); code != 0 {
		t.Errorf("exit %d, want 0 (stderr %q)", code, r.stderr.String())
	}
	readVerdict(t, path, "c-1", 7)
}

// providerRules are testdata/mcp/provider-rules.json: what each model
// provider accepts in a tool schema, with the sources.
type providerRules struct {
	About     string `json:"about"`
	Providers []struct {
		Name                     string         `json:"name"`
		Sources                  []string       `json:"sources"`
		Facts                    []string       `json:"facts"`
		RootType                 string         `json:"root_type"`
		RootForbidden            []string       `json:"root_forbidden"`
		Forbidden                []string       `json:"forbidden"`
		AllowedKeywords          []string       `json:"allowed_keywords"`
		SingleType               bool           `json:"single_type"`
		PropertyNeedsDescription bool           `json:"property_needs_description"`
		ObjectNeedsProperties    bool           `json:"object_needs_properties"`
		ObjectNeedsNoExtra       bool           `json:"object_needs_additional_properties_false"`
		StrictConversion         bool           `json:"strict_conversion"`
		ToolNamePattern          string         `json:"tool_name_pattern"`
		PropertyNamePattern      string         `json:"property_name_pattern"`
		NoArgumentsSchema        map[string]any `json:"no_arguments_schema"`
	} `json:"providers"`
}

// inMemoryTools lists the tools of a server with the SDK's client over an
// in-memory transport.
func inMemoryTools(t *testing.T) []*mcp.Tool {
	t.Helper()
	srv, err := newMCPServer(mcpOptions{VerdictFile: filepath.Join(t.TempDir(), "v.json"), CorrelationID: "c-1", Discussion: "7"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// Every tool's input and output schema, as a client lists it, passes every
// provider's rules.
func TestMCPSchemasArePortable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mcp", "provider-rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rules providerRules
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("provider-rules.json: %v", err)
	}
	tools := inMemoryTools(t)
	if len(tools) != 5 {
		t.Fatalf("%d tools, want 5", len(tools))
	}
	for _, p := range rules.Providers {
		if len(p.Sources) == 0 {
			t.Errorf("%s: no sources", p.Name)
		}
		for _, tool := range tools {
			if p.ToolNamePattern != "" && !regexp.MustCompile(p.ToolNamePattern).MatchString(tool.Name) {
				t.Errorf("%s: tool name %q does not match %s", p.Name, tool.Name, p.ToolNamePattern)
			}
			for _, which := range []string{"input", "output"} {
				raw := tool.InputSchema
				if which == "output" {
					raw = tool.OutputSchema
				}
				var s map[string]any
				b, _ := json.Marshal(raw)
				if err := json.Unmarshal(b, &s); err != nil || s == nil {
					t.Errorf("%s %s schema %s: not an object", tool.Name, which, b)
					continue
				}
				where := p.Name + ": " + tool.Name + " " + which + " schema"
				if p.RootType != "" && s["type"] != p.RootType {
					t.Errorf("%s: root type %v, want %s", where, s["type"], p.RootType)
				}
				for _, k := range p.RootForbidden {
					if _, ok := s[k]; ok {
						t.Errorf("%s: %q at the root", where, k)
					}
				}
				if p.NoArgumentsSchema != nil && which == "input" && len(s["properties"].(map[string]any)) == 0 {
					if diff := cmp.Diff(p.NoArgumentsSchema, s); diff != "" {
						t.Errorf("%s: a tool without arguments (-want +got):\n%s", where, diff)
					}
				}
				if p.StrictConversion {
					s = strictConversion(s)
				}
				checkSchemaNode(t, where, "", s, p.Forbidden, p.AllowedKeywords, p.SingleType, p.PropertyNeedsDescription,
					p.ObjectNeedsProperties, p.ObjectNeedsNoExtra, p.PropertyNamePattern, 0)
			}
		}
	}
}

// strictConversion is what a client does to use a schema in OpenAI's
// strict mode: every property of every object becomes required.
func strictConversion(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	if props, ok := s["properties"].(map[string]any); ok {
		names := make([]any, 0, len(props))
		conv := map[string]any{}
		for name, p := range props {
			names = append(names, name)
			if ps, ok := p.(map[string]any); ok {
				conv[name] = strictConversion(ps)
			}
		}
		out["properties"], out["required"] = conv, names
	}
	if items, ok := s["items"].(map[string]any); ok {
		out["items"] = strictConversion(items)
	}
	return out
}

func checkSchemaNode(t *testing.T, where, path string, s map[string]any, forbidden, allowed []string, singleType, needDesc, needProps, needNoExtra bool, namePattern string, depth int) {
	t.Helper()
	if depth > 8 {
		t.Errorf("%s%s: nested deeper than 8 (recursion?)", where, path)
		return
	}
	for k := range s {
		if slices.Contains(forbidden, k) {
			t.Errorf("%s%s: keyword %q", where, path, k)
		}
		if allowed != nil && !slices.Contains(allowed, k) {
			t.Errorf("%s%s: keyword %q not among %v", where, path, k, allowed)
		}
	}
	typ, ok := s["type"].(string)
	if singleType && !ok {
		t.Errorf("%s%s: type %v is not one type", where, path, s["type"])
	}
	if needDesc && path != "" && !strings.HasSuffix(path, "[]") {
		if d, _ := s["description"].(string); d == "" {
			t.Errorf("%s%s: no description", where, path)
		}
	}
	switch typ {
	case "object":
		props, ok := s["properties"].(map[string]any)
		if needProps && !ok {
			t.Errorf("%s%s: object without properties", where, path)
		}
		if needNoExtra && s["additionalProperties"] != false {
			t.Errorf("%s%s: additionalProperties %v, want false", where, path, s["additionalProperties"])
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				t.Errorf("%s%s: required %q is no property", where, path, r)
			}
		}
		for name, p := range props {
			if namePattern != "" && !regexp.MustCompile(namePattern).MatchString(name) {
				t.Errorf("%s%s: property name %q does not match %s", where, path, name, namePattern)
			}
			ps, ok := p.(map[string]any)
			if !ok {
				t.Errorf("%s%s.%s: not a schema", where, path, name)
				continue
			}
			checkSchemaNode(t, where, path+"."+name, ps, forbidden, allowed, singleType, needDesc, needProps, needNoExtra, namePattern, depth+1)
		}
	case "array":
		items, ok := s["items"].(map[string]any)
		if !ok {
			t.Errorf("%s%s: array without one items schema", where, path)
			return
		}
		checkSchemaNode(t, where, path+"[]", items, forbidden, allowed, singleType, needDesc, needProps, needNoExtra, namePattern, depth+1)
	}
}

// FuzzMCPToolCall: whatever arguments a model sends, a tool call never
// fails the protocol; a refusal names a field and writes nothing; an
// accepted recess or adjourn leaves a verdict the verdict path accepts,
// for this run's own correlation id and discussion.
func FuzzMCPToolCall(f *testing.F) {
	f.Add("recess", []byte(`{"summary":"s","replies_needed":2}`))
	f.Add("recess", []byte(`{"summary":"s","elapsed":"P1DT1.5H","expires":"P2D","on_expire":"cancel","replies":[{"body":"q","reply_to":"DC_1"}]}`))
	f.Add("recess", []byte(`{"summary":"s","replies_needed":1,"from":["a"],"thread_only":true,"signal":"go","combine":"all"}`))
	f.Add("recess", []byte(`{"summary":"s","elapsed":"P91D"}`))
	f.Add("recess", []byte(`{"summary":"s","replies_needed":1,"from":["ghost"]}`))
	f.Add("adjourn", []byte(`{"summary":"done","replies":[{"body":"answer"}]}`))
	f.Add("adjourn", []byte(`{"summary":"s","summary":"t"}`))
	f.Add("adjourn", []byte(`{"summary":"s","replies":{"body":"x"}}`))
	f.Add("reply", []byte(`{"body":"hello","reply_to":"DC_kwA"}`))
	f.Add("reply", []byte(`{"body":"\ud800"}`))
	f.Add("reply", []byte(`[1,2]`))
	f.Add("read_discussion", []byte(`{"x":1}`))
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		if !json.Valid(args) {
			return // the transport answers it with a parse error
		}
		path := filepath.Join(t.TempDir(), "v.json")
		srv, err := newMCPServer(mcpOptions{VerdictFile: path, CorrelationID: "c-fuzz", Discussion: "9"}, func(k string) string {
			if k == "RECESS_NOW" {
				return mcpNow
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		ct, st := mcp.NewInMemoryTransports()
		ctx := context.Background()
		ss, err := srv.server().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "v0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			if !slices.Contains([]string{"reply", "recess", "adjourn", "read_discussion", "read_thread"}, tool) {
				return // an unknown tool is a protocol error
			}
			if !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
				return // arguments that are not an object are refused by the protocol
			}
			t.Fatalf("protocol error for a bad call (want a tool error): %v", err)
		}
		if res.IsError {
			refusedField(t, res)
			advice(t, resultText(res))
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

// The same session with a client nobody here wrote: the official
// TypeScript SDK (testdata/mcp-ts, version pinned in its package-lock.json),
// then the verdict step applies the file it left. It runs where the SDK is
// installed: .ci/mcp-ts.sh runs npm ci and sets RECESS_MCP_TS.
func TestMCPTypeScriptClient(t *testing.T) {
	t.Parallel()
	if os.Getenv("RECESS_MCP_TS") == "" {
		t.Skip("RECESS_MCP_TS is not set: run .ci/mcp-ts.sh (npm ci in testdata/mcp-ts)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "mcp-ts"))
	if err != nil {
		t.Fatal(err)
	}
	sw := newSessionWorld(t)
	const question = "Postgres or SQLite?"
	cfg, err := json.Marshal(map[string]any{"command": recessBinary(t), "args": append([]string{"mcp"}, sw.args(sw.run, sw.verdictFile)...), "comment": sw.question, "question": question})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "session.mjs"), string(cfg))
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node session.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var got struct {
		OK    bool     `json:"ok"`
		SDK   string   `json:"sdk"`
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || !got.OK {
		t.Fatalf("session output %q: %v", stdout.String(), err)
	}
	t.Logf("TypeScript SDK %s, tools %v", got.SDK, got.Tools)
	sw.applyVerdict(t, question)
}

// A client that writes its requests and closes its end at once (a shell
// pipe) still gets every answer, and the verdict.
func TestMCPBinaryAnswersBeforeTheEndOfInput(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v.json")
	r := startRaw(t, flags(path)...)
	r.send(t, initializeLine+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recess","arguments":{"summary":"s","replies_needed":2,"elapsed":"P3D"}}}`)
	r.in.Close()
	var ids []string
	for range 2 {
		a := r.read(t)
		if a.Error != nil {
			t.Errorf("answer %s is an error", a.ID)
		}
		ids = append(ids, string(a.ID))
	}
	if diff := cmp.Diff([]string{"1", "2"}, ids); diff != "" {
		t.Errorf("answered ids (-want +got):\n%s", diff)
	}
	if code := r.exit(t); code != 0 {
		t.Errorf("exit %d, want 0 (stderr %q)", code, r.stderr.String())
	}
	readVerdict(t, path, "c-1", 7)
}

// The "try it on a laptop" block of docs/agent.md works as written: run by
// bash with the built binary as the recess on PATH, it leaves the verdict.
func TestDocsMCPSnippetWorks(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "agent.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "Try it on a laptop")
	_, rest, ok2 := strings.Cut(rest, "```sh\n")
	block, _, ok3 := strings.Cut(rest, "```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/agent.md: no sh block after \"Try it on a laptop\"")
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + filepath.Dir(recessBinary(t)) + ":/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the docs/agent.md block fails: %v\n%s", err, out)
	}
	v := readVerdict(t, filepath.Join(dir, "verdict.json"), "c-1", 12)
	if v.Verdict != resume.VerdictRecessed || len(v.Replies) != 1 {
		t.Errorf("verdict = %+v", v)
	}
}

// The resume_context comes from --resume-context or --resume-context-file;
// a flag wins over the other one's RECESS_* fallback, and both flags at
// once are refused, naming them.
func TestMCPResumeContextSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "rc.json")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"mcp", "--verdict-file", filepath.Join(dir, "verdict.json"), "--correlation-id", "c-0123456789abcdef0123", "--discussion", "12"}
	for _, tt := range []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
	}{
		{"file_flag_over_env_context", map[string]string{"RECESS_RESUME_CONTEXT": `{"fired_by":"elapsed"}`}, []string{"--resume-context-file", file}, exitNoVerdict},
		{"context_flag_over_env_file", map[string]string{"RECESS_RESUME_CONTEXT_FILE": filepath.Join(dir, "missing.json")}, []string{"--resume-context", `{"fired_by":"elapsed"}`}, exitNoVerdict},
		{"both_flags", nil, []string{"--resume-context", `{"fired_by":"elapsed"}`, "--resume-context-file", file}, 2},
		{"both_from_env", map[string]string{"RECESS_RESUME_CONTEXT": `{"fired_by":"elapsed"}`, "RECESS_RESUME_CONTEXT_FILE": file}, nil, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), append(append([]string{}, base...), tt.args...), func(k string) string { return tt.env[k] }, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, stderr.String())
			}
			if tt.wantCode == 2 && !strings.Contains(stderr.String(), "--resume-context-file") {
				t.Errorf("stderr %q does not name --resume-context-file", stderr.String())
			}
		})
	}
}

// threadStub is a read token's view of one thread: it answers the ref it
// was asked for with a thread of that kind, and remembers the ref.
type threadStub struct {
	mu   sync.Mutex
	refs []resume.ThreadRef
}

func (r *threadStub) Thread(_ context.Context, ref resume.ThreadRef) (*resume.Thread, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs = append(r.refs, ref)
	return &resume.Thread{Kind: ref.Kind, Number: ref.Number, Title: "The build is red", Author: "alice",
		Comments: []resume.Comment{{ID: "IC_1", Author: "bob", Body: "Which runner?"}}}, nil
}

// A first run (no resume_context, so no kind) where the setup serves more
// than discussions reads its thread through read_thread as whichever kind
// the number names, asking GitHub only for the kinds --threads (or
// RECESS_THREADS) serves: the lead's token may read no other.
func TestMCPReadThread_first_run_reads_a_thread_of_the_kinds_served(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind state.Kind
		env  string
		args []string
	}{
		{name: "issue_with_recess_threads", kind: state.KindIssue, env: "RECESS_THREADS=issues"},
		{name: "pull_request_with_the_flag", kind: state.KindPullRequest, args: []string{"--threads", "discussions,pull-requests"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := recesstest.New(t, recesstest.Options{Store: "comment", Kind: tt.kind})
			n, _ := w.Open("alice")
			args := append([]string{"--verdict-file", filepath.Join(t.TempDir(), "v.json"), "--correlation-id", "c-1", "--discussion", strconv.Itoa(n),
				"--token", recesstest.Token, "--repo", recesstest.Repo, "--api-url", w.GH.URL(), "--graphql-url", w.GH.GraphQLURL()}, tt.args...)
			s := mcpSession(t, []string{tt.env}, args...)
			res := call(t, s, "read_thread", map[string]any{})
			var d discussionOutput
			structured(t, res, &d)
			if d.Kind != string(tt.kind) || d.Number != n || d.Title != "RFC" || d.Author != "alice" {
				t.Errorf("read_thread = %+v (%q), want %s #%d by alice", d, resultText(res), tt.kind, n)
			}
		})
	}
}

// read_thread reads the run's thread as the kind the resume_context names
// (a first run: as the engine addresses a number of no known kind), and
// read_discussion is the same tool under its first name.
func TestMCPReadThread_reads_the_kind_the_run_is_about(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rc   *resume.Context
		want resume.ThreadRef
		says string // the sentence's start
	}{
		{name: "first_run", want: resume.NumberRef("", 7), says: "Discussion #7"},
		{name: "resumed_on_an_issue", rc: &resume.Context{Kind: state.KindIssue, FiredBy: "elapsed"},
			want: resume.ThreadRef{Kind: state.KindIssue, Number: 7}, says: "Issue #7"},
		{name: "resumed_on_a_pull_request", rc: &resume.Context{Kind: state.KindPullRequest, FiredBy: "elapsed"},
			want: resume.ThreadRef{Kind: state.KindPullRequest, Number: 7}, says: "Pull request #7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stub := &threadStub{}
			srv := &mcpServer{verdictFile: filepath.Join(t.TempDir(), "v.json"), correlationID: "c-1", discussion: 7, rc: tt.rc, reader: stub}
			ct, st := mcp.NewInMemoryTransports()
			ctx := context.Background()
			ss, err := srv.server().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var outs [2]discussionOutput
			for i, tool := range []string{"read_thread", "read_discussion"} {
				res := call(t, cs, tool, map[string]any{})
				structured(t, res, &outs[i])
				if !strings.HasPrefix(resultText(res), tt.says) {
					t.Errorf("%s says %q, want it to start %q", tool, resultText(res), tt.says)
				}
			}
			if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
				t.Errorf("read_discussion differs from read_thread (-thread +discussion):\n%s", diff)
			}
			if diff := cmp.Diff([]resume.ThreadRef{tt.want, tt.want}, stub.refs); diff != "" || outs[0].Kind != string(tt.want.Kind) {
				t.Errorf("kind %q; refs read (-want +got):\n%s", outs[0].Kind, diff)
			}
		})
	}
}

// On an issue or a pull request a reply answers its reply_to as a new
// comment that opens with a quote line linking it (no reply goes under a
// comment there): the reply tool and the verdict's tools say so, checked
// or not; a discussion's words are as ever.
func TestMCPReply_says_where_it_goes_by_kind_of_thread(t *testing.T) {
	t.Parallel()
	const quoted = "as a new comment that opens with a quote line linking comment IC_1"
	tests := []struct {
		name   string
		kind   state.Kind // the resume_context's; "": a first run where several kinds are served
		reader discussionReader
		says   string // what reply's answer holds
		note   string // what its note holds ("" for none)
	}{
		{name: "issue", kind: state.KindIssue, reader: &threadStub{}, says: quoted},
		{name: "pull_request", kind: state.KindPullRequest, reader: &threadStub{}, says: quoted},
		{name: "issue_unchecked", kind: state.KindIssue, says: "not checked", note: "as a new comment that opens with a quote line linking that comment;"},
		{name: "discussion", kind: state.KindDiscussion, reader: &threadStub{}, says: "under comment IC_1"},
		{name: "discussion_unchecked", kind: state.KindDiscussion, says: "not checked", note: "by the same rule: in that comment's thread;"},
		{name: "first_run_of_unknown_kind_unchecked", says: "not checked",
			note: "in that comment's thread in a discussion, as a new comment that opens with a quote line linking that comment in an issue or pull request;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := &mcpServer{verdictFile: filepath.Join(t.TempDir(), "v.json"), correlationID: "c-1", discussion: 7,
				rc: &resume.Context{Kind: tt.kind, FiredBy: "elapsed"}, reader: tt.reader, numberKind: resume.AnyKind, limits: func() wait.TriggerLimits { return wait.TriggerLimits{} }}
			ct, st := mcp.NewInMemoryTransports()
			ctx := context.Background()
			ss, err := srv.server().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res := call(t, cs, "reply", map[string]any{"body": "Which runner image?", "reply_to": "IC_1"})
			var got replyOutput
			structured(t, res, &got)
			text := resultText(res)
			if !strings.Contains(text, tt.says) || strings.Contains(text, "under comment ,") || (tt.note == "") != (got.Note == "") || !strings.Contains(got.Note, tt.note) {
				t.Errorf("reply said %q, note %q; want %q, note holding %q", text, got.Note, tt.says, tt.note)
			}
			res = call(t, cs, "adjourn", map[string]any{"summary": "asked", "replies": []any{map[string]any{"body": "And the OS?", "reply_to": "IC_1"}}})
			if text := resultText(res); res.IsError || !strings.Contains(text, tt.says) {
				t.Errorf("adjourn said %q, want it to hold %q", text, tt.says)
			}
		})
	}
}
