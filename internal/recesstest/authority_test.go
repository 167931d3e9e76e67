package recesstest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
)

// permissionReads counts the requests to GitHub's collaborator-permission
// endpoint since the log was last reset.
func permissionReads(w *World) []string {
	var logins []string
	for _, r := range w.GH.Requests() {
		if rest, ok := strings.CutPrefix(r.Path, "/repos/"+Repo+"/collaborators/"); ok {
			logins = append(logins, strings.TrimSuffix(rest, "/permission"))
		}
	}
	return logins
}

// permissionForbidden is GitHub's answer to a token that may not ask the
// collaborator-permission question.
var permissionForbidden = githubfake.Fault{Path: "/repos/" + Repo + "/collaborators/", Status: http.StatusForbidden,
	Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`}

// TestAuthority_slash_commands_need_write_permission: who may use a slash
// command is what GitHub's collaborator-permission endpoint says (write,
// maintain or admin), read through the adapter from the fake GitHub; an
// organisation member who may only read is an ordinary commenter, and a
// person whose write access shows no association still commands.
func TestAuthority_slash_commands_need_write_permission(t *testing.T) {
	t.Parallel()
	// Ignored: the run said it ignored the command for want of write
	// access; Warnings: warnings for the maintainer.
	type outcome struct {
		OpenRFCs int
		Ignored  bool
		Warnings int
	}
	tests := []struct {
		name   string
		setup  func(t *testing.T, w *World)
		author string
		want   outcome
	}{
		{"member_with_read_permission_cannot_cancel", nil, Member,
			outcome{OpenRFCs: 1, Ignored: true}},
		{"write_permission_without_association_cancels", func(t *testing.T, w *World) {
			if err := w.GH.SetPermission(Repo, "wes", "write"); err != nil {
				t.Fatal(err)
			}
		}, "wes", outcome{OpenRFCs: 0}},
		{"maintain_permission_cancels", func(t *testing.T, w *World) {
			if err := w.GH.SetPermission(Repo, "max", "maintain"); err != nil {
				t.Fatal(err)
			}
		}, "max", outcome{OpenRFCs: 0}},
		{"triage_permission_cannot_cancel", func(t *testing.T, w *World) {
			if err := w.GH.SetPermission(Repo, "tri", "triage"); err != nil {
				t.Fatal(err)
			}
		}, "tri", outcome{OpenRFCs: 1, Ignored: true}},
		{"app_is_not_a_user_and_cannot_cancel", func(t *testing.T, w *World) {
			w.GH.AddAccount("renovate[bot]", githubfake.KindBot)
		}, "renovate[bot]", outcome{OpenRFCs: 1, Ignored: true}},
		{"token_that_may_not_ask_holds_it_with_a_warning", func(t *testing.T, w *World) {
			w.GH.Fail(permissionForbidden)
		}, "maya", outcome{OpenRFCs: 1, Warnings: 1}},
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":3}`, Options{Maintainers: []string{"maya"}})
				if tt.setup != nil {
					tt.setup(t, w)
				}
				w.Say(id, "", tt.author, "/recess cancel")
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				got := outcome{OpenRFCs: res.OpenRFCs, Warnings: len(res.Warnings)}
				for _, note := range res.Notes {
					got.Ignored = got.Ignored || strings.HasPrefix(note, "ignored /recess cancel from @")
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("after @%s's /recess cancel (-want +got):\n%s\nnotes: %q\nwarnings: %q", tt.author, diff, res.Notes, res.Warnings)
				}
				if asked := permissionReads(w); strings.HasSuffix(tt.author, "[bot]") && len(asked) != 0 {
					t.Errorf("recess asked GitHub for the permission of %q; an app's account is not a user and is not asked", asked)
				}
				if tt.want.Warnings > 0 && !strings.Contains(res.Warnings[0], "may not read @"+tt.author+"'s permission") {
					t.Errorf("warning = %q, want it to say recess may not read the permission", res.Warnings[0])
				}
			})
		}
	}
}

// TestAuthority_command_held_while_the_permission_is_unreadable: a
// maintainer's command whose permission the token may not read is neither
// carried out nor taken for a reply, and nobody in the thread is answered;
// each run warns the maintainer. Once the permission can be read, the next
// run carries the command out: nothing was consumed.
func TestAuthority_command_held_while_the_permission_is_unreadable(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			// One reply would fire: the held command must not count as one.
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":1}`, Options{Maintainers: []string{"maya"}})
			before := len(w.Runs())
			w.GH.Fail(permissionForbidden)
			cmd := w.Say(id, "", "maya", "/recess cancel")
			for run := 1; run <= 2; run++ {
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				if res.Fired || res.OpenRFCs != 1 || len(newRuns(w, before)) != 0 {
					t.Fatalf("run %d with the permission unreadable: fired %v, open recesses %d, agent runs %d; want the recess open and untouched (notes %q)",
						run, res.Fired, res.OpenRFCs, len(newRuns(w, before)), res.Notes)
				}
				if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "/recess cancel from @maya is held") {
					t.Errorf("run %d warnings = %q, want one saying the command is held", run, res.Warnings)
				}
				if got := recessReactions(t, w, id, cmd); len(got) != 0 {
					t.Errorf("run %d: recess reacted %q to the held command", run, got)
				}
				if got := answersUnder(w, id, cmd); len(got) != 0 {
					t.Errorf("run %d: recess answered the held command: %q", run, got)
				}
			}
			w.GH.ClearFaults()
			res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if res.OpenRFCs != 0 || len(newRuns(w, before)) != 0 {
				t.Errorf("once the permission reads, the held /recess cancel left %d open recesses and started %d runs (notes %q)", res.OpenRFCs, len(newRuns(w, before)), res.Notes)
			}
			if diff := cmp.Diff([]string{"THUMBS_UP"}, recessReactions(t, w, id, cmd)); diff != "" {
				t.Errorf("reactions on the carried-out command (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuthority_permission_asked_once_per_author_only_for_commands: a run
// over comments without a slash command asks GitHub nothing; with commands
// it asks once for each of their authors, however many commands each wrote.
func TestAuthority_permission_asked_once_per_author_only_for_commands(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":9}`, Options{Maintainers: []string{"maya"}})
			w.Say(id, "", "bob", "I would use Postgres.")
			w.GH.ResetLog()
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if got := permissionReads(w); len(got) != 0 {
				t.Errorf("a run without commands asked for the permissions of %v", got)
			}
			w.Say(id, "", "maya", "/recess status")
			w.Say(id, "", Member, "/recess status")
			w.Say(id, "", "maya", "/recess extend P1D")
			w.GH.ResetLog()
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if diff := cmp.Diff([]string{"maya", Member}, permissionReads(w)); diff != "" {
				t.Errorf("permission reads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuthority_settled_commands_are_not_asked_again: once the commands are
// handled and no open recess can count them, later runs over the
// discussion ask GitHub for nobody's permission. Before that, each run asks
// for the authors of the commands in an open recess's window: whether one
// counts as a reply depends on who wrote it.
func TestAuthority_settled_commands_are_not_asked_again(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":9}`, Options{Maintainers: []string{"maya"}})
			w.Say(id, "", Member, "/recess status")
			w.Say(id, "", "maya", "/recess status")
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			w.Say(id, "", "bob", "Postgres.")
			w.GH.ResetLog()
			if res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n)); res.OpenRFCs != 1 {
				t.Fatalf("open recesses = %d, want 1", res.OpenRFCs)
			}
			if diff := cmp.Diff([]string{Member, "maya"}, permissionReads(w)); diff != "" {
				t.Errorf("permission reads while the recess is open (-want +got):\n%s", diff)
			}
			w.Say(id, "", "maya", "/recess cancel")
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			w.Advance(time.Minute)
			w.Say(id, "", "bob", "Thanks.")
			w.GH.ResetLog()
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if got := permissionReads(w); len(got) != 0 {
				t.Errorf("a run after every command was settled asked for the permissions of %v", got)
			}
		})
	}
}

// TestAuthority_deleted_account: what a deleted account wrote stays, and
// GitHub's GraphQL answers null for its author (REST, webhooks and the web
// call it ghost). Its "/recess ..." is an ordinary reply by ghost, whose
// permission recess does not ask: it is never held, and a maintainer's
// command after it is carried out.
func TestAuthority_deleted_account(t *testing.T) {
	t.Parallel()
	type outcome struct {
		Fired    bool
		OpenRFCs int
		Warnings int
		// Authors are the authors of the resumed run's history_since.
		Authors []string
	}
	tests := []struct {
		name     string
		trigger  string
		maintain bool // maya, a maintainer, writes /recess cancel after it
		want     outcome
	}{
		{"command_is_a_reply_by_ghost", `{"kind":"missing_input","replies":1}`, false,
			outcome{Fired: true, Authors: []string{"ghost"}}},
		{"maintainers_command_after_it_is_carried_out", `{"kind":"missing_input","replies":3}`, true,
			outcome{}},
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w, n, id := recessedWorld(t, store, tt.trigger, Options{Maintainers: []string{"maya"}})
				before := len(w.Runs())
				w.Say(id, "", "tom", "/recess cancel")
				if err := w.GH.DeleteAccount("tom"); err != nil {
					t.Fatal(err)
				}
				if tt.maintain {
					w.Say(id, "", "maya", "/recess cancel")
				}
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				got := outcome{Fired: res.Fired, OpenRFCs: res.OpenRFCs, Warnings: len(res.Warnings)}
				for _, r := range newRuns(w, before) {
					for _, h := range History(r).HistorySince {
						got.Authors = append(got.Authors, h.Author)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("after a deleted account's /recess cancel (-want +got):\n%s\nnotes: %q\nwarnings: %q", diff, res.Notes, res.Warnings)
				}
				for _, login := range permissionReads(w) {
					if login != "maya" {
						t.Errorf("recess asked GitHub for the permission of %q; want only maya's asked", login)
					}
				}
			})
		}
	}
}
