package wait

import (
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var testOpenedAt = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func testLimits(t testing.TB) TriggerLimits {
	return TriggerLimits{MaxRecess: mustDuration(t, "P90D"), At: testOpenedAt}
}

func durationPtr(t testing.TB, s string) *Duration {
	d := mustDuration(t, s)
	return &d
}

func TestParseTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		lim  func(testing.TB) TriggerLimits
		want func(testing.TB) *Trigger
		// canonical is what MarshalJSON writes; empty when it equals doc.
		canonical string
	}{
		{
			name: "missing_input_minimal",
			doc:  `{"kind":"missing_input","replies":2}`,
			want: func(testing.TB) *Trigger {
				return &Trigger{Kind: KindMissingInput, Replies: 2, Scope: ScopeDiscussion}
			},
		},
		{
			name: "missing_input_full",
			doc:  `{"kind":"missing_input","replies":2,"from":["alice","Bob-2","dependabot[bot]"],"scope":"thread"}`,
			want: func(testing.TB) *Trigger {
				return &Trigger{Kind: KindMissingInput, Replies: 2, From: []string{"alice", "Bob-2", "dependabot[bot]"}, Scope: ScopeThread}
			},
		},
		{
			name: "missing_input_scope_discussion_is_the_default",
			doc:  ` { "scope" : "discussion", "replies" : 1, "kind" : "missing_input" } `,
			want: func(testing.TB) *Trigger {
				return &Trigger{Kind: KindMissingInput, Replies: 1, Scope: ScopeDiscussion}
			},
			canonical: `{"kind":"missing_input","replies":1}`,
		},
		{
			name: "elapsed",
			doc:  `{"kind":"elapsed","elapsed":"P2D"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindElapsed, Elapsed: durationPtr(t, "P2D")}
			},
		},
		{
			name: "elapsed_at_max_recess",
			doc:  `{"kind":"elapsed","elapsed":"P90D"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindElapsed, Elapsed: durationPtr(t, "P90D")}
			},
		},
		{
			name: "elapsed_fraction_as_written",
			doc:  `{"kind":"elapsed","elapsed":"PT0,5H"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindElapsed, Elapsed: durationPtr(t, "PT0,5H")}
			},
		},
		{
			name: "escalation_needed",
			doc:  `{"kind":"escalation_needed","signal":"security-review"}`,
			want: func(testing.TB) *Trigger {
				return &Trigger{Kind: KindEscalationNeeded, Signal: "security-review"}
			},
		},
		{
			name: "expires_defaults_to_resume",
			doc:  `{"kind":"missing_input","replies":2,"expires":"P7D"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindMissingInput, Replies: 2, Scope: ScopeDiscussion, Expires: durationPtr(t, "P7D"), OnExpire: OnExpireResume}
			},
			canonical: `{"kind":"missing_input","replies":2,"expires":"P7D"}`,
		},
		{
			name: "expires_resume_is_the_default",
			doc:  `{"kind":"elapsed","elapsed":"P1D","expires":"P7D","on_expire":"resume"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindElapsed, Elapsed: durationPtr(t, "P1D"), Expires: durationPtr(t, "P7D"), OnExpire: OnExpireResume}
			},
			canonical: `{"kind":"elapsed","elapsed":"P1D","expires":"P7D"}`,
		},
		{
			name: "expires_cancel",
			doc:  `{"kind":"escalation_needed","signal":"x","expires":"P7D","on_expire":"cancel"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindEscalationNeeded, Signal: "x", Expires: durationPtr(t, "P7D"), OnExpire: OnExpireCancel}
			},
		},
		{
			name: "null_counts_as_missing",
			doc:  `{"kind":"missing_input","replies":2,"from":null,"scope":null,"expires":null,"on_expire":null,"elapsed":null}`,
			want: func(testing.TB) *Trigger {
				return &Trigger{Kind: KindMissingInput, Replies: 2, Scope: ScopeDiscussion}
			},
			canonical: `{"kind":"missing_input","replies":2}`,
		},
		{
			name: "any_all_nested_once",
			doc: `{"kind":"any","of":[{"kind":"missing_input","replies":2},` +
				`{"kind":"all","of":[{"kind":"elapsed","elapsed":"P1D"},{"kind":"escalation_needed","signal":"go","expires":"P3D","on_expire":"cancel"}]}],` +
				`"expires":"P14D","on_expire":"resume"}`,
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindAny, Of: []*Trigger{
					{Kind: KindMissingInput, Replies: 2, Scope: ScopeDiscussion},
					{Kind: KindAll, Of: []*Trigger{
						{Kind: KindElapsed, Elapsed: durationPtr(t, "P1D")},
						{Kind: KindEscalationNeeded, Signal: "go", Expires: durationPtr(t, "P3D"), OnExpire: OnExpireCancel},
					}},
				}, Expires: durationPtr(t, "P14D"), OnExpire: OnExpireResume}
			},
			canonical: `{"kind":"any","of":[{"kind":"missing_input","replies":2},` +
				`{"kind":"all","of":[{"kind":"elapsed","elapsed":"P1D"},{"kind":"escalation_needed","signal":"go","expires":"P3D","on_expire":"cancel"}]}],` +
				`"expires":"P14D"}`,
		},
		{
			name: "allowed_kinds",
			doc:  `{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"}]}`,
			lim: func(t testing.TB) TriggerLimits {
				lim := testLimits(t)
				lim.AllowedKinds = []string{KindAny, KindElapsed}
				return lim
			},
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindAny, Of: []*Trigger{{Kind: KindElapsed, Elapsed: durationPtr(t, "P1D")}}}
			},
		},
		{
			name: "no_max_recess",
			doc:  `{"kind":"elapsed","elapsed":"P5Y"}`,
			lim:  func(testing.TB) TriggerLimits { return TriggerLimits{At: testOpenedAt} },
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindElapsed, Elapsed: durationPtr(t, "P5Y")}
			},
		},
		{
			name: "max_recess_is_calendar_arithmetic",
			doc:  `{"kind":"elapsed","elapsed":"P28D"}`,
			lim: func(t testing.TB) TriggerLimits {
				return TriggerLimits{At: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), MaxRecess: mustDuration(t, "P1M")}
			},
			want: func(t testing.TB) *Trigger {
				return &Trigger{Kind: KindElapsed, Elapsed: durationPtr(t, "P28D")}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lim := testLimits(t)
			if tt.lim != nil {
				lim = tt.lim(t)
			}
			got, err := ParseTrigger([]byte(tt.doc), lim)
			if err != nil {
				t.Fatalf("ParseTrigger(%q) error = %v", tt.doc, err)
			}
			if diff := cmp.Diff(tt.want(t), got); diff != "" {
				t.Errorf("ParseTrigger(%q) mismatch (-want +got):\n%s", tt.doc, diff)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("json.Marshal(ParseTrigger(%q)) error = %v", tt.doc, err)
			}
			want := tt.canonical
			if want == "" {
				want = tt.doc
			}
			if string(out) != want {
				t.Errorf("json.Marshal(ParseTrigger(%q)) = %s, want %s", tt.doc, out, want)
			}
			again, err := ParseTrigger(out, lim)
			if err != nil {
				t.Fatalf("ParseTrigger(%s) error = %v", out, err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("ParseTrigger(MarshalJSON(%q)) mismatch (-first +again):\n%s", tt.doc, diff)
			}
		})
	}
}

func TestParseTriggerRefused(t *testing.T) {
	t.Parallel()
	deep := `{"kind":"missing_input","replies":1,"x":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`
	tests := []struct {
		name   string
		doc    string
		lim    func(testing.TB) TriggerLimits
		field  string
		reason string
		// duration is set when the refusal is a bad duration.
		duration bool
	}{
		{name: "empty", doc: ``, field: "trigger", reason: "empty document"},
		{name: "not_json", doc: `kind: elapsed`, field: "trigger", reason: "invalid JSON: invalid character 'k' at start of value"},
		{name: "not_an_object", doc: `["kind"]`, field: "trigger", reason: "not a JSON object"},
		{name: "null_document", doc: `null`, field: "trigger", reason: "not a JSON object"},
		{name: "trailing_data", doc: `{"kind":"elapsed","elapsed":"P1D"} {}`, field: "trigger", reason: "trailing data after the object"},
		{name: "trailing_garbage", doc: `{"kind":"elapsed","elapsed":"P1D"}x`, field: "trigger", reason: "trailing data after the object"},
		{name: "truncated", doc: `{"kind":"elapsed","elapsed":"P1D"`, field: "trigger", reason: "invalid JSON: unexpected EOF"},
		{name: "too_large", doc: `{"kind":"elapsed","elapsed":"P1D"` + strings.Repeat(" ", 8<<10) + `}`, field: "trigger", reason: "document is larger than 8 KiB"},
		{name: "too_deep", doc: deep, field: "trigger.x[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]", reason: "nested too deeply"},
		{name: "many_fields", doc: `{"kind":"missing_input","replies":1` + manyFields(40) + `}`, field: "trigger.f0", reason: "unknown field"},
		{name: "from_too_long_list", doc: `{"kind":"missing_input","replies":1,"from":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 101), ",") + `]}`,
			field: "trigger.from", reason: "lists more than 100 logins"},
		{name: "duplicated_key", doc: `{"kind":"missing_input","replies":2,"replies":3}`, field: "trigger.replies", reason: "duplicated key"},
		{name: "duplicated_kind", doc: `{"kind":"elapsed","kind":"missing_input","replies":1}`, field: "trigger.kind", reason: "duplicated key"},
		{name: "missing_kind", doc: `{"replies":2}`, field: "trigger.kind", reason: "missing"},
		{name: "null_kind", doc: `{"kind":null,"replies":2}`, field: "trigger.kind", reason: "missing"},
		{name: "kind_not_a_string", doc: `{"kind":1}`, field: "trigger.kind", reason: "must be a string"},
		{name: "unknown_kind", doc: `{"kind":"later"}`, field: "trigger.kind",
			reason: `unknown kind "later" (want missing_input, elapsed, escalation_needed, any or all)`},
		{name: "kind_is_case_sensitive", doc: `{"kind":"Elapsed","elapsed":"P1D"}`, field: "trigger.kind",
			reason: `unknown kind "Elapsed" (want missing_input, elapsed, escalation_needed, any or all)`},
		{name: "unknown_field", doc: `{"kind":"elapsed","elapsed":"P1D","foo":1}`, field: "trigger.foo", reason: "unknown field"},
		{name: "unknown_null_field", doc: `{"kind":"elapsed","elapsed":"P1D","foo":null}`, field: "trigger.foo", reason: "unknown field"},
		{name: "unknown_field_odd_name", doc: `{"kind":"elapsed","elapsed":"P1D","a.b\n":1}`, field: `trigger["a.b\n"]`, reason: "unknown field"},
		{name: "field_of_another_kind", doc: `{"kind":"missing_input","replies":2,"elapsed":"P1D"}`, field: "trigger.elapsed", reason: "not allowed for kind missing_input"},
		{name: "of_on_a_leaf", doc: `{"kind":"elapsed","elapsed":"P1D","of":[]}`, field: "trigger.of", reason: "not allowed for kind elapsed"},
		{name: "replies_missing", doc: `{"kind":"missing_input"}`, field: "trigger.replies", reason: "missing"},
		{name: "replies_zero", doc: `{"kind":"missing_input","replies":0}`, field: "trigger.replies", reason: "must be at least 1"},
		{name: "replies_negative", doc: `{"kind":"missing_input","replies":-3}`, field: "trigger.replies", reason: "must be at least 1"},
		{name: "replies_fraction", doc: `{"kind":"missing_input","replies":2.5}`, field: "trigger.replies", reason: "must be an integer"},
		{name: "replies_float_integer", doc: `{"kind":"missing_input","replies":2.0}`, field: "trigger.replies", reason: "must be an integer"},
		{name: "replies_exponent", doc: `{"kind":"missing_input","replies":1e1}`, field: "trigger.replies", reason: "must be an integer"},
		{name: "replies_string", doc: `{"kind":"missing_input","replies":"2"}`, field: "trigger.replies", reason: "must be an integer"},
		{name: "replies_huge", doc: `{"kind":"missing_input","replies":99999999999999999999999}`, field: "trigger.replies", reason: "must be at most 10000"},
		{name: "from_not_a_list", doc: `{"kind":"missing_input","replies":1,"from":"alice"}`, field: "trigger.from", reason: "must be a list of GitHub logins"},
		{name: "from_empty", doc: `{"kind":"missing_input","replies":1,"from":[]}`, field: "trigger.from", reason: "must list at least one login (leave it out to count everyone)"},
		{name: "from_empty_login", doc: `{"kind":"missing_input","replies":1,"from":["alice",""]}`, field: "trigger.from[1]", reason: "must be a GitHub login"},
		{name: "from_double_hyphen", doc: `{"kind":"missing_input","replies":1,"from":["a","b","al--ice"]}`, field: "trigger.from[2]", reason: "must be a GitHub login"},
		{name: "from_leading_hyphen", doc: `{"kind":"missing_input","replies":1,"from":["-alice"]}`, field: "trigger.from[0]", reason: "must be a GitHub login"},
		{name: "from_trailing_hyphen", doc: `{"kind":"missing_input","replies":1,"from":["alice-"]}`, field: "trigger.from[0]", reason: "must be a GitHub login"},
		{name: "from_deleted_account", doc: `{"kind":"missing_input","replies":1,"from":["ghost"]}`, field: "trigger.from[0]",
			reason: `"ghost" is the name GitHub shows for every deleted account, not a person's login`},
		{name: "from_deleted_account_as_an_app", doc: `{"kind":"any","of":[{"kind":"missing_input","replies":1,"from":["alice","GHOST[bot]"]}]}`,
			field: "trigger.of[0].from[1]", reason: `"GHOST[bot]" is the name GitHub shows for every deleted account, not a person's login`},
		{name: "from_too_long", doc: `{"kind":"missing_input","replies":1,"from":["` + strings.Repeat("a", 40) + `"]}`, field: "trigger.from[0]", reason: "must be a GitHub login"},
		{name: "from_bare_bot_suffix", doc: `{"kind":"missing_input","replies":1,"from":["[bot]"]}`, field: "trigger.from[0]", reason: "must be a GitHub login"},
		{name: "from_not_a_string", doc: `{"kind":"missing_input","replies":1,"from":[7]}`, field: "trigger.from[0]", reason: "must be a GitHub login"},
		{name: "from_underscore", doc: `{"kind":"missing_input","replies":1,"from":["al_ice"]}`, field: "trigger.from[0]", reason: "must be a GitHub login"},
		{name: "scope_unknown", doc: `{"kind":"missing_input","replies":1,"scope":"repo"}`, field: "trigger.scope", reason: `must be "discussion" or "thread"`},
		{name: "elapsed_missing", doc: `{"kind":"elapsed"}`, field: "trigger.elapsed", reason: "missing"},
		{name: "elapsed_not_a_string", doc: `{"kind":"elapsed","elapsed":86400}`, field: "trigger.elapsed", reason: "must be an ISO-8601 duration string"},
		{name: "elapsed_bare_p", doc: `{"kind":"elapsed","elapsed":"P"}`, field: "trigger.elapsed", reason: `invalid duration "P": no date or time components`, duration: true},
		{name: "elapsed_bare_pt", doc: `{"kind":"elapsed","elapsed":"PT"}`, field: "trigger.elapsed", reason: `invalid duration "PT": T must be followed by a time component (H, M or S)`, duration: true},
		{name: "elapsed_zero", doc: `{"kind":"elapsed","elapsed":"PT0S"}`, field: "trigger.elapsed", reason: `invalid duration "PT0S": a zero duration is not allowed`, duration: true},
		{name: "elapsed_over_max_recess", doc: `{"kind":"elapsed","elapsed":"P91D"}`, field: "trigger.elapsed", reason: "P91D is longer than max-recess P90D"},
		{name: "elapsed_year_over_max_recess", doc: `{"kind":"elapsed","elapsed":"P1Y"}`, field: "trigger.elapsed", reason: "P1Y is longer than max-recess P90D"},
		{name: "elapsed_just_over_max_recess", doc: `{"kind":"elapsed","elapsed":"P90DT1S"}`, field: "trigger.elapsed", reason: "P90DT1S is longer than max-recess P90D"},
		{
			name: "max_recess_month_end", doc: `{"kind":"elapsed","elapsed":"P29D"}`,
			lim: func(t testing.TB) TriggerLimits {
				return TriggerLimits{At: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), MaxRecess: mustDuration(t, "P1M")}
			},
			field: "trigger.elapsed", reason: "P29D is longer than max-recess P1M",
		},
		{name: "signal_missing", doc: `{"kind":"escalation_needed"}`, field: "trigger.signal", reason: "missing"},
		{name: "signal_empty", doc: `{"kind":"escalation_needed","signal":""}`, field: "trigger.signal", reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"},
		{name: "signal_any", doc: `{"kind":"escalation_needed","signal":"*"}`, field: "trigger.signal", reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"},
		{name: "signal_space", doc: `{"kind":"escalation_needed","signal":"security review"}`, field: "trigger.signal", reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"},
		{name: "signal_too_long", doc: `{"kind":"escalation_needed","signal":"` + strings.Repeat("s", 65) + `"}`, field: "trigger.signal", reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"},
		{name: "signal_not_a_string", doc: `{"kind":"escalation_needed","signal":["x"]}`, field: "trigger.signal", reason: "must be a string"},
		{name: "of_missing", doc: `{"kind":"any"}`, field: "trigger.of", reason: "missing"},
		{name: "of_empty", doc: `{"kind":"all","of":[]}`, field: "trigger.of", reason: "must list at least one trigger"},
		{name: "of_not_a_list", doc: `{"kind":"all","of":{"kind":"elapsed","elapsed":"P1D"}}`, field: "trigger.of", reason: "must be a list of triggers"},
		{name: "of_too_long", doc: `{"kind":"any","of":[` + strings.TrimSuffix(strings.Repeat(`{"kind":"elapsed","elapsed":"P1D"},`, 17), ",") + `]}`,
			field: "trigger.of", reason: "lists more than 16 triggers"},
		{name: "of_child_not_an_object", doc: `{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"},"elapsed"]}`, field: "trigger.of[1]", reason: "must be a JSON object"},
		{name: "of_child_bad_duration", doc: `{"kind":"any","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P1H"}]}`,
			field: "trigger.of[1].elapsed", reason: `invalid duration "P1H": designator H belongs after T (PT1H)`, duration: true},
		{name: "of_child_bad_login", doc: `{"kind":"any","of":[{"kind":"missing_input","replies":1,"from":["a","b","c d"]}]}`,
			field: "trigger.of[0].from[2]", reason: "must be a GitHub login"},
		{name: "nested_three_composites", doc: `{"kind":"any","of":[{"kind":"all","of":[{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"}]}]}]}`,
			field: "trigger.of[0].of[0].kind", reason: "composites nest one level at most (any inside a composite inside a composite)"},
		{name: "on_expire_without_expires", doc: `{"kind":"elapsed","elapsed":"P1D","on_expire":"cancel"}`, field: "trigger.on_expire", reason: "needs expires"},
		{name: "on_expire_unknown", doc: `{"kind":"elapsed","elapsed":"P1D","expires":"P2D","on_expire":"later"}`, field: "trigger.on_expire", reason: `must be "resume" or "cancel"`},
		{name: "expires_bad", doc: `{"kind":"elapsed","elapsed":"P1D","expires":"1D"}`, field: "trigger.expires", reason: `invalid duration "1D": must start with P`, duration: true},
		{name: "expires_negative", doc: `{"kind":"elapsed","elapsed":"P1D","expires":"-P1D"}`, field: "trigger.expires", reason: `invalid duration "-P1D": negative durations are not allowed`, duration: true},
		{name: "expires_over_max_recess", doc: `{"kind":"missing_input","replies":1,"expires":"P13W"}`, field: "trigger.expires", reason: "P13W is longer than max-recess P90D"},
		{name: "child_expires_over_max_recess", doc: `{"kind":"all","of":[{"kind":"missing_input","replies":1,"expires":"P3M"}]}`, field: "trigger.of[0].expires", reason: "P3M is longer than max-recess P90D"},
		{
			name: "kind_not_allowed", doc: `{"kind":"elapsed","elapsed":"P1D"}`,
			lim: func(t testing.TB) TriggerLimits {
				lim := testLimits(t)
				lim.AllowedKinds = []string{KindMissingInput}
				return lim
			},
			field: "trigger.kind", reason: `kind "elapsed" is not allowed by policy`,
		},
		{
			name: "composite_not_allowed", doc: `{"kind":"any","of":[{"kind":"missing_input","replies":1}]}`,
			lim: func(t testing.TB) TriggerLimits {
				lim := testLimits(t)
				lim.AllowedKinds = []string{KindMissingInput}
				return lim
			},
			field: "trigger.kind", reason: `kind "any" is not allowed by policy`,
		},
		{
			name: "child_kind_not_allowed", doc: `{"kind":"any","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P1D"}]}`,
			lim: func(t testing.TB) TriggerLimits {
				lim := testLimits(t)
				lim.AllowedKinds = []string{KindAny, KindMissingInput}
				return lim
			},
			field: "trigger.of[1].kind", reason: `kind "elapsed" is not allowed by policy`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lim := testLimits(t)
			if tt.lim != nil {
				lim = tt.lim(t)
			}
			got, err := ParseTrigger([]byte(tt.doc), lim)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseTrigger(%q) = %v, %v, want a *FieldError", tt.doc, got, err)
			}
			if got != nil {
				t.Errorf("ParseTrigger(%q) trigger = %v, want nil", tt.doc, got)
			}
			if fe.Field != tt.field || fe.Reason != tt.reason {
				t.Errorf("ParseTrigger(%q) error field, reason = %q, %q, want %q, %q", tt.doc, fe.Field, fe.Reason, tt.field, tt.reason)
			}
			var de *FieldError
			if gotDuration := errors.As(fe.Err, &de) && strings.HasPrefix(de.Field, "duration "); gotDuration != tt.duration {
				t.Errorf("ParseTrigger(%q) error wraps a refused duration = %v, want %v", tt.doc, gotDuration, tt.duration)
			}
		})
	}
}

func manyFields(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,"f%d":0`, i)
	}
	return b.String()
}

func TestParseTriggerJSONSyntaxError(t *testing.T) {
	t.Parallel()
	doc := `{"kind":"elapsed",,}`
	_, err := ParseTrigger([]byte(doc), testLimits(t))
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		t.Errorf("ParseTrigger(%q) error = %v, want one wrapping a *jsontext.SyntacticError", doc, err)
	}
}

func TestValidLogin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"alice", true},
		{"Alice-Bob-1", true},
		{strings.Repeat("a", 39), true},
		{strings.Repeat("a", 39) + "[bot]", true},
		{"github-actions[bot]", true},
		{"", false},
		{strings.Repeat("a", 40), false},
		{"-a", false},
		{"a-", false},
		{"a--b", false},
		{"a_b", false},
		{"a.b", false},
		{"[bot]", false},
		{"a[bot][bot]", false},
		{"ali ce", false},
		{"alicé", false},
	}
	for _, tt := range tests {
		t.Run(strings.NewReplacer("[", "_", "]", "_").Replace(tt.in), func(t *testing.T) {
			t.Parallel()
			if got := ValidLogin(tt.in); got != tt.want {
				t.Errorf("ValidLogin(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestTriggerMarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *Trigger
		want string
	}{
		{name: "nil", in: nil, want: `null`},
		{name: "hand_built_duration", in: &Trigger{Kind: KindElapsed, Elapsed: &Duration{Days: 1, Clock: 6 * time.Hour}}, want: `{"kind":"elapsed","elapsed":"P1DT6H"}`},
		{name: "hand_built_expiry_without_on_expire", in: &Trigger{Kind: KindEscalationNeeded, Signal: "go", Expires: &Duration{Weeks: 1}},
			want: `{"kind":"escalation_needed","signal":"go","expires":"P1W"}`},
		{name: "empty_scope", in: &Trigger{Kind: KindMissingInput, Replies: 3}, want: `{"kind":"missing_input","replies":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.in.MarshalJSON()
			if err != nil || string(got) != tt.want {
				t.Errorf("MarshalJSON(%v) = %s, %v, want %s, nil", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestTriggerMarshalJSONRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *Trigger
	}{
		{name: "unknown_kind", in: &Trigger{Kind: "later"}},
		{name: "elapsed_without_duration", in: &Trigger{Kind: KindElapsed}},
		{name: "nil_child", in: &Trigger{Kind: KindAny, Of: []*Trigger{nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, err := tt.in.MarshalJSON(); err == nil {
				t.Errorf("MarshalJSON(%v) = %s, nil, want an error", tt.in, got)
			}
		})
	}
}

// CheckKind is the one rule of what a trigger kind is: verdicts, the policy
// file's allowed-kinds and recess mcp's --allowed-kinds all ask it.
func TestCheckKind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind string
		ok   bool
	}{
		{KindMissingInput, true},
		{KindElapsed, true},
		{KindEscalationNeeded, true},
		{KindAny, true},
		{KindAll, true},
		{"Elapsed", false},
		{"someday", false},
		{"", false},
	} {
		if err := CheckKind(tt.kind); (err == nil) != tt.ok {
			t.Errorf("CheckKind(%q) = %v, want ok %v", tt.kind, err, tt.ok)
		}
	}
}
