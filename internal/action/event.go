package action

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// event is what recess needs from the webhook payload of the run's event.
type event struct {
	Name   string // GITHUB_EVENT_NAME
	Action string // payload "action" (created, edited, deleted, ...)
	// Kind and Number are the thread the event is about (Number 0: none;
	// a workflow_dispatch's discussion_number has no kind).
	Kind   state.Kind
	Number int
	// Deleted is a deleted comment's body and author: the only comment
	// fields read from the payload, as GitHub can no longer show it (the
	// engine asks GitHub whose any other comment is).
	Deleted *resume.DeletedComment
	Inputs  map[string]string // workflow_dispatch inputs
}

// maxPayload bounds the event payload read from GITHUB_EVENT_PATH.
const maxPayload = 25 << 20

// readEvent reads and checks the payload at path for the named event.
func readEvent(name, path string) (*event, error) {
	if path == "" {
		if name == "" {
			return &event{}, nil
		}
		return nil, &wait.FieldError{Field: "GITHUB_EVENT_PATH", Reason: "not set"}
	}
	st, err := os.Stat(path)
	if err == nil && st.Size() > maxPayload {
		return nil, &wait.FieldError{Field: "GITHUB_EVENT_PATH", Reason: fmt.Sprintf("payload of %d bytes is larger than %d", st.Size(), maxPayload)}
	}
	data, err := readBounded(path, maxPayload)
	if err != nil {
		return nil, &wait.FieldError{Field: "GITHUB_EVENT_PATH", Reason: err.Error()}
	}
	return decodeEvent(name, data)
}

// decodeEvent reads and checks the payload of the named event.
func decodeEvent(name string, data []byte) (*event, error) {
	ev := &event{Name: name}
	type thread struct {
		// Number is read here, so that every refusal names its field alike.
		Number jsontext.Value `json:"number"`
		// PullRequest is present (not null) in an issue_comment on a pull
		// request's conversation; an issues event is never about one.
		PullRequest jsontext.Value `json:"pull_request"`
	}
	var p struct {
		Action     *string `json:"action"`
		Discussion *thread `json:"discussion"`
		Issue      *thread `json:"issue"`
		// Comment must be an object; only a deleted comment's body and
		// author are read (event.Deleted).
		Comment *struct {
			Body jsontext.Value `json:"body"`
			User jsontext.Value `json:"user"`
		} `json:"comment"`
		Inputs map[string]jsontext.Value `json:"inputs"`
	}
	// GitHub's payload holds much recess does not read (unknown members
	// pass), and others' text, which is not recess's to refuse.
	var err error
	if err = wait.DecodeJSON(data, "event payload", &p, wait.JSONLimits{}, json.RejectUnknownMembers(false), jsontext.AllowInvalidUTF8(true)); err != nil {
		return nil, err
	}
	if p.Action != nil {
		ev.Action = *p.Action
	}
	if kind, member, opens, ok := workflows.ThreadEvent(name); ok {
		t, field := p.Issue, "event payload "+member+".number"
		if member == "discussion" {
			t = p.Discussion
		}
		if t == nil || len(t.Number) == 0 || t.Number.Kind() == 'n' {
			return nil, &wait.FieldError{Field: field, Reason: "missing"}
		}
		if ev.Number, err = strconv.Atoi(string(t.Number)); err != nil || ev.Number <= 0 {
			return nil, &wait.FieldError{Field: field, Reason: fmt.Sprintf("%s is not a thread number (a whole number from 1)", t.Number)}
		}
		ev.Kind = kind
		if name == "issue_comment" && len(t.PullRequest) > 0 && t.PullRequest.Kind() != 'n' {
			ev.Kind = state.KindPullRequest
		}
		if ev.Action == "" {
			return nil, &wait.FieldError{Field: "event payload action", Reason: "missing"}
		}
		if opens == "" && p.Comment == nil {
			return nil, &wait.FieldError{Field: "event payload comment", Reason: "missing"}
		}
		if opens == "" && ev.Action == "deleted" {
			if ev.Deleted, err = deletedComment(p.Comment.Body, p.Comment.User); err != nil {
				return nil, err
			}
		}
	}
	if name == "workflow_dispatch" {
		ev.Inputs = map[string]string{}
		for k, raw := range p.Inputs {
			s, ok := wait.StringValue(raw)
			if !ok {
				// Booleans and numbers arrive unquoted; keep their text.
				s = string(raw)
			}
			ev.Inputs[k] = s
		}
		if v := ev.Inputs["discussion_number"]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, &wait.FieldError{Field: "event payload inputs.discussion_number", Reason: fmt.Sprintf("%q is not a discussion number", v)}
			}
			ev.Number = n
		}
	}
	return ev, nil
}

// deletedComment reads a deleted comment's body and its author's login in
// REST form (an app's with its "[bot]" suffix).
func deletedComment(body, user jsontext.Value) (*resume.DeletedComment, error) {
	var d resume.DeletedComment
	var ok bool
	if d.Body, ok = wait.StringValue(body); !ok {
		return nil, &wait.FieldError{Field: "event payload comment.body", Reason: "missing or not a string"}
	}
	var u map[string]jsontext.Value
	if user.Kind() != '{' || json.Unmarshal(user, &u, jsontext.AllowInvalidUTF8(true)) != nil {
		return nil, &wait.FieldError{Field: "event payload comment.user.login", Reason: "missing: comment.user is not an object"}
	}
	if d.Author, ok = wait.StringValue(u["login"]); !ok {
		return nil, &wait.FieldError{Field: "event payload comment.user.login", Reason: "missing or not a string"}
	}
	if d.Author == "" {
		return nil, &wait.FieldError{Field: "event payload comment.user.login", Reason: "empty"}
	}
	// An app's login carries "[bot]" in webhooks; the type says so too, and
	// the restore compares the whole login (wait.SameAccount).
	if t, ok := u["type"]; ok {
		kind, ok := wait.StringValue(t)
		if !ok {
			return nil, &wait.FieldError{Field: "event payload comment.user.type", Reason: "not a string"}
		}
		d.Author = wait.RESTLogin(d.Author, kind == "Bot")
	}
	return &d, nil
}

// command picks what to do for an event when the command input is "auto".
func (ev *event) command() (string, error) {
	if _, _, opens, ok := workflows.ThreadEvent(ev.Name); ok {
		if ev.Action == opens {
			return cmdIntake, nil
		}
		return cmdInbound, nil
	}
	switch ev.Name {
	case "schedule":
		return cmdSweep, nil
	case "workflow_dispatch":
		if ev.Number != 0 && ev.Inputs["correlation_id"] != "" {
			// The agent workflow's own event: its first step claims.
			return CommandClaim, nil
		}
		return cmdSweep, nil
	case "":
		return "", &wait.FieldError{Field: "GITHUB_EVENT_NAME", Reason: "not set; set the command input"}
	}
	return "", &wait.FieldError{Field: "GITHUB_EVENT_NAME", Reason: fmt.Sprintf("recess does not handle %q events with command auto; set the command input", ev.Name)}
}

// unserved says why recess leaves the event alone: it is about a kind of
// thread that served (input threads) does not name, and such an event is
// a no-op (SPEC "Threads": exit 0, no request). "" when recess serves it,
// or the event is about no kind of thread.
func (ev *event) unserved(served []state.Kind) string {
	if ev == nil || ev.Kind == "" || slices.Contains(served, ev.Kind) {
		return ""
	}
	names := make([]string, len(served))
	for i, k := range served {
		names[i] = workflows.ThreadsValue(k)
	}
	list := strings.Join(names, ", ")
	return fmt.Sprintf("only %s are served here (threads: %s); %s (%s) on %s #%d is left alone",
		list, list, ev.Name, ev.Action, resume.Noun(ev.Kind), ev.Number)
}
