package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// The scripted lead runs as it does in the agent workflow: the built
// recess-lab's mcp-script, speaking MCP over stdio to the built recess's mcp.
var (
	binOnce           sync.Once
	labBin, recessBin string
	binErr            error
	binDir            string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binaries builds recess-lab and recess once for the package's tests.
func binaries(t *testing.T) (lab, recess string) {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "recess-lab-test-"); binErr != nil {
			return
		}
		labBin, recessBin = filepath.Join(binDir, "recess-lab"), filepath.Join(binDir, "recess")
		for bin, pkg := range map[string]string{labBin: ".", recessBin: "../recess"} {
			if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
				binErr = errors.New("go build " + pkg + ": " + err.Error() + "\n" + string(out))
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return labBin, recessBin
}

const mcpNow = "2026-11-21T10:00:00Z"

// runScript runs the built recess-lab's mcp-script against the built recess
// with env (nothing inherited) and returns its exit status, stdout and
// stderr.
func runScript(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	lab, recess := binaries(t)
	cmd := exec.Command(lab, append([]string{"mcp-script", "--recess", recess}, args...)...)
	cmd.Env = append([]string{"RECESS_NOW=" + mcpNow}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func scriptEnv(verdict, rc string) []string {
	return []string{
		"RECESS_VERDICT_FILE=" + verdict,
		"RECESS_CORRELATION_ID=c-script",
		"RECESS_DISCUSSION=7",
		"RECESS_RESUME_CONTEXT=" + rc,
	}
}

func TestMCPScriptRecessesOnAFirstRun(t *testing.T) {
	t.Parallel()
	verdict := filepath.Join(t.TempDir(), "verdict.json")
	code, out, errs := runScript(t, append(scriptEnv(verdict, ""), "RECESS_PROMPT="), "--question", "Which backend?")
	if code != 0 {
		t.Fatalf("mcp-script = %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	for _, want := range []string{"recess mcp offers: ", "adjourn", "== call reply", "== call recess", "Recess recorded"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(verdict)
	if err != nil {
		t.Fatal(err)
	}
	v, err := resume.ParseVerdict(data, wait.TriggerLimits{})
	if err != nil {
		t.Fatalf("the verdict file does not parse as command verdict would: %v\n%s", err, data)
	}
	if v.Verdict != resume.VerdictRecessed || v.CorrelationID != "c-script" || v.DiscussionNumber != 7 {
		t.Errorf("verdict = %s %s #%d, want recessed c-script #7", v.Verdict, v.CorrelationID, v.DiscussionNumber)
	}
	if len(v.Replies) != 1 || v.Replies[0].Body != "Which backend?" {
		t.Errorf("replies = %+v, want the question", v.Replies)
	}
	var trig map[string]any
	if err := json.Unmarshal(v.TriggerJSON, &trig); err != nil || trig["kind"] != "any" {
		t.Errorf("trigger = %s, want the default any(missing_input, elapsed)", v.TriggerJSON)
	}
}

func TestMCPScriptAdjournsQuotingTheComments(t *testing.T) {
	t.Parallel()
	rc := `{"correlation_id":"c-first","fired_by":"missing_input","fired_at":"2026-11-21T10:00:00Z",
		"trigger":{"kind":"missing_input","replies":2},"recess_count":1,"truncated":false,
		"history_since":[
		 {"id":"DC_1","author":"bob","role":"user","body":"Postgres,\nplease.","created_at":"2026-11-21T09:00:00Z","url":"https://example.com/1","reply_to":"DC_q"},
		 {"id":"DC_2","author":"carol","role":"maintainer","body":"SQLite is enough.","created_at":"2026-11-21T09:30:00Z","url":"https://example.com/2"}]}`
	verdict := filepath.Join(t.TempDir(), "verdict.json")
	code, out, errs := runScript(t, append(scriptEnv(verdict, rc), "RECESS_PROMPT=# You are resumed"))
	if code != 0 {
		t.Fatalf("mcp-script = %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if !strings.Contains(out, "# You are resumed") || !strings.Contains(out, "== call adjourn") {
		t.Errorf("stdout lacks the prompt or the adjourn call:\n%s", out)
	}
	data, err := os.ReadFile(verdict)
	if err != nil {
		t.Fatal(err)
	}
	v, err := resume.ParseVerdict(data, wait.TriggerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Verdict != resume.VerdictAdjourned || len(v.Replies) != 1 {
		t.Fatalf("verdict = %s with %d replies, want adjourned with one", v.Verdict, len(v.Replies))
	}
	body := v.Replies[0].Body
	for _, want := range []string{"(missing_input)", "> **@bob**: Postgres, please.", "> **@carol**: SQLite is enough."} {
		if !strings.Contains(body, want) {
			t.Errorf("answer lacks %q:\n%s", want, body)
		}
	}
}

func TestMCPScriptFailsOnARefusalAndWritesNothing(t *testing.T) {
	t.Parallel()
	verdict := filepath.Join(t.TempDir(), "verdict.json")
	code, out, errs := runScript(t, scriptEnv(verdict, ""), "--trigger", `{"elapsed":"P1H"}`)
	if code != 1 || !strings.Contains(errs, "tool recess: refused: elapsed") {
		t.Errorf("mcp-script with a bad trigger = %d, stderr %q; want 1 and the server's refusal naming elapsed\nstdout: %s", code, errs, out)
	}
	if _, err := os.Stat(verdict); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused recess left a verdict file (stat: %v)", err)
	}
	if code, _, _ := runScript(t, scriptEnv(verdict, ""), "--trigger", "{"); code != 2 {
		t.Errorf("mcp-script --trigger '{' = %d, want 2", code)
	}
	if code, _, errs := runScript(t, scriptEnv("", "")); code != 1 || !strings.Contains(errs, "--verdict-file") {
		t.Errorf("mcp-script without a verdict file = %d (%q), want 1 and the server naming --verdict-file", code, errs)
	}
}

// The scripted lead in place of a model step hands recess mcp the flags the
// model's MCP configuration gives it, after --.
func TestMCPScriptPassesFlagsToRecessMCP(t *testing.T) {
	t.Parallel()
	verdict := filepath.Join(t.TempDir(), "verdict.json")
	code, out, errs := runScript(t, []string{"RECESS_RESUME_CONTEXT="},
		"--", "--verdict-file", verdict, "--correlation-id", "c-flags", "--discussion", "9")
	if code != 0 {
		t.Fatalf("mcp-script = %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	v, err := resume.ParseVerdict(readFile(t, verdict), wait.TriggerLimits{})
	if err != nil {
		t.Fatalf("the verdict file does not parse: %v", err)
	}
	if v.Verdict != resume.VerdictRecessed || v.CorrelationID != "c-flags" || v.DiscussionNumber != 9 {
		t.Errorf("verdict = %s %s #%d, want recessed c-flags #9", v.Verdict, v.CorrelationID, v.DiscussionNumber)
	}
}

func TestMCPScriptRefusesAStrayArgument(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	for _, args := range [][]string{{"stray"}, {"--question", "q", "stray", "--", "--discussion", "1"}} {
		errb.Reset()
		code := runMCPScript(t.Context(), args, noKeys, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), `unexpected argument "stray" (flags for recess mcp go after --)`) {
			t.Errorf("mcp-script %q = %d, stderr %q; want 2 and the refusal", args, code, errb.String())
		}
	}
}

// In place of a model's step, the scripted lead starts the recess mcp
// server the step's inputs configure (here Gemini CLI's settings, with the
// binary's path), with the flags they give it, and nothing else.
func TestMCPScriptFromTheStepsInputs(t *testing.T) {
	t.Parallel()
	_, recess := binaries(t)
	verdict := filepath.Join(t.TempDir(), "verdict.json")
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"recess": map[string]any{
		"command": recess, "trust": true,
		"args": []string{"mcp", "--verdict-file", verdict, "--correlation-id", "c-step", "--discussion", "9"}}}})
	env := []string{
		stepInputsVar + "=gemini_api_key prompt settings",
		stepInputVar("gemini_api_key") + "=",
		stepInputVar("prompt") + "=Lead the answer to discussion #9.",
		stepInputVar("settings") + "=" + string(settings),
		"RECESS_RESUME_CONTEXT=",
	}
	code, out, errs := runScript(t, env, "--from-step")
	if code != 0 {
		t.Fatalf("mcp-script --from-step = %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if want := "== the step's recess mcp server: " + recess + " mcp --verdict-file --correlation-id --discussion\n"; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	data, err := os.ReadFile(verdict)
	if err != nil {
		t.Fatal(err)
	}
	v, err := resume.ParseVerdict(data, wait.TriggerLimits{})
	if err != nil {
		t.Fatalf("the verdict file does not parse: %v\n%s", err, data)
	}
	if v.Verdict != resume.VerdictRecessed || v.CorrelationID != "c-step" || v.DiscussionNumber != 9 {
		t.Errorf("verdict = %s %s #%d, want recessed c-step #9", v.Verdict, v.CorrelationID, v.DiscussionNumber)
	}

	code, _, errs = runScript(t, []string{stepInputsVar + "=prompt", stepInputVar("prompt") + "=hello"}, "--from-step")
	if want := "no MCP server running `recess mcp` in the inputs of the step (prompt)"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("mcp-script --from-step with no server = %d, stderr %q; want 1 and %q", code, errs, want)
	}
}
