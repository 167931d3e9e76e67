package github

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// TestDocumentsValidAgainstSchema drives every GraphQL query and mutation the
// client can send (each paginating follow-up included) against the test
// server, which captures them, then validates every captured document, with
// its variables, against GitHub's schema. A field, argument or variable type
// GitHub does not know fails it. (The test server also refuses invalid
// documents as they arrive, so every other test checks the same.)
func TestDocumentsValidAgainstSchema(t *testing.T) {
	t.Parallel()
	h := newHub(t)
	ctx := context.Background()
	h.addLabel(resume.LabelWaiting)
	h.addLabel("recess:escalated")
	d1 := h.addDiscussion(1)
	var first *hubComment
	for i := range 150 {
		c := h.comment(d1, "", "alice", "comment", false)
		if i == 0 {
			first = c
		}
	}
	for range 120 {
		h.comment(d1, first.id, "bob", "reply", false)
	}
	d2 := h.addDiscussion(2)
	ours := h.comment(d1, "", "github-actions", "a note of recess's", true)

	c := h.client(t, nil)
	store := NewCommentStore(c)
	steps := []struct {
		name string
		run  func() error
	}{
		{"discussion_with_pages", func() error { _, err := c.Thread(ctx, resume.DiscussionRef(1)); return err }},
		{"reply_under_a_comment", func() error {
			_, err := h.client(t, nil).Reply(ctx, &resume.Thread{ID: d1.id}, first.id, "threaded")
			return err
		}},
		{"react", func() error { return c.React(ctx, first.id, resume.Eyes) }},
		{"unreact", func() error { return c.Unreact(ctx, first.id, resume.Eyes) }},
		{"reacted", func() error { _, err := c.Reacted(ctx, []string{first.id, d1.id}, resume.Eyes); return err }},
		{"edit", func() error { return c.Edit(ctx, ours.id, "edited") }},
		{"label", func() error { return c.Label(ctx, &resume.Thread{ID: d2.id}, "recess:escalated") }},
		{"unlabel", func() error { return c.Unlabel(ctx, &resume.Thread{ID: d2.id}, "recess:escalated") }},
		{"save_create", func() error { return store.Save(ctx, pendingRecord(2)) }},
		{"load_and_save_update", func() error {
			rec, err := store.Load(ctx, 2)
			if err != nil {
				return err
			}
			rec.Applied = append(rec.Applied, "c-1")
			return store.Save(ctx, rec)
		}},
		{"save_revision_read_elsewhere", func() error {
			rec, err := store.Load(ctx, 2)
			if err != nil {
				return err
			}
			rec.Applied = append(rec.Applied, "c-2")
			return NewCommentStore(h.client(t, nil)).Save(ctx, rec)
		}},
		{"activity", func() error {
			_, err := c.Activity(ctx, []state.Summary{{Discussion: 1, ThreadRoots: []string{first.id}}, {Discussion: 2}})
			return err
		}},
		{"pending_search", func() error { _, err := store.Pending(ctx); return err }},
		{"overlooked", func() error { _, err := NewCommentStore(h.client(t, nil)).Overlooked(ctx); return err }},
		{"setup", func() error { _, err := c.Setup(ctx); return err }},
		{"pending_deep_status_comment", func() error {
			d3 := h.addDiscussion(3)
			for range scanFirst + 1 {
				h.comment(d3, "", "alice", "comment", false)
			}
			plant(t, h, d3, dueRecord(3, epoch), true)
			for range scanLast + 1 {
				h.comment(d3, "", "bob", "comment", false)
			}
			h.edit(func() { d3.labels[resume.LabelWaiting] = true })
			list, err := NewCommentStore(h.client(t, nil)).Pending(ctx)
			if err == nil && !slices.ContainsFunc(list, func(s state.Summary) bool { return s.Discussion == 3 && s.Known }) {
				t.Errorf("Pending() = %v, want discussion 3 known", list)
			}
			return err
		}},
		{"save_moves_a_stray_status_comment", func() error {
			// A status comment past the first 100 top-level comments and
			// the last 100: the next save moves it to the end.
			d4 := h.addDiscussion(4)
			for range scanFirst + 1 {
				h.comment(d4, "", "alice", "comment", false)
			}
			plant(t, h, d4, pendingRecord(4), true)
			for range scanLast + 1 {
				h.comment(d4, "", "bob", "comment", false)
			}
			rec, err := store.Load(ctx, 4)
			if err != nil {
				return err
			}
			rec.Applied = append(rec.Applied, "c-4")
			return store.Save(ctx, rec)
		}},
		{"create_label", func() error {
			// A label the discussion's read knows nothing of is looked up,
			// the repository's id with it, and created.
			return h.client(t, nil).Label(ctx, &resume.Thread{ID: h.discs[1].id}, "recess:new")
		}},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}

	docs := map[string]bool{}
	roots := map[string]bool{}
	for _, cl := range h.Calls() {
		if cl.Kind != "graphql" {
			continue
		}
		if _, err := validate(h.schema, cl.Query, cl.Vars); err != nil {
			t.Errorf("%v\n%s", err, cl.Query)
		}
		docs[cl.Query] = true
		roots[cl.Method+" "+cl.Root] = true
	}
	want := []string{
		"mutation addDiscussionComment",
		"mutation addLabelsToLabelable",
		"mutation addReaction",
		"mutation createLabel",
		"mutation deleteDiscussionComment",
		"mutation removeLabelsFromLabelable",
		"mutation removeReaction",
		"mutation updateDiscussionComment",
		"query node",
		"query nodes",
		"query repository",
		"query search",
	}
	if diff := cmp.Diff(want, keys(roots)); diff != "" {
		t.Errorf("root fields sent (-want +got):\n%s", diff)
	}
	// The client's documents: discussion, comment page, reply page,
	// comments by id (a reply's parent, the status re-read, the sweep's
	// candidates), label lookup, search, a further page of a discussion's
	// comments for the status comment, recently updated discussions,
	// activity, recess's own reactions, the agent workflow's blob (Setup),
	// and eight mutations. A new document must be driven above, and this
	// count raised.
	if got, want := len(docs), 19; got != want {
		t.Errorf("distinct documents sent = %d, want %d:\n%s", got, want, strings.Join(keys(docs), "\n"))
	}
}

// The scan's connection sizes are literals in scanNode's tags; they must be
// the constants the rest of the store reasons with.
func TestScanLiterals(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[scanNode]()
	for field, want := range map[string]string{
		"First": fmt.Sprintf("comments(first: %d)", scanFirst),
		"Last":  fmt.Sprintf("comments(last: %d)", scanLast),
	} {
		f, _ := typ.FieldByName(field)
		if tag := f.Tag.Get("graphql"); !strings.Contains(tag, want) {
			t.Errorf("scanNode.%s tag = %q, want it to hold %q", field, tag, want)
		}
	}
}

// TestValidatorRefusesUnknownField makes sure the validation above has
// teeth: a document with a field GitHub does not have is refused.
func TestValidatorRefusesUnknownField(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	tests := []struct {
		name  string
		query string
		vars  map[string]any
	}{
		{"unknown_field", `query($id:ID!){node(id:$id){... on DiscussionComment{id bodyy}}}`, map[string]any{"id": "x"}},
		{"wrong_variable_type", `query($n:String!){repository(owner:"o",name:"r"){discussion(number:$n){id}}}`, map[string]any{"n": "1"}},
		{"missing_variable", `query($n:Int!){repository(owner:"o",name:"r"){discussion(number:$n){id}}}`, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := validate(schema, tt.query, tt.vars); err == nil {
				t.Errorf("validate(%q) = nil, want an error", tt.query)
			}
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pendingRecord is a record with an active run: pending, due at once.
func pendingRecord(n int) *state.Record {
	rec := state.New(n)
	rec.Active = &state.Run{CorrelationID: "c-1", State: state.RunDispatching, IntentAt: epoch, Attempt: 1}
	rec.UpdatedAt = epoch
	return rec
}

// The fake GitHub declares the agent workflow under the name recess
// dispatches by default (it cannot import this package).
func TestFakeDefaultWorkflow(t *testing.T) {
	t.Parallel()
	if githubfake.DefaultWorkflow != DefaultWorkflow {
		t.Errorf("githubfake.DefaultWorkflow = %q, want %q", githubfake.DefaultWorkflow, DefaultWorkflow)
	}
}
