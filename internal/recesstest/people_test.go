package recesstest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// What people's comments are to recess, through the real adapter over the
// fake GitHub: whose replies a trigger counts, which signals fire, and that
// a refused command counts toward nothing.

// comment returns a comment of a discussion as GitHub holds it.
func comment(t *testing.T, w *World, discussionID, commentID string) githubfake.Comment {
	t.Helper()
	cs, err := w.GH.Comments(discussionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.ID == commentID {
			return c
		}
	}
	t.Fatalf("no comment %s", commentID)
	return githubfake.Comment{}
}

// recessReactions are the reactions recess put on a comment, sorted.
func recessReactions(t *testing.T, w *World, discussionID, commentID string) []string {
	t.Helper()
	var out []string
	for content, logins := range comment(t, w, discussionID, commentID).Reactions {
		if contains(logins, Bot) {
			out = append(out, content)
		}
	}
	slices.Sort(out)
	return out
}

// answersUnder are the bodies recess posted under a comment.
func answersUnder(w *World, discussionID, commentID string) []string {
	var out []string
	for _, c := range w.RecessComments(discussionID) {
		if c.ParentID == commentID {
			body, _, _ := strings.Cut(c.Body, "\n\n<!--")
			out = append(out, body)
		}
	}
	return out
}

// TestLogins_bot_suffix: GraphQL gives an app's login without "[bot]"
// (renovate), REST and people write it with (renovate[bot]); both name one
// bot for a trigger's from and for ignore-authors.
func TestLogins_bot_suffix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		trigger   string
		ignore    []string
		wantFired bool
	}{
		{name: "from_with_the_suffix_counts_the_bot", trigger: `{"kind":"missing_input","replies":1,"from":["renovate[bot]"]}`, wantFired: true},
		{name: "from_without_the_suffix_counts_the_bot", trigger: `{"kind":"missing_input","replies":1,"from":["Renovate"]}`, wantFired: true},
		{name: "from_another_login_does_not_count_it", trigger: `{"kind":"missing_input","replies":1,"from":["renovate-helper"]}`},
		{name: "ignore_authors_with_the_suffix_ignores_the_bot", trigger: `{"kind":"missing_input","replies":1}`, ignore: []string{"renovate[bot]"}},
		{name: "ignore_authors_without_the_suffix_ignores_the_bot", trigger: `{"kind":"missing_input","replies":1}`, ignore: []string{"RENOVATE"}},
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w, n, id := recessedWorld(t, store, tt.trigger, Options{Config: resume.Config{IgnoreAuthors: tt.ignore}})
				w.GH.AddAccount("renovate[bot]", githubfake.KindBot)
				w.Say(id, "", "renovate[bot]", "Update module golang.org/x/net to v0.31.0")
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				if res.Fired != tt.wantFired {
					t.Errorf("Inbound fired = %v, want %v (notes %q)", res.Fired, tt.wantFired, res.Notes)
				}
			})
		}
	}
}

// TestCommands_signal_names: a signal fires the recess waiting for it
// whatever the case it is written in; a signal nobody waits for is refused
// with 😕 and one answer that names the awaited signals, and fires nothing.
func TestCommands_signal_names(t *testing.T) {
	t.Parallel()
	const trigger = `{"kind":"any","of":[{"kind":"escalation_needed","signal":"security-review"},{"kind":"escalation_needed","signal":"legal"}]}`
	tests := []struct {
		name        string
		body        string
		wantFired   bool
		wantReact   []string
		wantAnswers []string
	}{
		{name: "same_case_fires", body: "/recess signal security-review", wantFired: true, wantReact: []string{"THUMBS_UP"}},
		{name: "other_case_fires", body: "/recess signal Security-Review", wantFired: true, wantReact: []string{"THUMBS_UP"}},
		// The command is the first line, whatever ends it; the words after it
		// are a reply (👀: it woke recess).
		{name: "crlf_ends_the_line", body: "/recess signal legal\r\nCleared by counsel.", wantFired: true, wantReact: []string{"EYES", "THUMBS_UP"}},
		{name: "cr_ends_the_line", body: "/recess signal legal\rCleared by counsel.", wantFired: true, wantReact: []string{"EYES", "THUMBS_UP"}},
		{name: "line_separator_ends_the_line", body: "/recess signal legal\u2028Cleared by counsel.", wantFired: true, wantReact: []string{"EYES", "THUMBS_UP"}},
		{name: "next_line_ends_the_line", body: "/recess signal legal\u0085Cleared by counsel.", wantFired: true, wantReact: []string{"EYES", "THUMBS_UP"}},
		{
			name: "unawaited_signal_is_refused", body: "/recess signal secuirty-review", wantReact: []string{"CONFUSED"},
			wantAnswers: []string{"I did not act on this: no open recess here waits for the signal “secuirty-review”; the awaited signals are “legal”, “security-review”."},
		},
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w, n, id := recessedWorld(t, store, trigger, Options{Maintainers: []string{"maya"}})
				before := len(w.Runs())
				cmd := w.Say(id, "", "maya", tt.body)
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				if res.Fired != tt.wantFired || (tt.wantFired && res.FiredBy != wait.KindEscalationNeeded) {
					t.Errorf("Inbound = fired %v by %q, want fired %v (notes %q)", res.Fired, res.FiredBy, tt.wantFired, res.Notes)
				}
				if got := len(newRuns(w, before)); got != btoi(tt.wantFired) {
					t.Errorf("%d agent runs started, want %d", got, btoi(tt.wantFired))
				}
				if diff := cmp.Diff(tt.wantReact, recessReactions(t, w, id, cmd)); diff != "" {
					t.Errorf("recess's reactions on the command (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantAnswers, answersUnder(w, id, cmd)); diff != "" {
					t.Errorf("recess's answers to the command (-want +got):\n%s", diff)
				}
				// A later run changes nothing: the command was handled once.
				if res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n)); res.Fired {
					t.Errorf("a second run fired")
				}
				if diff := cmp.Diff(tt.wantAnswers, answersUnder(w, id, cmd)); diff != "" {
					t.Errorf("recess's answers after a second run (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCommands_refused_command_is_not_a_reply: a maintainer's refused
// command gets 😕 and its explanation and counts toward nothing; the words
// after an accepted command's line are a reply: they count and reach
// history_since.
func TestCommands_refused_command_is_not_a_reply(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":1}`, Options{Maintainers: []string{"maya"}})
			before := len(w.Runs())
			for _, body := range []string{"/recess extend banana", "/recess frobnicate\nplease hurry", "/recess signal ci"} {
				cmd := w.Say(id, "", "maya", body)
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				if res.Fired {
					t.Fatalf("%q fired missing_input (notes %q)", body, res.Notes)
				}
				if diff := cmp.Diff([]string{"CONFUSED"}, recessReactions(t, w, id, cmd)); diff != "" {
					t.Errorf("recess's reactions on %q (-want +got):\n%s", body, diff)
				}
				if got := answersUnder(w, id, cmd); len(got) != 1 || !strings.HasPrefix(got[0], "I did not act on this: ") {
					t.Errorf("answers to %q = %q, want one saying why", body, got)
				}
			}
			said := w.Say(id, "", "maya", "/recess status\n\nPostgres is fine by me.")
			res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if !res.Fired || res.FiredBy != wait.KindMissingInput {
				t.Fatalf("the words after /recess status did not fire missing_input: fired %v by %q (notes %q)", res.Fired, res.FiredBy, res.Notes)
			}
			runs := newRuns(w, before)
			if len(runs) != 1 {
				t.Fatalf("%d agent runs started, want 1", len(runs))
			}
			var got []string
			for _, h := range History(runs[0]).HistorySince {
				got = append(got, h.ID+": "+h.Body)
			}
			if diff := cmp.Diff([]string{said + ": Postgres is fine by me."}, got); diff != "" {
				t.Errorf("history_since (-want +got):\n%s", diff)
			}
		})
	}
}
