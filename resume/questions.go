package resume

import (
	"slices"

	"github.com/recess-action/recess/state"
)

// Questions are the replies recess posted for the verdict that opened the
// recess correlationID — what the agent asked — in the order of that
// verdict, ready for Prompt. Only recess's own comments count (a marker
// copied into someone else's comment is ignored), and the hidden marker is
// left out of the body.
func Questions(d *Discussion, correlationID string) []Question {
	type indexed struct {
		i int
		q Question
	}
	var found []indexed
	for _, c := range d.Comments {
		if !c.Mine || c.Deleted {
			continue
		}
		id, i, ok := state.ParseReplyMarker(c.Body)
		if !ok || id != correlationID {
			continue
		}
		found = append(found, indexed{i, Question{ID: c.ID, Thread: c.Thread(), Body: state.Visible(c.Body), URL: c.URL}})
	}
	slices.SortStableFunc(found, func(a, b indexed) int { return a.i - b.i })
	out := make([]Question, 0, len(found))
	for _, f := range found {
		out = append(out, f.q)
	}
	return out
}

// Thread is the top-level comment c sits in: its parent, or c itself. An
// answer under c names it as reply_to.
func (c Comment) Thread() string {
	if c.ParentID != "" {
		return c.ParentID
	}
	return c.ID
}
