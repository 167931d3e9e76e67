package resume

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/state"
)

// Deciding is a function of the snapshot: decide has no engine and no
// ports to call, and a decision that needs more than the
// snapshot holds says so in what it returns instead of reading it.
func TestDecide_is_a_value_over_the_snapshot(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	d := &Thread{ID: "D_1", Number: 1, Author: "alice", CreatedAt: now.Add(-time.Minute), Labels: []string{"question"}}
	answered := state.New(1)
	answered.Applied, answered.Seen = []string{"c-0"}, state.Cursor{At: now.Add(-time.Minute), All: true}
	replied := &Thread{ID: "D_1", Number: 1, Author: "alice", CreatedAt: now.Add(-time.Hour),
		Comments: []Comment{{ID: "C_1", Author: "bob", Body: "One more thing.", CreatedAt: now}}}
	cfg := Config{NewID: func() string { return "c-1" }}.withDefaults()
	tests := []struct {
		name     string
		snap     *snapshot
		want     bool // needRecent
		dispatch bool
		effects  []Effect
		first    []Effect
	}{
		{name: "fresh_dispatch_asks_for_the_recent_dispatches",
			snap: &snapshot{rec: state.New(1), isNew: true, d: d},
			want: true},
		{name: "fresh_dispatch_once_they_are_counted",
			snap:     &snapshot{rec: state.New(1), isNew: true, d: d, recent: answer[int]{read: true}, findsByLabel: true},
			dispatch: true,
			effects:  []Effect{{Kind: EffectLabel, Label: LabelWaiting}}},
		{name: "held_back_when_the_repository_is_busy",
			snap:    &snapshot{rec: state.New(1), isNew: true, d: d, recent: answer[int]{v: 10, read: true}, findsByLabel: true},
			effects: []Effect{{Kind: EffectLabel, Label: LabelWaiting}}},
		{name: "waiting_label_goes_on_before_the_write_that_makes_a_record_pending",
			snap:     &snapshot{rec: answered, d: replied, recent: answer[int]{read: true}, findsByLabel: true},
			dispatch: true,
			first:    []Effect{{Kind: EffectLabel, Label: LabelWaiting}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.snap
			s.rec.OpenRFCs = map[string]*state.RFC{}
			before := s.rec.Clone()
			out, err := decide(*s, input{command: "intake", discussion: true, rule: (*facts).reconcile}, cfg, now)
			if err != nil {
				t.Fatalf("decide = %v", err)
			}
			if out.need.recent != tt.want {
				t.Errorf("needRecent = %v, want %v", out.need.recent, tt.want)
			}
			if got := out.dispatch != nil; got != tt.dispatch {
				t.Errorf("dispatch planned = %v, want %v", got, tt.dispatch)
			}
			if tt.want {
				return
			}
			if diff := cmp.Diff(tt.effects, out.after); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.first, out.first); diff != "" {
				t.Errorf("label before the write (-want +got):\n%s", diff)
			}
			if !out.write || !out.rec.Pending() {
				t.Errorf("write %v, pending %v; want a pending record to write", out.write, out.rec.Pending())
			}
			if diff := cmp.Diff(before, s.rec); diff != "" {
				t.Errorf("the snapshot's record changed while deciding (-before +after):\n%s", diff)
			}
		})
	}
}
