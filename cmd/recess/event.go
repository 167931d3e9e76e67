package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/recess-action/recess/resume"
)

// event is what recess needs from the webhook payload of the run's event.
type event struct {
	Name   string // GITHUB_EVENT_NAME
	Action string // payload "action" (created, edited, deleted, ...)
	// Discussion is the discussion number the event is about (0: none).
	// Whose comment an event is about is not read from the payload: the
	// engine asks GitHub (viewerDidAuthor). The one exception is a deleted
	// comment, which GitHub can no longer show: Deleted.
	Discussion int
	// Deleted is the comment a discussion_comment "deleted" event is
	// about: its body and its author's login, the only fields read from
	// the payload's comment. The store restores its record from them only
	// when the author's login is recess's own (resume.Restorer).
	Deleted *resume.DeletedComment
	// Inputs are workflow_dispatch inputs.
	Inputs map[string]string
}

// inputError is refused outside input; Field names it.
type inputError struct {
	Field  string
	Reason string
}

func (e *inputError) Error() string { return e.Field + ": " + e.Reason }

// maxPayload bounds the event payload read from GITHUB_EVENT_PATH.
const maxPayload = 25 << 20

// readEvent reads and checks the payload at path for the named event.
func readEvent(name, path string) (*event, error) {
	if path == "" {
		if name == "" {
			return &event{}, nil
		}
		return nil, &inputError{Field: "GITHUB_EVENT_PATH", Reason: "not set"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{Field: "GITHUB_EVENT_PATH", Reason: err.Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &inputError{Field: "GITHUB_EVENT_PATH", Reason: err.Error()}
	}
	if st.Size() > maxPayload {
		return nil, &inputError{Field: "GITHUB_EVENT_PATH", Reason: fmt.Sprintf("payload of %d bytes is larger than %d", st.Size(), maxPayload)}
	}
	return decodeEvent(name, io.LimitReader(f, maxPayload))
}

// decodeEvent reads and checks the payload of the named event.
func decodeEvent(name string, payload io.Reader) (*event, error) {
	ev := &event{Name: name}
	var p struct {
		Action     *string `json:"action"`
		Discussion *struct {
			Number *int `json:"number"`
		} `json:"discussion"`
		// Comment must be an object; only a deleted comment's body and
		// author are read (event.Deleted).
		Comment *struct {
			Body json.RawMessage `json:"body"`
			User json.RawMessage `json:"user"`
		} `json:"comment"`
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.NewDecoder(payload).Decode(&p); err != nil {
		return nil, &inputError{Field: "event payload", Reason: "not a JSON object: " + err.Error()}
	}
	if p.Action != nil {
		ev.Action = *p.Action
	}
	switch name {
	case "discussion", "discussion_comment":
		if p.Discussion == nil || p.Discussion.Number == nil {
			return nil, &inputError{Field: "event payload discussion.number", Reason: "missing"}
		}
		if *p.Discussion.Number <= 0 {
			return nil, &inputError{Field: "event payload discussion.number", Reason: fmt.Sprintf("%d is not a discussion number", *p.Discussion.Number)}
		}
		ev.Discussion = *p.Discussion.Number
		if ev.Action == "" {
			return nil, &inputError{Field: "event payload action", Reason: "missing"}
		}
		if name == "discussion_comment" && p.Comment == nil {
			return nil, &inputError{Field: "event payload comment", Reason: "missing"}
		}
		if name == "discussion_comment" && ev.Action == "deleted" {
			var err error
			if ev.Deleted, err = deletedComment(p.Comment.Body, p.Comment.User); err != nil {
				return nil, err
			}
		}
	case "workflow_dispatch":
		ev.Inputs = map[string]string{}
		for k, raw := range p.Inputs {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				// Booleans and numbers arrive unquoted; keep their text.
				s = string(raw)
			}
			ev.Inputs[k] = s
		}
		if v := ev.Inputs["discussion_number"]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, &inputError{Field: "event payload inputs.discussion_number", Reason: fmt.Sprintf("%q is not a discussion number", v)}
			}
			ev.Discussion = n
		}
	}
	return ev, nil
}

// deletedComment reads a deleted comment's body and author's login.
func deletedComment(body, user json.RawMessage) (*resume.DeletedComment, error) {
	var d resume.DeletedComment
	if err := json.Unmarshal(body, &d.Body); err != nil || len(body) == 0 || string(body) == "null" {
		return nil, &inputError{Field: "event payload comment.body", Reason: "missing or not a string"}
	}
	var u struct {
		Login *string `json:"login"`
	}
	if err := json.Unmarshal(user, &u); err != nil || len(user) == 0 || u.Login == nil {
		return nil, &inputError{Field: "event payload comment.user.login", Reason: "missing or not a string"}
	}
	if d.Author = *u.Login; d.Author == "" {
		return nil, &inputError{Field: "event payload comment.user.login", Reason: "empty"}
	}
	return &d, nil
}

// command picks what to do for an event when the command input is "auto".
func (ev *event) command() (string, error) {
	switch ev.Name {
	case "discussion":
		if ev.Action == "created" {
			return cmdIntake, nil
		}
		return cmdInbound, nil
	case "discussion_comment":
		return cmdInbound, nil
	case "schedule":
		return cmdSweep, nil
	case "workflow_dispatch":
		if ev.Discussion != 0 && ev.Inputs["correlation_id"] != "" {
			// The agent workflow's own event: its first step claims.
			return cmdClaim, nil
		}
		return cmdSweep, nil
	case "":
		return "", &inputError{Field: "GITHUB_EVENT_NAME", Reason: "not set; set the command input"}
	}
	return "", &inputError{Field: "GITHUB_EVENT_NAME", Reason: fmt.Sprintf("recess does not handle %q events with command auto; set the command input", ev.Name)}
}
