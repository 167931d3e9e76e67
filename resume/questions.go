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
func Questions(d *Thread, correlationID string) []Question {
	var out []Question
	index := map[string]int{} // by comment id: the reply's place in the verdict
	for _, c := range d.Comments {
		if !c.Mine || c.Deleted {
			continue
		}
		id, i, ok := state.ParseReplyMarker(c.Body)
		if !ok || id != correlationID {
			continue
		}
		index[c.ID] = i
		out = append(out, Question{ID: c.ID, Thread: c.Thread(), Body: state.Visible(c.Body), URL: c.URL})
	}
	slices.SortStableFunc(out, func(a, b Question) int { return index[a.ID] - index[b.ID] })
	return out
}

// Thread is the top-level comment c sits in: its parent, or c itself. An
// answer under c names it as reply_to.
func (c Comment) Thread() string {
	if c.Root != "" {
		return c.Root
	}
	return c.ID
}
