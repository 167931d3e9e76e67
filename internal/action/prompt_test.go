package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

const sampleContext = `{"correlation_id":"c-original","fired_by":"missing_input","fired_at":"2026-11-21T10:00:00Z",
 "trigger":{"kind":"missing_input","replies":2},"recess_count":1,"truncated":false,
 "history_since":[{"id":"DC_1","author":"alice","role":"user","body":"Postgres.","created_at":"2026-11-21T09:12:00Z",
   "url":"https://github.com/octo/rfcs/discussions/12#discussioncomment-1","reply_to":"DC_q"}]}`

func TestPromptCommand(t *testing.T) {
	t.Parallel()
	var rc resume.Context
	if err := json.Unmarshal([]byte(sampleContext), &rc); err != nil {
		t.Fatal(err)
	}
	want := resume.Prompt(rc, nil)
	file := filepath.Join(t.TempDir(), "rc.json")
	if err := os.WriteFile(file, []byte(sampleContext), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"inline", []string{"--resume-context", sampleContext}, ""},
		{"file", []string{"--file", file}, ""},
		{"stdin", nil, sampleContext},
		{"stdin_dash", []string{"--file", "-"}, sampleContext},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := Run(context.Background(), append([]string{"prompt"}, tt.args...), func(string) string { return "" }, strings.NewReader(tt.stdin), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if diff := cmp.Diff(want, stdout.String()); diff != "" {
				t.Errorf("recess prompt %v (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestPromptCommandRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"both_sources", []string{"--resume-context", sampleContext, "--file", "x"}, "give one"},
		{"missing_file", []string{"--file", filepath.Join(t.TempDir(), "none.json")}, "none.json"},
		{"empty", []string{"--resume-context", " "}, "resume_context: empty"},
		{"not_object", []string{"--resume-context", `["x"]`}, "resume_context: not a JSON object"},
		{"unknown_field", []string{"--resume-context", `{"fired_by":"elapsed","fired":"yes"}`}, "resume_context.fired: unknown field"},
		{"no_fired_by", []string{"--resume-context", `{"correlation_id":"c-1"}`}, "resume_context.fired_by: missing"},
		{"bad_type", []string{"--resume-context", `{"fired_by":"elapsed","recess_count":"1"}`}, "resume_context.recess_count: must be a number, not a string"},
		{"bad_entry_type", []string{"--resume-context", `{"fired_by":"elapsed","history_since":[{"id":"DC_1","author":7}]}`}, "resume_context.history_since[0].author: must be a string, not a number"},
		{"bad_time", []string{"--resume-context", `{"fired_by":"elapsed","fired_at":"noon"}`}, "RFC 3339"},
		{"entry_without_id", []string{"--resume-context", `{"fired_by":"elapsed","history_since":[{"author":"a"}]}`}, "resume_context.history_since[0].id: missing"},
		{"bad_trigger", []string{"--resume-context", `{"fired_by":"elapsed","trigger":{"kind":"elapsed","elapsed":"soon"}}`}, "resume_context.trigger.elapsed"},
		{"trailing", []string{"--resume-context", `{"fired_by":"elapsed"} {}`}, "trailing data"},
		{"unknown_kind", []string{"--resume-context", `{"fired_by":"elapsed","kind":"gist"}`}, `resume_context.kind: "gist" is not a kind of thread`},
		{"negative_omitted", []string{"--resume-context", `{"fired_by":"elapsed","omitted":-1}`}, "resume_context.omitted: negative"},
		{"too_long", []string{"--resume-context", `{"fired_by":"elapsed","correlation_id":"` + strings.Repeat("x", maxResumeContext) + `"}`}, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), append([]string{"prompt"}, tt.args...), func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

// FuzzDecodeResumeContext: the decoder never panics, refuses with a named
// field, and what it accepts renders and survives a round trip unchanged.
func FuzzDecodeResumeContext(f *testing.F) {
	f.Add([]byte(sampleContext))
	f.Add([]byte(`{"fired_by":"intake","fired_at":"2026-11-21T10:00:00Z","recess_count":0,"truncated":false,"history_since":[]}`))
	f.Add([]byte(`{"fired_by":"expired","truncated":true,"omitted":3,"trigger":{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"}],"expires":"P2D","on_expire":"resume"},"history_since":[{"id":"DC_1","body":"… [truncated; full text at the url]","reply_to":"DC_1"}]}`))
	f.Add([]byte(`{"fired_by":"retry","trigger":null,"history_since":null}`))
	f.Add([]byte(`{"fired_by":"manual","history_since":[{"id":"x","created_at":"2026-13-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"fired_by":"elapsed","FIRED_BY":"x"}`))
	f.Add([]byte("{\"fired_by\":\"\\ud800\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rc, err := DecodeResumeContext(data)
		if err != nil {
			var ie *wait.FieldError
			if !errors.As(err, &ie) || !strings.HasPrefix(ie.Field, "resume_context") {
				t.Fatalf("refusal %v does not name a resume_context field", err)
			}
			return
		}
		out := resume.Prompt(*rc, nil)
		if !strings.Contains(out, "## What to do now") {
			t.Fatalf("prompt without its ending:\n%s", out)
		}
		again, err := json.Marshal(rc)
		if err != nil {
			return // a value encoding/json cannot write back (a year past 9999)
		}
		rc2, err := DecodeResumeContext(again)
		if err != nil {
			t.Fatalf("re-encoded context refused: %v\n%s", err, again)
		}
		if out2 := resume.Prompt(*rc2, nil); out2 != out {
			t.Fatalf("prompt changed over a round trip:\n%s\n---\n%s", out, out2)
		}
	})
}

// recess prompt quotes a body whose lines end in CR, NEL, LS, PS, VT or FF
// line by line: each of its lines is a quoted line of its own.
func TestPromptCommandQuotesEveryLineBreakForm(t *testing.T) {
	t.Parallel()
	body := "one\rtwo\u0085three\u2028four\u2029five\vsix\fseven\r\neight"
	rc := strings.Replace(sampleContext, `"body":"Postgres."`, `"body":`+jsonString(body), 1)
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"prompt", "--resume-context", rc}, func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var quoted []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if q, ok := strings.CutPrefix(l, "> "); ok {
			quoted = append(quoted, q)
		}
	}
	want := []string{"one", "two", "three", "four", "five", "six", "seven", "eight"}
	if diff := cmp.Diff(want, quoted); diff != "" {
		t.Errorf("quoted lines (-want +got):\n%s\n%s", diff, stdout.String())
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
