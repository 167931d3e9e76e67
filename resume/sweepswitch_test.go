package resume

import "testing"

func TestSweepSwitchFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		command      string
		pendingAfter bool
		listed       int
		want         SweepSwitch
	}{
		{"intake_leaving_a_run_at_work", "intake", true, -1, SweepEnsureOn},
		{"comment_on_a_waiting_discussion", "inbound", true, -1, SweepEnsureOn},
		{"comment_leaving_nothing_pending", "inbound", false, -1, SweepLeave},
		{"intake_out_of_scope", "intake", false, -1, SweepLeave},
		{"claim_of_a_waiting_run", "claim", true, -1, SweepLeave},
		{"verdict_opening_a_recess", "verdict", true, -1, SweepEnsureOn},
		{"verdict_adjourning", "verdict", false, -1, SweepLeave},
		{"sweep_visit_inside_the_sweep", "sweep", true, -1, SweepLeave},
		{"sweep_visit_resolving_the_last_recess", "sweep", false, -1, SweepLeave},
		{"plan_finding_nothing_pending", "plan", false, 0, SweepOff},
		{"sweep_finding_nothing_pending", "sweep", false, 0, SweepOff},
		{"plan_with_something_pending", "plan", false, 3, SweepLeave},
		{"plan_unsure_whether_anything_is_pending", "plan", false, -1, SweepLeave},
		{"status_of_every_discussion", "status", false, 0, SweepLeave},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := sweepSwitchFor(tc.command, tc.pendingAfter, tc.listed); got != tc.want {
				t.Errorf("sweepSwitchFor(%q, %v, %d) = %v, want %v", tc.command, tc.pendingAfter, tc.listed, got, tc.want)
			}
		})
	}
}
