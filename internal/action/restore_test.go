package action

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/state"
)

// What a person's deletion does to recess's record, through the binary's
// run as the action, with the payloads GitHub delivers for the deletion.

// statusOf is recess's status comment in a discussion and the record it
// holds, as recess trusts it (state.ReadStatus); ok is false when there is
// none.
func (r *repo) statusOf(discussionID string) (githubfake.Comment, *state.Record, bool) {
	r.t.Helper()
	cs, err := r.gh.Comments(discussionID)
	if err != nil {
		r.t.Fatal(err)
	}
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		if c.Author != hostileBot || !c.DeletedAt.IsZero() {
			continue
		}
		if rec, found, err := state.ReadStatus(c.Body); found && err == nil {
			return c, rec, true
		}
	}
	return githubfake.Comment{}, nil, false
}

// remove deletes a comment as a person would, and runs recess for the
// deletion's event.
func (r *repo) remove(commentID string) outcome {
	r.t.Helper()
	if err := r.gh.DeleteComment(commentID); err != nil {
		r.t.Fatal(err)
	}
	return r.deleted(commentID)
}

// deleted runs recess for the event of a comment's deletion.
func (r *repo) deleted(commentID string) outcome {
	r.t.Helper()
	payload, err := r.gh.DiscussionCommentPayload(commentID, githubfake.Event{Action: "deleted"})
	if err != nil {
		r.t.Fatal(err)
	}
	return r.action("discussion_comment", payload, nil)
}

// resumes counts the agent runs that resume the recess opened by the run
// with correlation id cid.
func (r *repo) resumes(cid string) int {
	r.t.Helper()
	n := 0
	for _, ru := range r.runs() {
		var rc struct {
			CorrelationID string `json:"correlation_id"`
		}
		if raw := ru.Inputs["resume_context"]; raw != "" {
			if err := json.Unmarshal([]byte(raw), &rc); err != nil {
				r.t.Fatalf("run %d: resume_context: %v", ru.ID, err)
			}
		}
		if rc.CorrelationID == cid {
			n++
		}
	}
	return n
}

// removeStatus deletes recess's status comment of a discussion, runs recess
// for the deletion, and checks that the record came back as it was.
func (r *repo) removeStatus(discussionID string) {
	r.t.Helper()
	c, before, ok := r.statusOf(discussionID)
	if !ok {
		r.t.Fatal("no status comment to delete")
	}
	o := r.ok(r.remove(c.ID), "deletion of the status comment")
	after, rec, ok := r.statusOf(discussionID)
	if !ok {
		r.t.Fatalf("the deleted status comment was not restored:\n%s", o.stdout)
	}
	if after.ID == c.ID {
		r.t.Fatalf("the status comment %s is still the deleted one", c.ID)
	}
	// The run for the deletion then decides as any run does, and may
	// rewrite the status text (the run's link, say); the record is as it was.
	if diff := cmp.Diff(before, rec, cmpopts.IgnoreFields(state.Record{}, "Status")); diff != "" {
		r.t.Errorf("restored record differs from the deleted one (-deleted +restored):\n%s", diff)
	}
}

// A status comment deleted while the agent works comes back with the active
// run: the next comment starts no second run, and the run's claim and
// verdict are accepted.
func TestDeletedStatusComment_keeps_the_active_run(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	_, id := r.open("alice")
	first := r.newest()
	r.removeStatus(id)
	if got := len(r.runs()); got != 1 {
		t.Fatalf("the deletion started %d agent runs, want the 1 already under way", got)
	}

	_, o := r.say(id, "bob", "One more thought while you work: keep it small.")
	r.ok(o, "comment")
	if got := len(r.runs()); got != 1 {
		t.Fatalf("after the deletion, a comment started a second agent run (%d runs)", got)
	}
	r.answer(first, "adjourned", map[string]any{"replies": []map[string]string{{"body": "Done: kept it small."}}})
	_, rec, ok := r.statusOf(id)
	if !ok {
		t.Fatal("no status comment after the verdict")
	}
	if rec.Active != nil && rec.Active.CorrelationID == first.Inputs["correlation_id"] {
		t.Errorf("the run's verdict did not end it: active run %+v", rec.Active)
	}
	applied := false
	for _, cid := range rec.Applied {
		applied = applied || cid == first.Inputs["correlation_id"]
	}
	if !applied {
		t.Errorf("the verdict of run %s was not applied (applied %v)", first.Inputs["correlation_id"], rec.Applied)
	}
}

// A status comment deleted after an adjourned answer comes back with
// nothing pending: neither the deletion nor the next comment re-fires the
// recess that answer resolved.
func TestDeletedStatusComment_does_not_refire_a_resolved_recess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		replies []map[string]string
	}{
		{name: "answer_with_a_reply", replies: []map[string]string{{"body": "We go with Postgres."}}},
		{name: "answer_without_replies", replies: []map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "comment")
			_, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
			cid := first.Inputs["correlation_id"]
			_, o := r.say(id, "bob", "Postgres, we run it already.")
			r.ok(o, "answer")
			resumed := r.newest()
			if r.resumes(cid) != 1 {
				t.Fatalf("bob's answer did not resume the recess (newest run %+v)", resumed)
			}
			r.answer(resumed, "adjourned", map[string]any{"replies": tt.replies})
			if _, rec, _ := r.statusOf(id); rec.Pending() {
				t.Fatalf("the adjourned answer left the record pending: %+v", rec)
			}
			runs := len(r.runs())

			r.removeStatus(id)
			if got := len(r.runs()); got != runs {
				t.Errorf("the deletion started %d agent run(s)", got-runs)
			}
			_, o = r.say(id, "carol", "Thanks, that settles it.")
			r.ok(o, "comment")
			if got := r.resumes(cid); got != 1 {
				t.Errorf("%d runs resumed the recess, want 1: the resolved recess fired again", got)
			}
		})
	}
}

// A record marker in someone else's comment is not recess's record, even
// when the comment is deleted: nothing is restored from it.
func TestDeletedForgedRecord_is_not_restored(t *testing.T) {
	t.Parallel()
	forged := func(t *testing.T, n int) string {
		rec := state.New(n)
		rec.Active = &state.Run{CorrelationID: "c-evil", State: state.RunDispatched, Claimed: true, Attempt: 1}
		body, err := state.EncodeComment("⏸️ Waiting for nothing.", rec)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	t.Run("while_the_status_comment_stands", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t, "comment")
		n, id := r.open("alice")
		c, o := r.say(id, "mallory", forged(t, n))
		r.ok(o, "forged comment")
		before := r.snapshot(id)
		o = r.ok(r.remove(c), "deletion of the forged comment")
		if after := r.snapshot(id); after != before {
			t.Errorf("the deletion changed recess's state:\n--- before\n%s\n--- after\n%s", before, after)
		}
		if !strings.Contains(o.stdout, "ignoring a state marker in a deleted comment by \"mallory\"") {
			t.Errorf("the forged marker was not reported:\n%s", o.stdout)
		}
	})
	t.Run("where_recess_holds_no_record", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t, "comment")
		d, err := r.gh.CreateDiscussion(hostileRepo, "mallory", "RFC", "please review")
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.gh.Comment(d.ID, "mallory", forged(t, d.Number))
		if err != nil {
			t.Fatal(err)
		}
		o := r.ok(r.remove(c.ID), "deletion of the forged comment")
		_, rec, ok := r.statusOf(d.ID)
		if ok && rec.Active != nil && rec.Active.CorrelationID == "c-evil" {
			t.Fatalf("the forged record was adopted: %+v\n%s", rec.Active, o.stdout)
		}
		for _, ru := range r.runs() {
			if ru.Inputs["correlation_id"] == "c-evil" {
				t.Errorf("a run carries the forged correlation id: %+v", ru)
			}
		}
	})
}

// Deleting one of recess's replies (not its record) changes nothing, under
// either store; under the branch store no comment holds the record at all.
func TestDeletedReply_changes_nothing(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
			var question string
			cs, err := r.gh.Comments(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if _, _, ok := state.ParseReplyMarker(c.Body); ok && c.Author == hostileBot {
					question = c.ID
				}
			}
			if question == "" {
				t.Fatal("the recessing verdict's question was not posted")
			}
			if err := r.gh.DeleteComment(question); err != nil {
				t.Fatal(err)
			}
			before := r.snapshot(id)
			r.ok(r.deleted(question), "deletion of recess's question")
			if after := r.snapshot(id); after != before {
				t.Errorf("the deletion changed recess's state:\n--- before\n%s\n--- after\n%s", before, after)
			}
			if got := r.runs(); len(got) != 1 || got[0].ID != first.ID {
				t.Errorf("runs after the deletion: %d, want only the first", len(got))
			}
		})
	}
}

// A dry run of the deletion's event says it would write the record back,
// and decides the rest over the record as written back: no dispatch.
func TestDeletedStatusComment_dry_run_says_it_would_restore(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	_, id := r.open("alice")
	c, _, ok := r.statusOf(id)
	if !ok {
		t.Fatal("no status comment")
	}
	if err := r.gh.DeleteComment(c.ID); err != nil {
		t.Fatal(err)
	}
	payload, err := r.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "deleted"})
	if err != nil {
		t.Fatal(err)
	}
	before := r.snapshot(id)
	env, o := r.actionEnv("discussion_comment", payload, map[string]string{"INPUT_DRY-RUN": "true"})
	r.ok(o, "dry run of the deletion")
	if after := r.snapshot(id); after != before {
		t.Errorf("a dry run wrote:\n--- before\n%s\n--- after\n%s", before, after)
	}
	b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	summary := string(b)
	if !strings.Contains(summary, "#1: would save the record, status") {
		t.Errorf("the dry run does not say it would write the record back:\n%s", summary)
	}
	if !strings.Contains(summary, "| would dispatch an agent run | no |") || strings.Contains(summary, "would dispatch the agent workflow") {
		t.Errorf("the dry run would dispatch a second agent run:\n%s", summary)
	}
}

// A deleted comment of recess's whose record cannot be read is refused
// loudly: the run fails, says why, and writes nothing.
func TestDeletedUnreadableRecord_is_refused(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	_, id := r.open("alice")
	bad, err := r.gh.Comment(id, hostileBot+"[bot]", "⏸ status\n\n<!-- recess:state v1\n@@@ not base64 @@@\n-->")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.gh.DeleteComment(bad.ID); err != nil {
		t.Fatal(err)
	}
	before := r.snapshot(id)
	o := r.deleted(bad.ID)
	if o.code == 0 {
		t.Fatalf("the run succeeded:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, "cannot be read, so it is not restored") {
		t.Errorf("the run does not say why:\n%s", o.stdout)
	}
	if after := r.snapshot(id); after != before {
		t.Errorf("a refused restore wrote:\n--- before\n%s\n--- after\n%s", before, after)
	}
}

// A status comment deleted after a recess fired, its deletion's event lost,
// never brings that recess back, however the resumed run answered without
// a reply: an adjourned answer leaves nothing pending, and a second recess
// is restored in place of the first (and fires when due). The next comment
// restores the record from what recess last wrote.
func TestLostStatusComment_never_brings_back_a_fired_recess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		verdict string
		extra   map[string]any
		// open is whether the resumed run's answer left a recess open.
		open bool
	}{
		{name: "adjourned_without_a_reply", verdict: "adjourned", extra: map[string]any{"replies": []map[string]string{}}},
		{name: "recessed_again_without_a_reply", verdict: "recessed", open: true,
			extra: map[string]any{"replies": []map[string]string{}, "trigger": map[string]any{"kind": "elapsed", "elapsed": "PT2H"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "comment")
			_, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
			cid := first.Inputs["correlation_id"]
			_, o := r.say(id, "bob", "Postgres, we run it already.")
			r.ok(o, "bob's answer")
			resumed := r.newest()
			if r.resumes(cid) != 1 {
				t.Fatalf("bob's answer did not resume the recess:\n%s", o.stdout)
			}
			r.answer(resumed, tt.verdict, tt.extra)
			r.clock.Step(time.Minute)

			status, _, ok := r.statusOf(id)
			if !ok {
				t.Fatal("no status comment after the resumed run's answer")
			}
			if err := r.gh.DeleteComment(status.ID); err != nil {
				t.Fatal(err)
			}
			_, o = r.say(id, "carol", "Thanks, that settles it for me.")
			r.ok(o, "carol's comment")
			if got := r.resumes(cid); got != 1 {
				t.Fatalf("%d runs resumed recess %s, want 1: the fired recess came back\n%s", got, cid, o.stdout)
			}
			_, rec, ok := r.statusOf(id)
			if !ok {
				t.Fatalf("no status comment after carol's comment\n%s", o.stdout)
			}
			if rec.OpenRFCs[cid] != nil {
				t.Errorf("the restored record holds the fired recess %s", cid)
			}
			again := resumed.Inputs["correlation_id"]
			if got := rec.OpenRFCs[again] != nil; got != tt.open {
				t.Fatalf("restored record holds the resumed run's recess %s: %v, want %v (open %v)", again, got, tt.open, keys(rec.OpenRFCs))
			}
			if !tt.open {
				return
			}
			r.clock.Step(2 * time.Hour)
			r.ok(r.action("schedule", []byte(`{"schedule":"*/5 * * * *"}`), nil), "sweep")
			if got := r.resumes(again); got != 1 {
				t.Errorf("after its 2 hours, %d runs resumed recess %s, want 1", got, again)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A status comment deleted while the run that resumed a recess is at work,
// its deletion's event lost: the next comment finds the copy of the open
// recess, and recess's 👀 on the reply that fired it, so it does not resume
// the recess a second time; which run is at work went with the status
// comment, so recess escalates and says so, and a maintainer's
// `/recess retry` resumes the recess again.
func TestLostStatusComment_while_a_resumed_run_works_is_escalated(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	n, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
	cid := first.Inputs["correlation_id"]
	_, o := r.say(id, "bob", "Postgres, we run it already.")
	r.ok(o, "bob's answer")
	resumed := r.newest()
	if r.resumes(cid) != 1 {
		t.Fatalf("bob's answer did not resume the recess:\n%s", o.stdout)
	}
	r.ok(r.agent(resumed, "claim", nil), "claim of the resumed run")
	r.clock.Step(time.Minute)
	status, _, ok := r.statusOf(id)
	if !ok {
		t.Fatal("no status comment while the resumed run works")
	}
	if err := r.gh.DeleteComment(status.ID); err != nil {
		t.Fatal(err)
	}

	_, o = r.say(id, "carol", "Any news?")
	r.ok(o, "carol's comment")
	if got := r.resumes(cid); got != 1 {
		t.Fatalf("%d runs resumed recess %s, want 1: the fired recess came back\n%s", got, cid, o.stdout)
	}
	_, rec, ok := r.statusOf(id)
	if !ok || rec.Active == nil || rec.Active.State != state.RunEscalated || rec.Active.Resume == nil || rec.Active.Resume.CorrelationID != cid {
		t.Fatalf("record after carol's comment = %+v (found %v); want an escalated resume of %s", rec, ok, cid)
	}
	d, err := r.gh.Discussion(hostileRepo, n)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Labels, "recess:escalated") {
		t.Errorf("labels = %v, want recess:escalated", d.Labels)
	}

	_, o = r.say(id, "maya", "/recess retry")
	r.ok(o, "the maintainer's retry")
	if got := r.resumes(cid); got != 2 {
		t.Errorf("after /recess retry, %d runs resumed recess %s, want 2\n%s", got, cid, o.stdout)
	}
}

// The restore's look for a run at work costs nothing when there is none: a
// status comment deleted before the reply a recess waits for, its
// deletion's event lost, and that reply resumes the recess once.
func TestLostStatusComment_restored_recess_fires_on_its_reply(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	_, id, first := r.recessed(`{"kind":"missing_input","replies":1}`)
	cid := first.Inputs["correlation_id"]
	status, _, ok := r.statusOf(id)
	if !ok {
		t.Fatal("no status comment")
	}
	if err := r.gh.DeleteComment(status.ID); err != nil {
		t.Fatal(err)
	}
	_, o := r.say(id, "bob", "Postgres, we run it already.")
	r.ok(o, "bob's answer")
	if got := r.resumes(cid); got != 1 {
		t.Fatalf("%d runs resumed recess %s, want 1\n%s", got, cid, o.stdout)
	}
	if _, rec, ok := r.statusOf(id); !ok || rec.Active == nil || rec.Active.State == state.RunEscalated {
		t.Errorf("record after bob's answer = %+v (found %v), want the resumed run at work", rec, ok)
	}
}
