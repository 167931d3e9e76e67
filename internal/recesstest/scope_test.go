package recesstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume"
)

// TestScope_categories_as_GitHub_reports_them: the categories setting
// matches the category GitHub reports for the discussion, read through the
// adapter from the schema-validating fake, by name or by slug, in any case;
// a discussion in another category gets no run and no status comment.
func TestScope_categories_as_GitHub_reports_them(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		categories []string
		category   string // the discussion's, by name ("" stays in General)
		want       bool   // served: dispatched with a status comment
	}{
		{"by_name", []string{"Ideas & Plans"}, "Ideas & Plans", true},
		{"by_name_in_another_case", []string{"iDEAS & pLANS"}, "Ideas & Plans", true},
		{"by_slug", []string{"ideas-plans"}, "Ideas & Plans", true},
		{"by_slug_in_another_case", []string{"IDEAS-PLANS"}, "Ideas & Plans", true},
		{"default_category_by_slug", []string{"Q-and-A", "GENERAL"}, "", true},
		{"other_category", []string{"Ideas & Plans"}, "", false},
		{"no_setting_serves_all", nil, "Ideas & Plans", true},
	}
	type outcome struct {
		Dispatched bool
		Runs       int
		Status     bool
	}
	for _, store := range bothStores {
		for _, tt := range tests {
			t.Run(store+"_"+tt.name, func(t *testing.T) {
				t.Parallel()
				w := New(t, Options{Store: store, Config: resume.Config{Categories: tt.categories}})
				if err := w.GH.AddCategory(Repo, "Ideas & Plans"); err != nil {
					t.Fatal(err)
				}
				n, id := w.Open("alice")
				if tt.category != "" {
					if err := w.GH.MoveDiscussion(id, tt.category); err != nil {
						t.Fatal(err)
					}
				}
				res := must(t)(w.Engine(nil).Engine.Intake(ctx, n))
				got := outcome{Dispatched: res.Dispatched, Runs: len(w.Runs()), Status: len(w.RecessComments(id)) > 0}
				want := outcome{}
				if tt.want {
					want = outcome{Dispatched: true, Runs: 1, Status: store == "comment"}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("intake with categories %q on a discussion in %q (-want +got):\n%s", tt.categories, tt.category, diff)
				}
			})
		}
	}
}
