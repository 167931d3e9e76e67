package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// A run for a discussion GitHub does not know (a wrong GITHUB_REPOSITORY,
// as act sets by default; a discussion deleted meanwhile) changes nothing,
// which is right, and must say so: the engine treats a discussion that is
// gone as nothing to do. missingWatch sees the event's discussion reads
// that GitHub answered "not found" on the engine's ports, so the run can
// report it in its summary and as an annotation.
type missingWatch struct {
	mu    sync.Mutex
	first error
}

func (w *missingWatch) see(err error) {
	if !errors.Is(err, resume.ErrNotFound) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil {
		w.first = err
	}
}

func (w *missingWatch) seen() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// watch puts the watch on the engine's Store and Discussions ports. A store
// that reads the discussion itself (resume.DiscussionStore) keeps that
// capability.
func (w *missingWatch) watch(e *resume.Engine) {
	e.Discussions = watchedDiscussions{Discussions: e.Discussions, w: w}
	s := watchedStore{Store: e.Store, w: w}
	if ds, ok := e.Store.(resume.DiscussionStore); ok {
		e.Store = watchedDiscussionStore{watchedStore: s, ds: ds}
		return
	}
	e.Store = s
}

type watchedDiscussions struct {
	resume.Discussions
	w *missingWatch
}

func (d watchedDiscussions) Discussion(ctx context.Context, number int) (*resume.Discussion, error) {
	disc, err := d.Discussions.Discussion(ctx, number)
	d.w.see(err)
	return disc, err
}

type watchedStore struct {
	resume.Store
	w *missingWatch
}

// Load sees "not found" only when it means the discussion (a store says
// state.ErrNotFound alone for a discussion without a record).
func (s watchedStore) Load(ctx context.Context, number int) (*state.Record, error) {
	rec, err := s.Store.Load(ctx, number)
	s.w.see(err)
	return rec, err
}

type watchedDiscussionStore struct {
	watchedStore
	ds resume.DiscussionStore
}

func (s watchedDiscussionStore) LoadWith(ctx context.Context, number int) (*state.Record, *resume.Discussion, error) {
	rec, d, err := s.ds.LoadWith(ctx, number)
	if d == nil {
		s.w.see(err)
	}
	return rec, d, err
}

// missingMessage says what was not found and what to check.
func missingMessage(repo string, number int, err error) string {
	msg := fmt.Sprintf("discussion #%d was not found in %s (GITHUB_REPOSITORY), so this run did nothing (%v).", number, repo, err)
	if repo == "nektos/act" {
		msg += " act sets GITHUB_REPOSITORY=nektos/act: pass --env GITHUB_REPOSITORY=OWNER/REPO."
	} else {
		msg += " Check that the discussion exists and that the token can read it."
	}
	return msg
}
