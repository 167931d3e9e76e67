package recesstest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/state"
)

// Where recess posts the agent's replies, through the real adapter over the
// fake GitHub (which refuses a reply under a deleted comment, as GitHub
// does): a reply_to people cannot read the thread of goes to the top level
// with a line that says what it answers, and a re-run verdict never posts a
// reply twice, wherever its first copy landed.

// verdictWith is an adjourned verdict whose replies answer replyTo (one
// reply each; "" for a top-level reply).
func verdictWith(replyTo ...string) func(string, int) string {
	return func(cid string, n int) string {
		replies := make([]map[string]string, len(replyTo))
		for i, to := range replyTo {
			replies[i] = map[string]string{"body": "answer " + string(rune('A'+i))}
			if to != "" {
				replies[i]["reply_to"] = to
			}
		}
		b, _ := json.Marshal(map[string]any{"verdict": "adjourned", "correlation_id": cid, "discussion_number": n, "replies": replies})
		return string(b)
	}
}

// posted is one of recess's verdict replies as GitHub holds it.
type posted struct {
	Index  int
	Parent string // "" at the top level
	Lead   string // its first paragraph
}

// verdictReplies lists recess's replies for verdict cid, in the order
// GitHub holds them (replies under placeholders included).
func verdictReplies(t *testing.T, w *World, discussionID, cid string) []posted {
	t.Helper()
	var out []posted
	for _, c := range w.RecessComments(discussionID) {
		k, i, ok := state.ParseReplyMarker(c.Body)
		if !ok || k != cid {
			continue
		}
		lead, _, _ := strings.Cut(c.Body, "\n\n")
		out = append(out, posted{Index: i, Parent: c.ParentID, Lead: lead})
	}
	return out
}

func TestVerdictReplies_go_where_people_read(t *testing.T) {
	t.Parallel()
	// The discussion holds bob's top-level comment "top" and carol's
	// "reply" under it; "other" is a comment in another discussion.
	// Before the verdict, hideTop deletes or minimizes top. Expected
	// texts name comments as {top}, {reply}, {other} and their addresses
	// as {top.url}, {reply.url}.
	tests := []struct {
		name       string
		hideTop    string // "", "delete" or "minimize"
		replyTo    string // top, reply, other, or a literal id
		wantParent string // top, or "" for the top level
		wantLead   string
	}{
		{name: "visible_comment_gets_a_threaded_reply", replyTo: "top", wantParent: "top", wantLead: "answer A"},
		{name: "reply_to_a_reply_goes_under_its_parent", replyTo: "reply", wantParent: "top", wantLead: "answer A"},
		{name: "deleted_comment_kept_as_a_placeholder", hideTop: "delete", replyTo: "top",
			wantLead: "↪️ In answer to a comment that was deleted:"},
		{name: "reply_under_a_deleted_comment", hideTop: "delete", replyTo: "reply",
			wantLead: "↪️ In answer to [a comment by @carol]({reply.url}):"},
		{name: "reply_under_a_minimized_comment", hideTop: "minimize", replyTo: "reply",
			wantLead: "↪️ In answer to [a comment by @carol]({reply.url}):"},
		{name: "minimized_comment", hideTop: "minimize", replyTo: "top",
			wantLead: "↪️ In answer to [a hidden comment by @bob]({top.url}):"},
		{name: "unknown_comment", replyTo: "DC_kwDOAAAAAAAAnope",
			wantLead: "↪️ In answer to a comment this discussion does not show (`DC_kwDOAAAAAAAAnope`):"},
		{name: "comment_in_another_discussion", replyTo: "other",
			wantLead: "↪️ In answer to a comment this discussion does not show (`{other}`):"},
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store})
				n, id := w.Open("alice")
				_, otherID := w.Open("dora")
				ids := map[string]string{"other": w.Say(otherID, "", "dora", "elsewhere")}
				ids["top"] = w.Say(id, "", "bob", "which storage?")
				ids["reply"] = w.Say(id, ids["top"], "carol", "S3, surely")
				ids["top.url"] = commentURL(w, id, ids["top"])
				ids["reply.url"] = commentURL(w, id, ids["reply"])
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				var err error
				switch tt.hideTop {
				case "delete":
					err = w.GH.DeleteComment(ids["top"])
				case "minimize":
					err = w.GH.MinimizeComment(ids["top"], "OFF_TOPIC")
				}
				if err != nil {
					t.Fatal(err)
				}
				replyTo := tt.replyTo
				if known, ok := ids[replyTo]; ok {
					replyTo = known
				}
				run := w.Waiting()[0]
				if _, err := w.Answer(ctx, run, verdictWith(replyTo)); err != nil {
					t.Fatalf("verdict: %v", err)
				}
				lead := tt.wantLead
				for k, v := range ids {
					lead = strings.ReplaceAll(lead, "{"+k+"}", v)
				}
				want := []posted{{Index: 0, Parent: ids[tt.wantParent], Lead: lead}}
				if diff := cmp.Diff(want, verdictReplies(t, w, id, run.Inputs["correlation_id"])); diff != "" {
					t.Errorf("recess's replies (-want +got):\n%s", diff)
				}
				rec, err := readRecord(w, store, n, id)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Active != nil || !contains(rec.Applied, run.Inputs["correlation_id"]) {
					t.Errorf("record after the verdict: active %s, applied %v; want the verdict applied", activeOf(rec), rec.Applied)
				}
			})
		}
	}
}

// commentURL is a comment's address as GitHub reports it.
func commentURL(w *World, discussionID, commentID string) string {
	w.T.Helper()
	cs, err := w.GH.Comments(discussionID)
	if err != nil {
		w.T.Fatal(err)
	}
	for _, c := range cs {
		if c.ID == commentID {
			return c.URL
		}
	}
	w.T.Fatalf("no comment %s in %s", commentID, discussionID)
	return ""
}

// TestVerdictReplies_rerun_never_posts_twice: both replies reach GitHub but
// their answers are lost, so the verdict fails (after reading the
// discussion again once, which finds the first); then a person deletes the
// comment the first answered, which GitHub keeps as a placeholder because
// recess's reply sits under it. The re-runs find both copies, the first
// under the placeholder, and post nothing more; the second reply, to a
// comment deleted before the verdict, went to the top level.
func TestVerdictReplies_rerun_never_posts_twice(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id, asked, gone := twoQuestions(t, store)
			if err := w.GH.DeleteComment(gone); err != nil {
				t.Fatal(err)
			}
			run, cid := claimedRun(t, w, n)
			doc := verdictWith(asked, gone)
			w.GH.Fail(githubfake.Fault{Field: "addDiscussionComment", Count: 2, AfterApply: true})
			if err := deliver(t, w, nil, run, doc); err == nil {
				t.Fatalf("verdict whose posts lost their answers succeeded")
			}
			if err := w.GH.DeleteComment(asked); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := deliver(t, w, nil, run, doc); err != nil {
					t.Fatalf("re-run verdict: %v", err)
				}
			}
			want := []posted{
				{Index: 0, Parent: asked, Lead: "answer A"},
				{Index: 1, Lead: "↪️ In answer to a comment that was deleted:"},
			}
			if diff := cmp.Diff(want, verdictReplies(t, w, id, cid)); diff != "" {
				t.Errorf("recess's replies after the re-runs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerdictReplies_comment_deleted_while_posting: the comment a reply
// answers is deleted (kept as a placeholder: it has replies) between the
// verdict's read and its post, and GitHub refuses the reply under it. The
// verdict reads the discussion again and posts that reply at the top level,
// and each reply once.
func TestVerdictReplies_comment_deleted_while_posting(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id, first, doomed := twoQuestions(t, store)
			run, cid := claimedRun(t, w, n)
			var once sync.Once
			deleteOnPost := func(next http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(req *http.Request) (*http.Response, error) {
					if b := requestBody(req); strings.Contains(b, `"query":"mutation`) && mutationField(b) == "addDiscussionComment" && strings.Contains(b, doomed) {
						once.Do(func() {
							if err := w.GH.DeleteComment(doomed); err != nil {
								t.Error(err)
							}
						})
					}
					return next.RoundTrip(req)
				})
			}
			if err := deliver(t, w, deleteOnPost, run, verdictWith(first, doomed)); err != nil {
				t.Fatalf("verdict: %v", err)
			}
			want := []posted{
				{Index: 0, Parent: first, Lead: "answer A"},
				{Index: 1, Lead: "↪️ In answer to a comment that was deleted:"},
			}
			if diff := cmp.Diff(want, verdictReplies(t, w, id, cid)); diff != "" {
				t.Errorf("recess's replies (-want +got):\n%s", diff)
			}
		})
	}
}

// claimedRun starts the first agent run on discussion n and claims it.
func claimedRun(t *testing.T, w *World, n int) (githubfake.Run, string) {
	t.Helper()
	must(t)(w.Engine(nil).Engine.Intake(ctx, n))
	run := w.Waiting()[0]
	cid := run.Inputs["correlation_id"]
	if claim := must(t)(w.Engine(nil).Engine.Claim(ctx, n, cid, run.ID)); claim.Stale {
		t.Fatalf("the claim of run %d is stale", run.ID)
	}
	return run, cid
}

// deliver applies the verdict doc makes as agent run r, in a fresh run of
// recess whose transport wrap wraps (nil: none).
func deliver(t *testing.T, w *World, wrap func(http.RoundTripper) http.RoundTripper, r githubfake.Run, doc func(string, int) string) error {
	t.Helper()
	e := w.Engine(wrap).Engine
	n := discussionOf(t, r)
	v, err := e.ParseVerdict([]byte(doc(r.Inputs["correlation_id"], n)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Verdict(ctx, v, r.ID)
	return err
}

// twoQuestions opens a discussion where bob and carol each ask a question
// at the top level, and bob answers carol's under it.
func twoQuestions(t *testing.T, store string) (w *World, n int, discussionID, bobs, carols string) {
	t.Helper()
	w = New(t, Options{Store: store})
	n, discussionID = w.Open("alice")
	bobs = w.Say(discussionID, "", "bob", "which storage?")
	carols = w.Say(discussionID, "", "carol", "and which region?")
	w.Say(discussionID, carols, "bob", "eu, I think")
	return w, n, discussionID, bobs, carols
}
