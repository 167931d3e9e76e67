package action

import (
	"strings"
	"testing"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// Which comment recess takes for its record, through the binary's run as
// the action, when another workflow of the repository posts with the same
// token.

// forgedCopy is a comment that ends with a copy of discussion id's own
// record, its open recess lowered to wait for one reply: what someone who
// read the status comment's hidden marker can write.
func (r *repo) forgedCopy(discussionID string) string {
	r.t.Helper()
	_, rec, ok := r.statusOf(discussionID)
	if !ok {
		r.t.Fatal("no status comment to copy")
	}
	if len(rec.OpenRFCs) != 1 {
		r.t.Fatalf("open recesses = %d, want 1", len(rec.OpenRFCs))
	}
	for _, rfc := range rec.OpenRFCs {
		rfc.Trigger = storetest.MustTrigger(`{"kind":"missing_input","replies":1}`)
	}
	body, err := state.EncodeComment("Agreed, and here is where things stand.", rec)
	if err != nil {
		r.t.Fatal(err)
	}
	return body
}

// repost has another workflow holding recess's own token repost a comment
// verbatim, and runs recess for the repost's event.
func (r *repo) repost(commentID string) (string, outcome) {
	r.t.Helper()
	c, err := r.gh.Repost(hostileToken, commentID)
	if err != nil {
		r.t.Fatal(err)
	}
	payload, err := r.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "created"})
	if err != nil {
		r.t.Fatal(err)
	}
	return c.ID, r.action("discussion_comment", payload, nil)
}

// A comment of recess's identity that ends with a copy of the discussion's
// record is no status comment unless its whole body is what recess writes
// for that record: a cross-post bot's repost of someone's text, the copy
// lowered from 3 replies to 1, resumes nothing; the recess still waits for
// its 3 replies. The branch store keeps no record in comments and is
// unmoved too.
func TestRepostedRecordCopy_is_not_the_status_comment(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id, first := r.recessed(`{"kind":"missing_input","replies":3}`)
			cid := first.Inputs["correlation_id"]
			forged := r.copyOrQuestion(id)

			bob, o := r.say(id, "bob", forged)
			r.ok(o, "bob's comment")
			_, o = r.repost(bob)
			r.ok(o, "the repost's event")
			_, o = r.say(id, "carol", "Postgres, with nightly backups.")
			r.ok(o, "carol's reply")
			if got := r.resumes(cid); got != 0 {
				t.Fatalf("after 2 of 3 replies, %d run(s) resumed the recess: the repost was taken for the record\n%s", got, o.stdout)
			}
			if store == "comment" {
				_, rec, ok := r.statusOf(id)
				if !ok || rec.OpenRFCs[cid] == nil || rec.OpenRFCs[cid].Trigger.Replies != 3 {
					t.Fatalf("status comment's record = %+v, %v; want the recess %s waiting for 3 replies", rec, ok, cid)
				}
				if !strings.Contains(o.stdout, "not what recess writes for the record it holds") {
					t.Errorf("the repost's marker was not reported:\n%s", o.stdout)
				}
			}

			_, o = r.say(id, "dave", "Same here.")
			r.ok(o, "dave's reply")
			if got := r.resumes(cid); got != 1 {
				t.Errorf("after 3 of 3 replies, %d run(s) resumed the recess, want 1", got)
			}
		})
	}
}

// copyOrQuestion is a forged copy of the record under the comment store,
// and under the branch store (no record in any comment) a comment that
// ends with a status-comment marker all the same.
func (r *repo) copyOrQuestion(discussionID string) string {
	r.t.Helper()
	if r.store == "comment" {
		return r.forgedCopy(discussionID)
	}
	rec := state.New(1)
	body, err := state.EncodeComment("Agreed.", rec)
	if err != nil {
		r.t.Fatal(err)
	}
	return body
}

// A repost that is deleted, its deletion's event delivered, restores
// nothing of the copy it carried, even where no status comment stands: the
// record comes back from recess's own copy of the recess instead, still
// waiting for its 3 replies.
func TestDeletedRepostedRecordCopy_is_not_restored(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	_, id, first := r.recessed(`{"kind":"missing_input","replies":3}`)
	cid := first.Inputs["correlation_id"]
	bob, o := r.say(id, "bob", r.forgedCopy(id))
	r.ok(o, "bob's comment")
	repost, err := r.gh.Repost(hostileToken, bob)
	if err != nil {
		t.Fatal(err)
	}
	status, _, ok := r.statusOf(id)
	if !ok {
		t.Fatal("no status comment")
	}
	// The status comment goes, its deletion's event lost; then the repost
	// goes, and its deletion's event arrives.
	if err := r.gh.DeleteComment(status.ID); err != nil {
		t.Fatal(err)
	}
	o = r.ok(r.remove(repost.ID), "deletion of the repost")
	if strings.Contains(o.stdout, "restored the record as it was") {
		t.Errorf("the repost's copy was restored as recess's record:\n%s", o.stdout)
	}
	_, rec, ok := r.statusOf(id)
	if !ok || rec.OpenRFCs[cid] == nil || rec.OpenRFCs[cid].Trigger.Replies != 3 {
		t.Fatalf("record after the deletions = %+v, %v; want the recess %s waiting for 3 replies", rec, ok, cid)
	}
	_, o = r.say(id, "carol", "Postgres.")
	r.ok(o, "carol's reply")
	if got := r.resumes(cid); got != 0 {
		t.Errorf("after 2 of 3 replies, %d run(s) resumed the recess", got)
	}
}

// A status comment recess wrote under one configuration is still its
// status comment under another: its visible text travels in the record, so
// turning hide-summary on between runs loses nothing (the next write shows
// the status without the summary).
func TestStatusComment_survives_a_configuration_change(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "comment")
	n, id := r.open("alice")
	first := r.newest()
	r.answer(first, "recessed", map[string]any{"trigger": map[string]any{"kind": "missing_input", "replies": 2},
		"summary": "waiting for the storage owners", "replies": []map[string]string{{"body": "Which storage backend?"}}})
	before, rec, ok := r.statusOf(id)
	if !ok || !strings.Contains(rec.Status, "storage owners") {
		t.Fatalf("status comment before = %+v (found %v), want its summary shown", rec, ok)
	}
	o := r.ok(r.sayWith(id, "bob", "Postgres.", map[string]string{"INPUT_HIDE-SUMMARY": "true"}), "bob's reply")
	after, rec, ok := r.statusOf(id)
	if !ok || after.ID != before.ID {
		t.Fatalf("status comment after = %s (found %v), want %s still recess's\n%s", after.ID, ok, before.ID, o.stdout)
	}
	if len(rec.OpenRFCs) != 1 || strings.Contains(rec.Status, "storage owners") || !strings.Contains(rec.Status, "1 of 2") {
		t.Errorf("record after = %+v, status %q; want the recess counting bob's reply, without its summary", rec.OpenRFCs, rec.Status)
	}
	if got := len(r.runs()); got != 1 {
		t.Errorf("%d agent runs on #%d, want the first alone", got, n)
	}
}
