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
	type thread struct {
		discussionID string
		top, reply   string // a top-level comment and a reply under it
		other        string // a comment in another discussion
		w            *World
	}
	tests := []struct {
		name string
		// hide changes the discussion before the verdict; it returns the
		// reply_to the verdict uses.
		hide       func(th thread) string
		wantParent func(th thread) string
		wantLead   func(th thread) string
	}{
		{
			name:       "visible_comment_gets_a_threaded_reply",
			hide:       func(th thread) string { return th.top },
			wantParent: func(th thread) string { return th.top },
			wantLead:   func(thread) string { return "answer A" },
		},
		{
			name:       "reply_to_a_reply_goes_under_its_parent",
			hide:       func(th thread) string { return th.reply },
			wantParent: func(th thread) string { return th.top },
			wantLead:   func(thread) string { return "answer A" },
		},
		{
			name: "deleted_comment_kept_as_a_placeholder",
			hide: func(th thread) string {
				if err := th.w.GH.DeleteComment(th.top); err != nil {
					th.w.T.Fatal(err)
				}
				return th.top
			},
			wantLead: func(thread) string { return "↪️ In answer to a comment that was deleted:" },
		},
		{
			name: "reply_under_a_deleted_comment",
			hide: func(th thread) string {
				if err := th.w.GH.DeleteComment(th.top); err != nil {
					th.w.T.Fatal(err)
				}
				return th.reply
			},
			wantLead: func(th thread) string {
				return "↪️ In answer to [a comment by @carol](" + commentURL(th.w, th.discussionID, th.reply) + "):"
			},
		},
		{
			name: "reply_under_a_minimized_comment",
			hide: func(th thread) string {
				if err := th.w.GH.MinimizeComment(th.top, "SPAM"); err != nil {
					th.w.T.Fatal(err)
				}
				return th.reply
			},
			wantLead: func(th thread) string {
				return "↪️ In answer to [a comment by @carol](" + commentURL(th.w, th.discussionID, th.reply) + "):"
			},
		},
		{
			name: "minimized_comment",
			hide: func(th thread) string {
				if err := th.w.GH.MinimizeComment(th.top, "OFF_TOPIC"); err != nil {
					th.w.T.Fatal(err)
				}
				return th.top
			},
			wantLead: func(th thread) string {
				return "↪️ In answer to [a hidden comment by @bob](" + commentURL(th.w, th.discussionID, th.top) + "):"
			},
		},
		{
			name: "unknown_comment",
			hide: func(thread) string { return "DC_kwDOAAAAAAAAnope" },
			wantLead: func(thread) string {
				return "↪️ In answer to a comment this discussion does not show (`DC_kwDOAAAAAAAAnope`):"
			},
		},
		{
			name: "comment_in_another_discussion",
			hide: func(th thread) string { return th.other },
			wantLead: func(th thread) string {
				return "↪️ In answer to a comment this discussion does not show (`" + th.other + "`):"
			},
		},
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store})
				n, id := w.Open("alice")
				_, otherID := w.Open("dora")
				th := thread{discussionID: id, w: w, other: w.Say(otherID, "", "dora", "elsewhere")}
				th.top = w.Say(id, "", "bob", "which storage?")
				th.reply = w.Say(id, th.top, "carol", "S3, surely")
				must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				run := w.Waiting()[0]
				replyTo := tt.hide(th)
				if _, err := w.Answer(ctx, run, verdictWith(replyTo)); err != nil {
					t.Fatalf("verdict: %v", err)
				}
				want := []posted{{Index: 0, Lead: tt.wantLead(th)}}
				if tt.wantParent != nil {
					want[0].Parent = tt.wantParent(th)
				}
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
			w := New(t, Options{Store: store})
			n, id := w.Open("alice")
			asked := w.Say(id, "", "bob", "which storage?")
			gone := w.Say(id, "", "carol", "and which region?")
			w.Say(id, gone, "bob", "eu, I think")
			if err := w.GH.DeleteComment(gone); err != nil {
				t.Fatal(err)
			}
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			run := w.Waiting()[0]
			cid := run.Inputs["correlation_id"]
			doc := verdictWith(asked, gone)
			if claim := must(t)(w.Engine(nil).Engine.Claim(ctx, n, cid, run.ID)); claim.Stale {
				t.Fatalf("the run's claim is stale")
			}
			w.GH.Fail(githubfake.Fault{Field: "addDiscussionComment", Count: 2, AfterApply: true})
			e := w.Engine(nil).Engine
			v, err := e.ParseVerdict([]byte(doc(cid, n)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Verdict(ctx, v, run.ID); err == nil {
				t.Fatalf("verdict whose first post lost its answer succeeded")
			}
			if err := w.GH.DeleteComment(asked); err != nil {
				t.Fatal(err)
			}
			e = w.Engine(nil).Engine
			if v, err = e.ParseVerdict([]byte(doc(cid, n))); err != nil {
				t.Fatal(err)
			}
			must(t)(e.Verdict(ctx, v, run.ID))
			must(t)(w.Engine(nil).Engine.Verdict(ctx, v, run.ID))
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
			w := New(t, Options{Store: store})
			n, id := w.Open("alice")
			first := w.Say(id, "", "bob", "which storage?")
			doomed := w.Say(id, "", "carol", "and which region?")
			w.Say(id, doomed, "bob", "eu, I think")
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			run := w.Waiting()[0]
			cid := run.Inputs["correlation_id"]
			if claim := must(t)(w.Engine(nil).Engine.Claim(ctx, n, cid, run.ID)); claim.Stale {
				t.Fatalf("the run's claim is stale")
			}
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
			e := w.Engine(deleteOnPost).Engine
			v, err := e.ParseVerdict([]byte(verdictWith(first, doomed)(cid, n)))
			if err != nil {
				t.Fatal(err)
			}
			must(t)(e.Verdict(ctx, v, run.ID))
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
