package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// Dry-run wrappers: every read goes to GitHub, every write is only
// described. The engine runs unchanged, so what it reports is what a real
// run would do at that moment.

type dryLog struct {
	clock resume.Clock
	lines []string
	seq   int
}

func (l *dryLog) add(format string, args ...any) {
	l.lines = append(l.lines, "would "+fmt.Sprintf(format, args...))
}

type dryStore struct {
	resume.Store
	log *dryLog
}

func (s dryStore) Save(_ context.Context, rec *state.Record) error {
	s.log.add("save the record of discussion %d (%s)", rec.Discussion, rec.Status)
	s.log.seq++
	rec.Rev = "dry-run-" + strconv.Itoa(s.log.seq)
	return nil
}

type dryDiscussions struct {
	resume.Discussions
	log *dryLog
}

func (d dryDiscussions) Reply(_ context.Context, discussionID, replyTo, body string) (*resume.Comment, error) {
	where := "a top-level comment"
	if replyTo != "" {
		where = "a reply to " + replyTo
	}
	d.log.add("post %s on %s: %q", where, discussionID, firstLine(body))
	d.log.seq++
	id := "dry-run-comment-" + strconv.Itoa(d.log.seq)
	return &resume.Comment{ID: id, ParentID: replyTo, Body: body, CreatedAt: d.log.clock.Now().UTC(), Mine: true}, nil
}

func (d dryDiscussions) React(_ context.Context, id string, r resume.Reaction) error {
	d.log.add("react %s on %s", r, id)
	return nil
}

func (d dryDiscussions) Unreact(_ context.Context, id string, r resume.Reaction) error {
	d.log.add("remove the %s reaction from %s", r, id)
	return nil
}

func (d dryDiscussions) Label(_ context.Context, id, name string) error {
	d.log.add("add the label %s to %s", name, id)
	return nil
}

func (d dryDiscussions) Unlabel(_ context.Context, id, name string) error {
	d.log.add("remove the label %s from %s", name, id)
	return nil
}

type dryDispatcher struct {
	resume.Dispatcher
	log *dryLog
}

func (d dryDispatcher) Dispatch(_ context.Context, req resume.DispatchRequest) (int64, error) {
	d.log.add("dispatch the agent workflow for discussion %d (correlation id %s, resume_context %d bytes)", req.Discussion, req.CorrelationID, len(req.ResumeContext))
	return 0, nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// Activity forwards the sweep's batched probe (a read) when the wrapped
// adapter has one, so a dry-run sweep costs what a real one would.
func (d dryDiscussions) Activity(ctx context.Context, numbers []int) (map[int]time.Time, error) {
	p, ok := d.Discussions.(resume.ActivityProber)
	if !ok {
		return nil, errors.New("the discussions adapter has no activity probe")
	}
	return p.Activity(ctx, numbers)
}
