package recesstest

import (
	"fmt"
	"testing"
	"time"
)

// TestBudgetHour: an hour of five-minute sweeps over waiting discussions
// with nothing due, in repositories as they are (realWorld seeds: another
// workflow commenting first with recess's token, the status comment not
// among the first comments, comments the trigger does not count after it).
// Every sweep stays at the listing plus the probe, sweep after sweep, on
// both stores; the hour's requests are reported.
func TestBudgetHour(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		for _, waiting := range []int{100, 1000} {
			t.Run(fmt.Sprintf("%s/%d", store, waiting), func(t *testing.T) {
				t.Parallel()
				if testing.Short() && waiting > 100 {
					t.Skip("1,000 waiting discussions: not in -short")
				}
				w := New(t, Options{Store: store})
				seed(t, w, seedOpts{open: waiting, realWorld: waiting <= 100})
				var total Count
				for i := range 12 {
					at(w, 2*time.Minute+time.Duration(5*i)*time.Minute) // 10:02, 10:07, ...
					res, c := sweep(t, w)
					if len(res.Sweep) != 0 || c.Writes != 0 || c.Total() > listingCost(w, store, waiting)+probeCost(waiting) {
						t.Errorf("sweep at %s = %v visiting %d; want the listing and the probe only (%d)", w.Now().Format("15:04"),
							c, len(res.Sweep), listingCost(w, store, waiting)+probeCost(waiting))
					}
					total.REST += c.REST
					total.GraphQL += c.GraphQL
					total.Points += c.Points
				}
				t.Logf("%s store, %d waiting, nothing due, 12 sweeps (an hour at 5 minutes): %d requests, %d GraphQL points",
					store, waiting, total.Total(), total.Points)
			})
		}
	}
}
