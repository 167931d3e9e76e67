package githubfake

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGoAPIEditsState(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.g.AddAccount("dependabot[bot]", KindUser)
	d := mustDiscussion(t, w.g, "alice", "rfc")
	c := mustComment(t, w.g, d.ID, "dependabot[bot]", "bump")
	w.clock.Step(time.Minute)
	steps := []struct {
		name string
		do   func() error
	}{
		{name: "edit_comment", do: func() error { return w.g.EditComment(c.ID, "bumped") }},
		{name: "minimize_comment", do: func() error { return w.g.MinimizeComment(c.ID, "SPAM") }},
		{name: "react_twice", do: func() error {
			if err := w.g.React(c.ID, "alice", "HEART"); err != nil {
				return err
			}
			return w.g.React(c.ID, "alice", "HEART")
		}},
		{name: "react_discussion", do: func() error { return w.g.React(d.ID, "bob", "EYES") }},
		{name: "edit_discussion", do: func() error { return w.g.EditDiscussion(d.ID, "RFC 2", "new body") }},
		{name: "close_and_reopen", do: func() error {
			if err := w.g.CloseDiscussion(d.ID, ""); err != nil {
				return err
			}
			return w.g.ReopenDiscussion(d.ID)
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	cs, err := w.g.Comments(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := cs[0]
	if got.Body != "bumped" || !got.Minimized || got.MinimizedReason != "spam" || got.Author != "dependabot" ||
		!got.UpdatedAt.Equal(w.clock.Now()) || !got.CreatedAt.Equal(w.clock.Now().Add(-time.Minute)) {
		t.Errorf("comment = %+v", got)
	}
	if diff := cmp.Diff(map[string][]string{"HEART": {"alice"}}, got.Reactions); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
	snap, _ := w.g.Discussion(testRepo, 1)
	if snap.Title != "RFC 2" || snap.Body != "new body" || snap.Closed || snap.Reactions["EYES"][0] != "bob" {
		t.Errorf("discussion = %+v", snap)
	}
	bad := []struct {
		name string
		err  error
		want error
	}{
		{name: "unknown_classifier", err: w.g.MinimizeComment(c.ID, "BORING"), want: ErrInvalid},
		{name: "unknown_reaction", err: w.g.React(c.ID, "alice", "SMILE"), want: ErrInvalid},
		{name: "unknown_association", err: w.g.SetAssociation(testRepo, "alice", "ADMIN"), want: ErrInvalid},
		{name: "unknown_label", err: w.g.LabelDiscussion(d.ID, "nope"), want: ErrInvalid},
		{name: "edit_unknown_comment", err: w.g.EditComment("DC_nope", "x"), want: ErrUnknownComment},
		{name: "unknown_run", err: w.g.SetRunStatus(1, "completed", "success"), want: ErrUnknownRun},
		{name: "unknown_ref", err: func() error { _, err := w.g.Ref(testRepo, "nope"); return err }(), want: ErrUnknownRef},
	}
	for _, b := range bad {
		if !errors.Is(b.err, b.want) {
			t.Errorf("%s = %v, want %v", b.name, b.err, b.want)
		}
	}
	w.graphql(t, aliceToken, `{ viewer { login } }`, nil)
	w.g.ResetLog()
	if n := len(w.g.Requests()); n != 0 {
		t.Errorf("Requests() after ResetLog = %d entries", n)
	}
}

func TestParseSearch(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		query   string
		want    *searchQuery
		wantErr bool
	}{
		{query: `repo:octo/hello label:"recess:waiting" is:open`, want: &searchQuery{repos: []string{"octo/hello"}, labels: []string{"recess:waiting"}, states: []string{"open"}, sort: "created-desc"}},
		{query: `label:recess:waiting -label:bug is:unlocked`, want: &searchQuery{labels: []string{"recess:waiting"}, noLabels: []string{"bug"}, locked: &no, sort: "created-desc"}},
		{query: `"storage backend" is:locked author:alice sort:updated`, want: &searchQuery{words: []string{"storage backend"}, locked: &yes, author: "alice", sort: "updated-desc"}},
		{query: `in:title rfc sort:created-asc`, want: &searchQuery{words: []string{"rfc"}, sort: "created-asc"}},
		{query: `reactions:>5`, wantErr: true},
		{query: `is:answered`, wantErr: true},
		{query: `sort:comments`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			got, err := parseSearch(tt.query)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseSearch(%q) error = %v, want error %v", tt.query, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(searchQuery{})); diff != "" {
				t.Errorf("parseSearch(%q) (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func TestParseCreated(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		filter  string
		in, out []string
		wantErr bool
	}{
		{filter: "", in: []string{"2020-01-01T00:00:00Z"}},
		{filter: ">=2026-11-21T10:00:00Z", in: []string{"2026-11-21T10:00:00Z"}, out: []string{"2026-11-21T09:59:59Z"}},
		{filter: ">2026-11-21", in: []string{"2026-11-22T00:00:00Z"}, out: []string{"2026-11-21T23:59:59Z"}},
		{filter: "<2026-11-21", in: []string{"2026-11-20T23:59:59Z"}, out: []string{"2026-11-21T00:00:00Z"}},
		{filter: "<=2026-11-21", in: []string{"2026-11-21T23:59:59Z"}, out: []string{"2026-11-22T00:00:00Z"}},
		{filter: "2026-11-21", in: []string{"2026-11-21T12:00:00Z"}, out: []string{"2026-11-22T00:00:00Z"}},
		{filter: "2026-11-20..2026-11-21", in: []string{"2026-11-21T23:59:59Z"}, out: []string{"2026-11-22T00:00:00Z", "2026-11-19T23:59:59Z"}},
		{filter: ">=yesterday", wantErr: true},
		{filter: "a..b", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			t.Parallel()
			match, err := parseCreated(tt.filter)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseCreated(%q) error = %v, want error %v", tt.filter, err, tt.wantErr)
			}
			for _, s := range tt.in {
				if !match(at(s)) {
					t.Errorf("parseCreated(%q)(%s) = false, want true", tt.filter, s)
				}
			}
			for _, s := range tt.out {
				if match(at(s)) {
					t.Errorf("parseCreated(%q)(%s) = true, want false", tt.filter, s)
				}
			}
		})
	}
}

func TestGitRESTReads(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	oid, err := w.g.Commit(testRepo, "state", "seed", map[string]string{"x.json": "{}"})
	if err != nil {
		t.Fatal(err)
	}
	status, _, _ := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/git/commits/"+oid, nil)
	if status != 200 {
		t.Errorf("GET commit = %d", status)
	}
	req, _ := http.NewRequest(http.MethodGet, w.g.URL()+"repos/octo/hello/git/matching-refs/heads/", nil)
	req.Header.Set("Authorization", "token "+botToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET matching-refs = %d", resp.StatusCode)
	}
	_, _, blob := w.restCall(t, botToken, http.MethodPost, "repos/octo/hello/git/blobs", map[string]any{"content": "aGk=", "encoding": "base64"})
	status, _, got := w.restCall(t, botToken, http.MethodGet, "repos/octo/hello/git/blobs/"+blob["sha"].(string), nil)
	if status != 200 || got["content"] != "aGk=\n" || got["size"] != float64(2) {
		t.Errorf("GET blob = %d %v", status, got)
	}
	if status, _, _ := w.restCall(t, botToken, http.MethodDelete, "repos/octo/hello/git/refs/heads/state", nil); status != 204 {
		t.Errorf("DELETE ref = %d", status)
	}
	if status, _, _ := w.restCall(t, botToken, http.MethodDelete, "repos/octo/hello/git/refs/heads/state", nil); status != 422 {
		t.Errorf("DELETE missing ref = %d, want 422", status)
	}
}
