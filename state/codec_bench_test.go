package state_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// benchRecord is a busy record: every open recess the format allows, each
// with replies and a composite trigger, and full cursors.
func benchRecord(b *testing.B) []byte {
	b.Helper()
	rec := sample()
	rec.OpenRFCs = map[string]*state.RFC{}
	at := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)
	for i := range state.MaxOpenRFCs {
		o := &state.RFC{
			Trigger:  storetest.MustTrigger(`{"kind":"any","of":[{"kind":"missing_input","replies":2,"from":["alice","bob"]},{"kind":"elapsed","elapsed":"P2D"}],"expires":"P30D","on_expire":"cancel"}`),
			OpenedAt: at, RepliesAfter: state.Cursor{At: at, IDs: []string{"DC_a", "DC_b"}}, RecessCount: 2,
			Summary: "waiting for the storage owners to answer",
		}
		for j := range 10 {
			o.ReplyIDs = append(o.ReplyIDs, "DC_kwDOJ6b3Ys4AXyZt"+strconv.Itoa(i*10+j))
		}
		rec.OpenRFCs["c-"+strconv.Itoa(i)] = o
	}
	for i := range state.MaxApplied - len(rec.Applied) {
		rec.Applied = append(rec.Applied, "c-applied-"+strconv.Itoa(i))
	}
	data, err := state.Encode(rec)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecode(b *testing.B) {
	data := benchRecord(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := state.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
