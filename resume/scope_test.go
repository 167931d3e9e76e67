package resume_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// placed opens a discussion in a category, with labels.
func (w *world) placed(author, category, slug string, labels ...string) int {
	n := w.openDiscussion(author)
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.discussions[n]
	d.Category, d.CategorySlug, d.Labels = category, slug, labels
	return n
}

func TestScope_categories_and_labels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      resume.Config
		category string
		slug     string
		labels   []string
		// why is the filter the intake's note names, "" when served.
		why string
	}{
		{"no_filter", resume.Config{}, "Q&A", "q-a", nil, ""},
		{"category_by_name", resume.Config{Categories: []string{"rfcs"}}, "RFCs", "rfcs-and-ideas", nil, ""},
		{"category_by_slug", resume.Config{Categories: []string{"rfcs-and-ideas"}}, "RFCs", "rfcs-and-ideas", nil, ""},
		{"other_category", resume.Config{Categories: []string{"RFCs"}}, "Q&A", "q-a", nil, "categories"},
		{"label_any_case", resume.Config{Labels: []string{"agent"}}, "General", "general", []string{"bug", "Agent"}, ""},
		{"label_missing", resume.Config{Labels: []string{"agent"}}, "General", "general", []string{"bug"}, "labels"},
		{"both_need_to_hold", resume.Config{Categories: []string{"General"}, Labels: []string{"agent"}}, "General", "general", nil, "labels"},
		{"neither_holds", resume.Config{Categories: []string{"RFCs"}, Labels: []string{"agent"}}, "General", "general", nil, "categories, labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(tt.cfg)
			n := w.placed("alice", tt.category, tt.slug, tt.labels...)
			res := mustRun(t)(e.Intake(ctx, n))
			served := tt.why == ""
			// The maintainer's summary says which filter left it out.
			note := fmt.Sprintf("discussion %d is out of scope (%s): nothing to do", n, tt.why)
			if got := slices.Contains(res.Notes, note); got == served {
				t.Errorf("intake notes %q; want %q among them: %v", res.Notes, note, !served)
			}
			w.advance(time.Minute)
			w.say(n, "maya", "OWNER", "", "/recess status")
			mustRun(t)(e.Inbound(ctx, n))
			_, stored := w.records[n]
			if got := len(w.calls()) == 1; got != served || stored != served {
				t.Errorf("served = %v (dispatches %d, record stored %v), want %v", got, len(w.calls()), stored, served)
			}
			if !served && len(w.mine(n)) != 0 {
				t.Errorf("recess commented %d time(s) on a discussion out of scope", len(w.mine(n)))
			}
		})
	}
}

// An open recess on a discussion that moves out of scope is served until it
// resolves; nothing new starts there after.
func TestScope_moved_out_while_recessed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := w.engine(resume.Config{Labels: []string{"agent"}})
	n := w.placed("alice", "General", "general", "agent")
	mustRun(t)(e.Intake(ctx, n))
	mustRun(t)(verdict(t, e, recessed("c-1", n, `{"kind":"missing_input","replies":1}`, "which database?")))
	w.mu.Lock()
	w.discussions[n].Labels = nil
	w.mu.Unlock()
	w.advance(time.Minute)
	w.say(n, "bob", "NONE", "", "Postgres")
	if res := mustRun(t)(e.Inbound(ctx, n)); !res.Fired {
		t.Fatalf("the open recess was not served after the label went (notes %q)", res.Notes)
	}
	mustRun(t)(verdict(t, e, adjourned("c-2", n, "Postgres it is")))
	w.advance(time.Minute)
	w.say(n, "carol", "NONE", "", "and backups?")
	mustRun(t)(e.Inbound(ctx, n))
	if len(w.calls()) != 2 {
		t.Errorf("dispatches = %d, want 2 (nothing fresh once out of scope)", len(w.calls()))
	}
}

func TestWakeOn(t *testing.T) {
	t.Parallel()
	// A run that wakes nothing says why in its notes ("" for no such note).
	type step struct {
		author, assoc, body string
		wakes               bool
		note                string
	}
	tests := []struct {
		name      string
		cfg       resume.Config
		body      string // the discussion's body
		firstRuns bool
		firstNote string
		steps     []step
	}{
		{"comment", resume.Config{}, "please review", true, "", []step{
			{"bob", "NONE", "thanks!", true, ""},
		}},
		{"mention", resume.Config{WakeOn: resume.WakeMention, MentionHandles: []string{"@lead"}}, "please review",
			false, "the new discussion, not mentioning @lead (wake-on mention): nothing to do", []step{
				{"bob", "NONE", "@leader is not the handle", false, "the new discussion, not mentioning @lead (wake-on mention): nothing to do"},
				{"bob", "NONE", "hey @Lead, what do you think?", true, ""},
			}},
		{"mention_in_the_discussion", resume.Config{WakeOn: resume.WakeMention, MentionHandles: []string{"lead"}}, "@lead please review", true, "", nil},
		{"command", resume.Config{WakeOn: resume.WakeCommand}, "please review", true, "", []step{
			{"bob", "NONE", "thanks!", false, "1 new reply, no /recess ask from a maintainer among them (wake-on command): nothing to do"},
			{"bob", "NONE", "/recess ask", false, "2 new replies, no /recess ask from a maintainer among them (wake-on command): nothing to do"},
			{"maya", "MEMBER", "/recess ask\nwhat about backups?", true, ""},
		}},
	}
	said := func(res *resume.Result, note string) {
		t.Helper()
		for _, n := range res.Notes {
			if strings.Contains(n, "wake-on") && n != note {
				t.Errorf("note %q, want %q", n, note)
			}
		}
		if note != "" && !slices.Contains(res.Notes, note) {
			t.Errorf("notes %q lack %q", res.Notes, note)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			e := w.engine(tt.cfg)
			n := w.openDiscussion("alice")
			w.mu.Lock()
			w.discussions[n].Body = tt.body
			w.mu.Unlock()
			said(mustRun(t)(e.Intake(ctx, n)), tt.firstNote)
			if got := len(w.calls()) == 1; got != tt.firstRuns {
				t.Fatalf("new discussion dispatched %v, want %v", got, tt.firstRuns)
			}
			if tt.firstRuns {
				mustRun(t)(verdict(t, e, adjourned("c-1", n, "answered")))
			}
			for _, s := range tt.steps {
				before := len(w.calls())
				w.advance(time.Minute)
				w.say(n, s.author, s.assoc, "", s.body)
				said(mustRun(t)(e.Inbound(ctx, n)), s.note)
				if got := len(w.calls()) > before; got != s.wakes {
					t.Errorf("%s's %q woke recess: %v, want %v", s.author, s.body, got, s.wakes)
				}
			}
		})
	}
}

func TestParseWakeOn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", " ": "", "Mention": "mention", " command ": "command"} {
		if got, err := resume.ParseWakeOn(in); err != nil || got != want {
			t.Errorf("ParseWakeOn(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// Not given, each kind wakes on its own default.
	none, _ := resume.ParseWakeOn("")
	for k, want := range map[state.Kind]string{state.KindDiscussion: "comment", state.KindIssue: "mention", state.KindPullRequest: "mention"} {
		if got := resume.WakeOnOf(none, k); got != want {
			t.Errorf("wake-on not given on a %s: %q, want %q", k, got, want)
		}
	}
	_, err := resume.ParseWakeOn("reaction")
	var fe *wait.FieldError
	if !errors.As(err, &fe) || fe.Field != "wake-on" {
		t.Errorf("ParseWakeOn(%q) = %v, want an error naming wake-on", "reaction", err)
	}
}

// TestRunNameHas pins the one rule FindRun and FreshRun share: a
// correlation id is found in a run-name only as a whole token of the
// characters an id may hold, '.' among them (an id like "c-1.2" is valid,
// so "c-1" must not be found in it, nor "c-1" in "c-1.").
func TestRunNameHas(t *testing.T) {
	t.Parallel()
	fresh, resumed := resume.NewCorrelationID(), resume.NewResumeCorrelationID()
	tests := []struct {
		name, id   string
		has, fresh bool
	}{
		{name: "agent c-1", id: "c-1", has: true, fresh: true},
		{name: "c-1", id: "c-1", has: true, fresh: true},
		{name: "agent c-12", id: "c-1", fresh: true},
		{name: "agent xc-1", id: "c-1", fresh: true},
		{name: "agent c-1_b", id: "c-1", fresh: true},
		{name: "resume c-1: #4", id: "c-1", has: true, fresh: true},
		{name: "", id: "c-1", fresh: true},
		{name: "agent " + fresh, id: fresh, has: true, fresh: true},
		{name: "agent " + resumed, id: resumed, has: true},
		{name: "Answer discussion 12 (" + resumed + ")", id: resumed, has: true},
		{name: "agent r-12", id: "r-12", has: true, fresh: true}, // not a resume id's shape
		{name: "agent xr-0123456789abcdef0123", id: "r-0123456789abcdef0123", fresh: true},
		// A '.' ends a word: recess's ids never hold one, and a run-name
		// may end a sentence right after the id.
		{name: "agent c-1.2", id: "c-1", has: true, fresh: true},
		{name: "agent c-1.2", id: "c-1.2", has: true, fresh: true},
		{name: "c-12 then c-1.", id: "c-1", has: true, fresh: true},
		{name: "Agent run " + resumed + ".", id: resumed, has: true},
		{name: "agent " + resumed + ".1", id: resumed, has: true},
		{name: "agent v1." + resumed, id: resumed, has: true},
		{name: "agent " + resumed + "0", id: resumed, fresh: true},
		{name: "agent " + resumed + " (retry)", id: resumed, has: true},
	}
	for _, tt := range tests {
		if got := resume.RunNameHas(tt.name, tt.id); got != tt.has {
			t.Errorf("RunNameHas(%q, %q) = %v, want %v", tt.name, tt.id, got, tt.has)
		}
		if got := resume.FreshRun(tt.name); got != tt.fresh {
			t.Errorf("FreshRun(%q) = %v, want %v", tt.name, got, tt.fresh)
		}
	}
}
