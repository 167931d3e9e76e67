package wait

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// at returns a moment relative to testOpenedAt (2026-11-21T12:00:00Z).
func at(d time.Duration) time.Time { return testOpenedAt.Add(d) }

func timePtr(t time.Time) *time.Time { return &t }

const day = 24 * time.Hour

func TestEvaluate(t *testing.T) {
	t.Parallel()
	reply := func(author string, d time.Duration) Reply {
		return Reply{ID: "DC_" + author, Author: author, CreatedAt: at(d)}
	}
	tests := []struct {
		name    string
		trigger string
		obs     Observed // OpenedAt defaults to testOpenedAt
		now     time.Time
		want    Evaluation
	}{
		{
			name:    "missing_input_nothing_yet",
			trigger: `{"kind":"missing_input","replies":2}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "0 of 2 replies"},
		},
		{
			name:    "missing_input_one_of_two",
			trigger: `{"kind":"missing_input","replies":2}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Reason: "1 of 2 replies"},
		},
		{
			name:    "missing_input_fires_at_the_nth_reply",
			trigger: `{"kind":"missing_input","replies":2}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute), reply("bob", 2*time.Minute), reply("carol", 3*time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(2 * time.Minute), Reason: "2 of 2 replies"},
		},
		{
			name:    "missing_input_one_reply_singular",
			trigger: `{"kind":"missing_input","replies":1}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "0 of 1 reply"},
		},
		{
			name:    "missing_input_unordered_replies",
			trigger: `{"kind":"missing_input","replies":2}`,
			obs:     Observed{Replies: []Reply{reply("alice", 9*time.Minute), reply("bob", 2*time.Minute), reply("carol", 5*time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(5 * time.Minute), Reason: "2 of 2 replies"},
		},
		{
			name:    "missing_input_unknown_moment_counts_at_opening",
			trigger: `{"kind":"missing_input","replies":1}`,
			obs:     Observed{Replies: []Reply{{ID: "DC_1", Author: "alice"}}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindMissingInput, At: testOpenedAt, Reason: "1 of 1 reply"},
		},
		{
			name:    "missing_input_from_is_case_insensitive",
			trigger: `{"kind":"missing_input","replies":2,"from":["alice","bob"]}`,
			obs:     Observed{Replies: []Reply{reply("ALICE", time.Minute), reply("carol", 2*time.Minute), reply("Bob", 3*time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(3 * time.Minute), Reason: "2 of 2 replies from alice, bob"},
		},
		{
			name:    "missing_input_from_others_do_not_count",
			trigger: `{"kind":"missing_input","replies":2,"from":["alice","bob"]}`,
			obs:     Observed{Replies: []Reply{reply("carol", time.Minute), reply("alice", 2*time.Minute), reply("dave", 3*time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Reason: "1 of 2 replies from alice, bob"},
		},
		{
			name:    "missing_input_thread_scope",
			trigger: `{"kind":"missing_input","replies":2,"scope":"thread"}`,
			obs: Observed{
				ThreadRoots: []string{"DC_root"},
				Replies: []Reply{
					{ID: "DC_1", Author: "alice", Root: "DC_root", CreatedAt: at(time.Minute)},
					{ID: "DC_2", Author: "bob", CreatedAt: at(2 * time.Minute)},
					{ID: "DC_3", Author: "carol", Root: "DC_other", CreatedAt: at(3 * time.Minute)},
				},
			},
			now:  at(time.Hour),
			want: Evaluation{Reason: "1 of 2 replies in thread"},
		},
		{
			name:    "missing_input_thread_scope_fires",
			trigger: `{"kind":"missing_input","replies":1,"from":["carol"],"scope":"thread"}`,
			obs: Observed{
				ThreadRoots: []string{"DC_root", "DC_other"},
				Replies: []Reply{
					{ID: "DC_1", Author: "carol", CreatedAt: at(time.Minute)},
					{ID: "DC_3", Author: "carol", Root: "DC_other", CreatedAt: at(3 * time.Minute)},
				},
			},
			now:  at(time.Hour),
			want: Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(3 * time.Minute), Reason: "1 of 1 reply from carol in thread"},
		},
		{
			name:    "elapsed_not_yet",
			trigger: `{"kind":"elapsed","elapsed":"P2D"}`,
			now:     at(2*day - time.Second),
			want:    Evaluation{Reason: "elapsed due 2026-11-23T12:00:00Z", DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "elapsed_exactly_due",
			trigger: `{"kind":"elapsed","elapsed":"P2D"}`,
			now:     at(2 * day),
			want: Evaluation{Fired: true, FiredBy: KindElapsed, At: at(2 * day), Reason: "elapsed at 2026-11-23T12:00:00Z",
				DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "elapsed_late_sweep_reports_the_due_moment",
			trigger: `{"kind":"elapsed","elapsed":"PT12H"}`,
			now:     at(30 * day),
			want: Evaluation{Fired: true, FiredBy: KindElapsed, At: at(12 * time.Hour), Reason: "elapsed at 2026-11-22T00:00:00Z",
				DueAt: timePtr(at(12 * time.Hour))},
		},
		{
			name:    "elapsed_with_extensions",
			trigger: `{"kind":"elapsed","elapsed":"P2D"}`,
			obs:     Observed{Extensions: []Duration{mustDuration(t, "P1D"), mustDuration(t, "PT6H")}},
			now:     at(2 * day),
			want:    Evaluation{Reason: "elapsed due 2026-11-24T18:00:00Z", DueAt: timePtr(at(3*day + 6*time.Hour))},
		},
		{
			name:    "elapsed_month_end_clamped",
			trigger: `{"kind":"elapsed","elapsed":"P1M"}`,
			obs:     Observed{OpenedAt: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
			now:     time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC),
			want:    Evaluation{Reason: "elapsed due 2026-02-28T00:00:00Z", DueAt: timePtr(time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC))},
		},
		{
			name:    "escalation_waiting",
			trigger: `{"kind":"escalation_needed","signal":"security-review"}`,
			obs:     Observed{Signals: []Signal{{Name: "other", At: at(time.Minute)}}},
			now:     at(time.Hour),
			want:    Evaluation{Reason: `waiting for signal "security-review"`},
		},
		{
			name:    "escalation_received_earliest",
			trigger: `{"kind":"escalation_needed","signal":"security-review"}`,
			obs: Observed{Signals: []Signal{
				{Name: "security-review", At: at(5 * time.Minute)},
				{Name: "security-review", At: at(2 * time.Minute)},
			}},
			now:  at(time.Hour),
			want: Evaluation{Fired: true, FiredBy: KindEscalationNeeded, At: at(2 * time.Minute), Reason: `signal "security-review" received`},
		},
		{
			name:    "escalation_signal_name_ignores_case",
			trigger: `{"kind":"escalation_needed","signal":"go"}`,
			obs:     Observed{Signals: []Signal{{Name: "Go", At: at(time.Minute)}}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindEscalationNeeded, At: at(time.Minute), Reason: `signal "Go" received`},
		},
		{
			name:    "escalation_signal_name_is_whole",
			trigger: `{"kind":"escalation_needed","signal":"go"}`,
			obs:     Observed{Signals: []Signal{{Name: "go-live", At: at(time.Minute)}}},
			now:     at(time.Hour),
			want:    Evaluation{Reason: `waiting for signal "go"`},
		},
		{
			name:    "escalation_any_signal",
			trigger: `{"kind":"escalation_needed","signal":"go"}`,
			obs:     Observed{Signals: []Signal{{Name: AnySignal}}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindEscalationNeeded, At: testOpenedAt, Reason: `signal "*" received`},
		},
		{
			name:    "any_waiting",
			trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Reason: "1 of 2 replies; elapsed due 2026-11-23T12:00:00Z", DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "any_fired_by_replies",
			trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute), reply("bob", time.Hour)}},
			now:     at(2 * time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(time.Hour), Reason: "2 of 2 replies", DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "any_late_sweep_picks_the_earliest",
			trigger: `{"kind":"any","of":[{"kind":"elapsed","elapsed":"P2D"},{"kind":"missing_input","replies":2}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute), reply("bob", 3*day)}},
			now:     at(5 * day),
			want: Evaluation{Fired: true, FiredBy: KindElapsed, At: at(2 * day), Reason: "elapsed at 2026-11-23T12:00:00Z",
				DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "any_tie_goes_to_the_first",
			trigger: `{"kind":"any","of":[{"kind":"escalation_needed","signal":"go"},{"kind":"missing_input","replies":1}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}, Signals: []Signal{{Name: "go", At: at(time.Minute)}}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindEscalationNeeded, At: at(time.Minute), Reason: `signal "go" received`},
		},
		{
			name:    "any_without_time_has_no_due",
			trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"escalation_needed","signal":"go"}]}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: `0 of 2 replies; waiting for signal "go"`},
		},
		{
			name:    "any_earliest_due",
			trigger: `{"kind":"any","of":[{"kind":"elapsed","elapsed":"P3D"},{"kind":"elapsed","elapsed":"P2D"}]}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "elapsed due 2026-11-24T12:00:00Z; elapsed due 2026-11-23T12:00:00Z", DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "all_waiting_on_time",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P2D"}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:     at(time.Hour),
			want:    Evaluation{Reason: "1 of 1 reply; elapsed due 2026-11-23T12:00:00Z", DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "all_waiting_on_people_has_no_due",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P2D"}]}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "0 of 1 reply; elapsed due 2026-11-23T12:00:00Z"},
		},
		{
			name:    "all_latest_due",
			trigger: `{"kind":"all","of":[{"kind":"elapsed","elapsed":"P3D"},{"kind":"elapsed","elapsed":"P2D"}]}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "elapsed due 2026-11-24T12:00:00Z; elapsed due 2026-11-23T12:00:00Z", DueAt: timePtr(at(3 * day))},
		},
		{
			name:    "all_fired_by_the_latest",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P2D"}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", 3*day)}},
			now:     at(4 * day),
			want: Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(3 * day), Reason: "1 of 1 reply; elapsed at 2026-11-23T12:00:00Z",
				DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "all_tie_goes_to_the_last",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"escalation_needed","signal":"go"}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}, Signals: []Signal{{Name: "go", At: at(time.Minute)}}},
			now:     at(time.Hour),
			want:    Evaluation{Fired: true, FiredBy: KindEscalationNeeded, At: at(time.Minute), Reason: `1 of 1 reply; signal "go" received`},
		},
		{
			name:    "expires_resume_waiting",
			trigger: `{"kind":"missing_input","replies":2,"expires":"P7D"}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "0 of 2 replies; expires 2026-11-28T12:00:00Z", DueAt: timePtr(at(7 * day))},
		},
		{
			name:    "expires_resume_fires",
			trigger: `{"kind":"missing_input","replies":2,"expires":"P7D","on_expire":"resume"}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:     at(7 * day),
			want: Evaluation{Fired: true, FiredBy: FiredByExpired, At: at(7 * day), Reason: "expired at 2026-11-28T12:00:00Z",
				DueAt: timePtr(at(7 * day))},
		},
		{
			name:    "expires_late_sweep_keeps_an_earlier_fire",
			trigger: `{"kind":"missing_input","replies":2,"expires":"P7D"}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute), reply("bob", 6*day)}},
			now:     at(30 * day),
			want:    Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(6 * day), Reason: "2 of 2 replies", DueAt: timePtr(at(7 * day))},
		},
		{
			name:    "expires_reply_at_the_expiry_moment_is_too_late",
			trigger: `{"kind":"missing_input","replies":1,"expires":"P7D"}`,
			obs:     Observed{Replies: []Reply{reply("alice", 7*day)}},
			now:     at(7 * day),
			want: Evaluation{Fired: true, FiredBy: FiredByExpired, At: at(7 * day), Reason: "expired at 2026-11-28T12:00:00Z",
				DueAt: timePtr(at(7 * day))},
		},
		{
			name:    "expires_reply_stamped_after_expiry_before_our_clock_gets_there",
			trigger: `{"kind":"missing_input","replies":1,"expires":"P7D"}`,
			obs:     Observed{Replies: []Reply{reply("alice", 7*day+time.Second)}},
			now:     at(7*day - time.Second),
			want: Evaluation{Fired: true, FiredBy: KindMissingInput, At: at(7*day + time.Second), Reason: "1 of 1 reply",
				DueAt: timePtr(at(7 * day))},
		},
		{
			name:    "expires_sooner_than_elapsed",
			trigger: `{"kind":"elapsed","elapsed":"P5D","expires":"P3D"}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "elapsed due 2026-11-26T12:00:00Z; expires 2026-11-24T12:00:00Z", DueAt: timePtr(at(3 * day))},
		},
		{
			name:    "expires_with_extension",
			trigger: `{"kind":"escalation_needed","signal":"go","expires":"P7D"}`,
			obs:     Observed{Extensions: []Duration{mustDuration(t, "P1W")}},
			now:     at(10 * day),
			want:    Evaluation{Reason: `waiting for signal "go"; expires 2026-12-05T12:00:00Z`, DueAt: timePtr(at(14 * day))},
		},
		{
			name:    "expires_cancel_waiting",
			trigger: `{"kind":"escalation_needed","signal":"go","expires":"P7D","on_expire":"cancel"}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: `waiting for signal "go"; expires 2026-11-28T12:00:00Z, then cancelled`},
		},
		{
			name:    "expires_cancel_after_elapsed_keeps_the_due",
			trigger: `{"kind":"elapsed","elapsed":"P2D","expires":"P7D","on_expire":"cancel"}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "elapsed due 2026-11-23T12:00:00Z; expires 2026-11-28T12:00:00Z, then cancelled", DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "expires_cancel_before_elapsed_drops_the_due",
			trigger: `{"kind":"elapsed","elapsed":"P7D","expires":"P2D","on_expire":"cancel"}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: "elapsed due 2026-11-28T12:00:00Z; expires 2026-11-23T12:00:00Z, then cancelled"},
		},
		{
			name:    "expires_cancel",
			trigger: `{"kind":"escalation_needed","signal":"go","expires":"P7D","on_expire":"cancel"}`,
			now:     at(8 * day),
			want:    Evaluation{Cancelled: true, At: at(7 * day), Reason: "expired at 2026-11-28T12:00:00Z, cancelled"},
		},
		{
			name:    "any_expired_child_fires_it",
			trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2,"expires":"P1D"},{"kind":"elapsed","elapsed":"P2D"}]}`,
			now:     at(day),
			want: Evaluation{Fired: true, FiredBy: FiredByExpired, At: at(day), Reason: "expired at 2026-11-22T12:00:00Z",
				DueAt: timePtr(at(day))},
		},
		{
			name:    "any_with_one_cancelled_child_waits_for_the_other",
			trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2,"expires":"P1D","on_expire":"cancel"},{"kind":"elapsed","elapsed":"P2D"}]}`,
			now:     at(day),
			want:    Evaluation{Reason: "expired at 2026-11-22T12:00:00Z, cancelled; elapsed due 2026-11-23T12:00:00Z", DueAt: timePtr(at(2 * day))},
		},
		{
			name: "any_cancelled_when_every_child_is",
			trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2,"expires":"P1D","on_expire":"cancel"},` +
				`{"kind":"escalation_needed","signal":"go","expires":"P2D","on_expire":"cancel"}]}`,
			now: at(3 * day),
			want: Evaluation{Cancelled: true, At: at(2 * day),
				Reason: "expired at 2026-11-22T12:00:00Z, cancelled; expired at 2026-11-23T12:00:00Z, cancelled"},
		},
		{
			name:    "all_cancelled_by_one_child",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"escalation_needed","signal":"go","expires":"P1D","on_expire":"cancel"}]}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:     at(day),
			want:    Evaluation{Cancelled: true, At: at(day), Reason: "1 of 1 reply; expired at 2026-11-22T12:00:00Z, cancelled"},
		},
		{
			name:    "composite_cancelled_before_its_own_expiry_stays_cancelled",
			trigger: `{"kind":"all","of":[{"kind":"escalation_needed","signal":"go","expires":"P1D","on_expire":"cancel"}],"expires":"P2D"}`,
			now:     at(3 * day),
			want:    Evaluation{Cancelled: true, At: at(day), Reason: "expired at 2026-11-22T12:00:00Z, cancelled"},
		},
		{
			name:    "composite_own_expiry",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"escalation_needed","signal":"go"}],"expires":"P2D"}`,
			obs:     Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:     at(3 * day),
			want: Evaluation{Fired: true, FiredBy: FiredByExpired, At: at(2 * day), Reason: "expired at 2026-11-23T12:00:00Z",
				DueAt: timePtr(at(2 * day))},
		},
		{
			name:    "composite_own_expiry_waiting",
			trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"escalation_needed","signal":"go"}],"expires":"P2D"}`,
			now:     at(time.Hour),
			want:    Evaluation{Reason: `0 of 1 reply; waiting for signal "go"; expires 2026-11-23T12:00:00Z`, DueAt: timePtr(at(2 * day))},
		},
		{
			name: "nested_composites",
			trigger: `{"kind":"any","of":[{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P1D"}]},` +
				`{"kind":"elapsed","elapsed":"P3D"}]}`,
			obs:  Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now:  at(time.Hour),
			want: Evaluation{Reason: "1 of 1 reply; elapsed due 2026-11-22T12:00:00Z; elapsed due 2026-11-24T12:00:00Z", DueAt: timePtr(at(day))},
		},
		{
			name: "nested_composites_fired",
			trigger: `{"kind":"any","of":[{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P1D"}]},` +
				`{"kind":"elapsed","elapsed":"P3D"}]}`,
			obs: Observed{Replies: []Reply{reply("alice", time.Minute)}},
			now: at(4 * day),
			want: Evaluation{Fired: true, FiredBy: KindElapsed, At: at(day), Reason: "1 of 1 reply; elapsed at 2026-11-22T12:00:00Z",
				DueAt: timePtr(at(day))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			trig, err := ParseTrigger([]byte(tt.trigger), testLimits(t))
			if err != nil {
				t.Fatalf("ParseTrigger(%q) error = %v", tt.trigger, err)
			}
			obs := tt.obs
			if obs.OpenedAt.IsZero() {
				obs.OpenedAt = testOpenedAt
			}
			got := Evaluate(trig, obs, tt.now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate(%s, now %s) mismatch (-want +got):\n%s", tt.trigger, tt.now.Format(time.RFC3339), diff)
			}
		})
	}
}

func TestEvaluateHandBuilt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *Trigger
		want Evaluation
	}{
		{name: "nil", in: nil, want: Evaluation{Reason: "no trigger"}},
		{name: "unknown_kind", in: &Trigger{Kind: "later"}, want: Evaluation{Reason: `unknown kind "later"`}},
		{name: "elapsed_without_duration", in: &Trigger{Kind: KindElapsed}, want: Evaluation{Reason: "elapsed without a duration"}},
		{name: "composite_without_children", in: &Trigger{Kind: KindAll}, want: Evaluation{Reason: "all of nothing"}},
		{name: "replies_below_one_wants_one", in: &Trigger{Kind: KindMissingInput}, want: Evaluation{Reason: "0 of 1 reply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Evaluate(tt.in, Observed{OpenedAt: testOpenedAt}, at(time.Hour))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate(%v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestEvaluateLateSweepDecidesTheSame checks the promise a sweep relies on:
// once a trigger has fired, evaluating it later gives the same outcome.
func TestEvaluateLateSweepDecidesTheSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trigger string
		obs     Observed
	}{
		{name: "any_replies_or_elapsed", trigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}],"expires":"P5D"}`,
			obs: Observed{Replies: []Reply{{Author: "a", CreatedAt: at(time.Hour)}, {Author: "b", CreatedAt: at(day)}}}},
		{name: "all_with_cancel", trigger: `{"kind":"all","of":[{"kind":"missing_input","replies":1,"expires":"P3D","on_expire":"cancel"},{"kind":"elapsed","elapsed":"P1D"}]}`,
			obs: Observed{Replies: []Reply{{Author: "a", CreatedAt: at(2 * day)}}}},
		{name: "signal_before_expiry", trigger: `{"kind":"escalation_needed","signal":"go","expires":"P1D","on_expire":"cancel"}`,
			obs: Observed{Signals: []Signal{{Name: "go", At: at(time.Hour)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			trig, err := ParseTrigger([]byte(tt.trigger), testLimits(t))
			if err != nil {
				t.Fatalf("ParseTrigger(%q) error = %v", tt.trigger, err)
			}
			tt.obs.OpenedAt = testOpenedAt
			var first *Evaluation
			for now := testOpenedAt; now.Before(at(60 * day)); now = now.Add(time.Hour) {
				got := Evaluate(trig, tt.obs, now)
				if first == nil {
					if got.Fired || got.Cancelled {
						first = &got
					}
					continue
				}
				if diff := cmp.Diff(*first, got); diff != "" {
					t.Fatalf("Evaluate(%s) at %s differs from the first decision (-first +later):\n%s", tt.trigger, now, diff)
				}
			}
			if first == nil {
				t.Fatalf("Evaluate(%s) never decided within 60 days", tt.trigger)
			}
		})
	}
}
