package action

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// A deleted comment's event gives its body and its author's login, read
// from GitHub's own payload shape; every other event reads neither.
func TestDecodeEvent_reads_a_deleted_comment(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile("../../testdata/github/webhooks/discussion_comment.deleted.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		payload   string
		want      *resume.DeletedComment
		wantField string
	}{
		{name: "github_payload", payload: string(real), want: &resume.DeletedComment{Body: "ANSWER", Author: "Codertocat"}},
		{name: "created_reads_nothing", payload: strings.Replace(string(real), `"action": "deleted"`, `"action": "created"`, 1)},
		{name: "created_ignores_a_body_of_any_shape", payload: `{"action":"created","discussion":{"number":1},"comment":{"body":7,"user":null}}`},
		{name: "empty_body", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"","user":{"login":"bob"}}}`, want: &resume.DeletedComment{Author: "bob"}},
		{name: "body_null", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":null,"user":{"login":"bob"}}}`, wantField: "event payload comment.body"},
		{name: "body_a_number", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":7,"user":{"login":"bob"}}}`, wantField: "event payload comment.body"},
		{name: "user_missing", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x"}}`, wantField: "event payload comment.user.login"},
		{name: "login_not_text", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":["bob"]}}}`, wantField: "event payload comment.user.login"},
		{name: "app_login_as_webhooks_give_it", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":"foo[bot]","type":"Bot"}}}`, want: &resume.DeletedComment{Body: "x", Author: "foo[bot]"}},
		{name: "app_type_without_the_suffix", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":"foo","type":"Bot"}}}`, want: &resume.DeletedComment{Body: "x", Author: "foo[bot]"}},
		{name: "person_named_like_the_app", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":"foo","type":"User"}}}`, want: &resume.DeletedComment{Body: "x", Author: "foo"}},
		{name: "type_not_text", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":"foo","type":1}}}`, wantField: "event payload comment.user.type"},
		{name: "login_empty", payload: `{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":""}}}`, wantField: "event payload comment.user.login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, err := decodeEvent("discussion_comment", []byte(tt.payload))
			var ie *wait.FieldError
			switch {
			case tt.wantField != "":
				if !errors.As(err, &ie) || ie.Field != tt.wantField {
					t.Fatalf("decodeEvent = %v, want a refusal of %s", err, tt.wantField)
				}
			case err != nil:
				t.Fatalf("decodeEvent = %v", err)
			default:
				if diff := cmp.Diff(tt.want, ev.Deleted); diff != "" {
					t.Errorf("Deleted (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// FuzzDecodeEvent_deleted: a payload is either refused with a field named,
// or read; a deleted comment is read only from a deleted event, with its
// author named.
func FuzzDecodeEvent_deleted(f *testing.F) {
	if real, err := os.ReadFile("../../testdata/github/webhooks/discussion_comment.deleted.json"); err == nil {
		f.Add(string(real))
	}
	f.Add(`{"action":"deleted","discussion":{"number":1},"comment":{"body":"x","user":{"login":"bob"}}}`)
	f.Add(`{"action":"deleted","discussion":{"number":1},"comment":{"body":null,"user":{"login":""}}}`)
	f.Add(`{"action":"edited","discussion":{"number":1},"comment":{}}`)
	f.Fuzz(func(t *testing.T, payload string) {
		ev, err := decodeEvent("discussion_comment", []byte(payload))
		if err != nil {
			var ie *wait.FieldError
			if !errors.As(err, &ie) || ie.Field == "" {
				t.Fatalf("decodeEvent = %v, not a refusal naming a field", err)
			}
			return
		}
		if (ev.Deleted != nil) != (ev.Action == "deleted") {
			t.Fatalf("action %q read deleted comment %+v", ev.Action, ev.Deleted)
		}
		if ev.Deleted != nil && ev.Deleted.Author == "" {
			t.Fatalf("a deleted comment without its author: %+v", ev.Deleted)
		}
	})
}
