package github

import (
	"errors"
	"fmt"

	"github.com/recess-action/recess/state"
)

// What both state stores (CommentStore, BranchStore) share.

// stamped is rec with UpdatedAt set to now when the caller left it zero:
// like every store, the engine's clock wins.
func (c *Client) stamped(rec *state.Record) state.Record {
	out := *rec
	if out.UpdatedAt.IsZero() {
		out.UpdatedAt = c.tr.clock.Now().UTC()
	}
	return out
}

// summaryOf is what a sweep needs of a pending record, as both stores
// report it.
func summaryOf(rec *state.Record) state.Summary {
	return state.Summary{Discussion: rec.Discussion, Kind: rec.Kind, NextDue: rec.NextDue(), Known: true, Checked: rec.Checked, Blocked: rec.Blocked(), ThreadRoots: rec.ThreadRoots()}
}

// judgeChange says why a stored record that is no longer at the version
// the caller read (rev; now cur, "" for none) may not be overwritten:
// corrupt wins over conflict (the engine must stop, not retry), then gone,
// appeared or changed, each wrapping state.ErrConflict.
func judgeChange(what, rev, cur string, decode func() error) error {
	if cur != "" {
		if err := decode(); errors.Is(err, state.ErrCorrupt) {
			return err
		}
	}
	switch {
	case cur == "":
		return fmt.Errorf("%s was removed since it was read: %w", what, state.ErrConflict)
	case rev == "":
		return fmt.Errorf("%s already exists: %w", what, state.ErrConflict)
	}
	return fmt.Errorf("%s changed since it was read: %w", what, state.ErrConflict)
}
