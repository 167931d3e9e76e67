package state_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/state"
)

// The threads a sweep looks into for a lost answer: those of the open
// recesses, newest recess first, each once, bounded whatever the record holds.
func TestRecordThreadRoots(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	many := make([]string, state.MaxWatchedThreads+3)
	for i := range many {
		many[i] = fmt.Sprintf("DC_%d", i)
	}
	tests := []struct {
		name string
		rfcs map[string]*state.RFC
		want []string
	}{
		{name: "no_open_recess"},
		{name: "recess_without_replies", rfcs: map[string]*state.RFC{"c-1": {OpenedAt: t0}}},
		{name: "newest_recess_first_each_once", rfcs: map[string]*state.RFC{
			"c-old": {OpenedAt: t0, ThreadRoots: []string{"DC_a", "DC_b"}},
			"c-new": {OpenedAt: t0.Add(time.Hour), ThreadRoots: []string{"DC_c", "DC_a"}},
		}, want: []string{"DC_c", "DC_a", "DC_b"}},
		{name: "bounded", rfcs: map[string]*state.RFC{"c-1": {OpenedAt: t0, ThreadRoots: many}}, want: many[:state.MaxWatchedThreads]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := state.New(1)
			rec.OpenRFCs = tt.rfcs
			if diff := cmp.Diff(tt.want, rec.ThreadRoots()); diff != "" {
				t.Errorf("ThreadRoots() (-want +got):\n%s", diff)
			}
		})
	}
}
