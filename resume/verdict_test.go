package resume

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/resume/wait"
)

// verdictLimits are the limits the verdict tests parse triggers with: the
// default max-recess, from a fixed moment.
func verdictLimits(t testing.TB) wait.TriggerLimits {
	t.Helper()
	d, err := wait.ParseDuration("P90D")
	if err != nil {
		t.Fatalf("ParseDuration(%q) = %v", "P90D", err)
	}
	return wait.TriggerLimits{MaxRecess: d, At: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
}

// verdictDoc builds a verdict document from the head fields and extra
// members (raw JSON, written as given so tests can break them).
func verdictDoc(kind string, extra ...string) string {
	members := append([]string{`"verdict":` + strconv.Quote(kind), `"correlation_id":"c-1"`, `"discussion_number":12`}, extra...)
	return "{" + strings.Join(members, ",") + "}"
}

func TestParseVerdictAccepts(t *testing.T) {
	t.Parallel()
	longBody := strings.Repeat("é", MaxReplyBody)
	tenReplies := make([]string, MaxReplies)
	wantTen := make([]VerdictReply, MaxReplies)
	for i := range tenReplies {
		tenReplies[i] = `{"body":"reply ` + strconv.Itoa(i) + `"}`
		wantTen[i] = VerdictReply{Body: "reply " + strconv.Itoa(i)}
	}
	longID := strings.Repeat("a", MaxIDLength)
	tests := []struct {
		name        string
		doc         string
		want        Verdict
		wantTrigger string // canonical TriggerJSON; "" for none
	}{
		{
			name: "adjourned_minimal",
			doc:  verdictDoc(VerdictAdjourned),
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12},
		},
		{
			name: "adjourned_with_replies_and_summary",
			doc: verdictDoc(VerdictAdjourned,
				`"replies":[{"body":"Use S3.","reply_to":"DC_kwDOA1b2c3=="},{"body":"Thanks <all> & --> \"you\""}]`,
				`"summary":"answered"`),
			want: Verdict{
				Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12,
				Replies: []VerdictReply{
					{Body: "Use S3.", ReplyTo: "DC_kwDOA1b2c3=="},
					{Body: `Thanks <all> & --> "you"`},
				},
				Summary: "answered",
			},
		},
		{
			name: "nulls_count_as_absent",
			doc:  verdictDoc(VerdictAdjourned, `"replies":null`, `"trigger":null`, `"summary":null`),
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12},
		},
		{
			name: "reply_to_null_is_top_level",
			doc:  verdictDoc(VerdictAdjourned, `"replies":[{"body":"hi","reply_to":null}]`),
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12, Replies: []VerdictReply{{Body: "hi"}}},
		},
		{
			name: "empty_reply_list",
			doc:  verdictDoc(VerdictAdjourned, `"replies":[]`),
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12},
		},
		{
			name: "key_order_and_whitespace_do_not_matter",
			doc:  " \n{ \"discussion_number\" : 7 ,\t\"correlation_id\":\"run.42_x-Y\", \"verdict\":\"adjourned\" }\n ",
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "run.42_x-Y", DiscussionNumber: 7},
		},
		{
			name: "escaped_surrogate_pair_and_multibyte",
			doc:  verdictDoc(VerdictAdjourned, `"replies":[{"body":"\ud83d\ude00 日本 \u00e9"}]`),
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12, Replies: []VerdictReply{{Body: "😀 日本 é"}}},
		},
		{
			name: "bounds_reached_exactly",
			doc: `{"verdict":"adjourned","correlation_id":"` + longID + `","discussion_number":2147483647,` +
				`"replies":[{"body":"` + longBody + `","reply_to":"` + longID + `"}],"summary":"` + strings.Repeat("ü", MaxSummary) + `"}`,
			want: Verdict{
				Verdict: VerdictAdjourned, CorrelationID: longID, DiscussionNumber: 2147483647,
				Replies: []VerdictReply{{Body: longBody, ReplyTo: longID}},
				Summary: strings.Repeat("ü", MaxSummary),
			},
		},
		{
			name: "max_replies",
			doc:  verdictDoc(VerdictAdjourned, `"replies":[`+strings.Join(tenReplies, ",")+`]`),
			want: Verdict{Verdict: VerdictAdjourned, CorrelationID: "c-1", DiscussionNumber: 12, Replies: wantTen},
		},
		{
			name: "recessed_missing_input",
			doc: verdictDoc(VerdictRecessed,
				`"replies":[{"body":"Which storage backend should we assume?","reply_to":"DC_kwDOabc"}]`,
				`"trigger":{"kind":"missing_input","replies":2}`,
				`"summary":"waiting for the storage owners"`),
			want: Verdict{
				Verdict: VerdictRecessed, CorrelationID: "c-1", DiscussionNumber: 12,
				Replies: []VerdictReply{{Body: "Which storage backend should we assume?", ReplyTo: "DC_kwDOabc"}},
				Summary: "waiting for the storage owners",
			},
			wantTrigger: `{"kind":"missing_input","replies":2}`,
		},
		{
			name:        "recessed_trigger_made_canonical",
			doc:         verdictDoc(VerdictRecessed, `"trigger":{"replies":1,"scope":"discussion","kind":"missing_input"}`),
			want:        Verdict{Verdict: VerdictRecessed, CorrelationID: "c-1", DiscussionNumber: 12},
			wantTrigger: `{"kind":"missing_input","replies":1}`,
		},
		{
			name: "recessed_composite",
			doc: verdictDoc(VerdictRecessed,
				`"trigger":{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}],"expires":"P30D","on_expire":"cancel"}`),
			want:        Verdict{Verdict: VerdictRecessed, CorrelationID: "c-1", DiscussionNumber: 12},
			wantTrigger: `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}],"expires":"P30D","on_expire":"cancel"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseVerdict([]byte(tt.doc), verdictLimits(t))
			if err != nil {
				t.Fatalf("ParseVerdict(%.200q) = %v, want no error", tt.doc, err)
			}
			if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreFields(Verdict{}, "Trigger", "TriggerJSON")); diff != "" {
				t.Errorf("ParseVerdict(%.200q) mismatch (-want +got):\n%s", tt.doc, diff)
			}
			if got.TriggerJSON == nil && tt.wantTrigger != "" || got.TriggerJSON != nil && string(got.TriggerJSON) != tt.wantTrigger {
				t.Errorf("ParseVerdict(%.200q).TriggerJSON = %s, want %s", tt.doc, got.TriggerJSON, tt.wantTrigger)
			}
			if (got.Trigger != nil) != (tt.wantTrigger != "") {
				t.Errorf("ParseVerdict(%.200q).Trigger = %v, want set: %v", tt.doc, got.Trigger, tt.wantTrigger != "")
			}
			if got.Trigger != nil {
				again, err := json.Marshal(got.Trigger)
				if err != nil || string(again) != string(got.TriggerJSON) {
					t.Errorf("json.Marshal(Trigger) = %s, %v, want %s", again, err, got.TriggerJSON)
				}
			}
		})
	}
}

func TestParseVerdictRefuses(t *testing.T) {
	t.Parallel()
	adj := func(extra ...string) string { return verdictDoc(VerdictAdjourned, extra...) }
	reply := func(body string) string { return `"replies":[{"body":` + body + `}]` }
	tests := []struct {
		name      string
		doc       string
		wantField string
	}{
		{"too_large", adj(`"summary":"` + strings.Repeat("a", MaxVerdictBytes) + `"`), "verdict"},
		{"empty_document", ``, "verdict"},
		{"not_json", `{"verdict":`, "verdict"},
		{"json_list", `[{"verdict":"adjourned"}]`, "verdict"},
		{"json_string", `"adjourned"`, "verdict"},
		{"json_null", `null`, "verdict"},
		{"unknown_field", adj(`"extra":1`), "verdict.extra"},
		{"field_names_are_case_sensitive", `{"Verdict":"adjourned","correlation_id":"c-1","discussion_number":12}`, "verdict.Verdict"},
		{"hostile_unknown_field_is_quoted", adj(`"a.b\n":1`), `verdict["a.b\n"]`},
		{"duplicate_key", `{"verdict":"recessed","verdict":"adjourned","correlation_id":"c-1","discussion_number":12}`, "verdict.verdict"},
		{"duplicate_key_after_null", adj(`"summary":null`, `"summary":"x"`), "verdict.summary"},
		{"trailing_object", adj() + `{}`, "verdict"},
		{"trailing_garbage", adj() + `x`, "verdict"},
		{"verdict_missing", `{"correlation_id":"c-1","discussion_number":12}`, "verdict.verdict"},
		{"verdict_null_is_missing", `{"verdict":null,"correlation_id":"c-1","discussion_number":12}`, "verdict.verdict"},
		{"verdict_unknown", verdictDoc("done"), "verdict.verdict"},
		{"verdict_wrong_case", verdictDoc("Adjourned"), "verdict.verdict"},
		{"verdict_not_string", `{"verdict":1,"correlation_id":"c-1","discussion_number":12}`, "verdict.verdict"},
		{"correlation_id_missing", `{"verdict":"adjourned","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_empty", `{"verdict":"adjourned","correlation_id":"","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_too_long", `{"verdict":"adjourned","correlation_id":"` + strings.Repeat("c", MaxIDLength+1) + `","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_space", `{"verdict":"adjourned","correlation_id":"c 1","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_slash", `{"verdict":"adjourned","correlation_id":"c/../1","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_marker_breaker", `{"verdict":"adjourned","correlation_id":"c-->","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_non_ascii", `{"verdict":"adjourned","correlation_id":"c-é","discussion_number":12}`, "verdict.correlation_id"},
		{"correlation_id_number", `{"verdict":"adjourned","correlation_id":12,"discussion_number":12}`, "verdict.correlation_id"},
		{"discussion_number_missing", `{"verdict":"adjourned","correlation_id":"c-1"}`, "verdict.discussion_number"},
		{"discussion_number_fraction", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":12.5}`, "verdict.discussion_number"},
		{"discussion_number_integral_fraction", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":12.0}`, "verdict.discussion_number"},
		{"discussion_number_exponent", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":1e1}`, "verdict.discussion_number"},
		{"discussion_number_string", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":"12"}`, "verdict.discussion_number"},
		{"discussion_number_zero", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":0}`, "verdict.discussion_number"},
		{"discussion_number_negative", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":-3}`, "verdict.discussion_number"},
		{"discussion_number_beyond_graphql_int", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":2147483648}`, "verdict.discussion_number"},
		{"discussion_number_huge", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":` + strings.Repeat("9", 400) + `}`, "verdict.discussion_number"},
		{"discussion_number_bool", `{"verdict":"adjourned","correlation_id":"c-1","discussion_number":true}`, "verdict.discussion_number"},
		{"replies_object", adj(`"replies":{"body":"hi"}`), "verdict.replies"},
		{"replies_string", adj(`"replies":"hi"`), "verdict.replies"},
		{"replies_too_many", adj(`"replies":[` + strings.Repeat(`{"body":"x"},`, MaxReplies) + `{"body":"x"}]`), "verdict.replies"},
		{"replies_huge_list", adj(`"replies":[` + strings.Repeat(`{"body":"x"},`, 50000) + `{"body":"x"}]`), "verdict.replies"},
		{"nested_past_the_decoders_own_depth", adj(`"replies":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001)), "verdict.replies" + strings.Repeat("[0]", 63)},
		{"reply_not_object", adj(`"replies":["hi"]`), "verdict.replies[0]"},
		{"reply_null", adj(`"replies":[null]`), "verdict.replies[0]"},
		{"reply_unknown_field", adj(`"replies":[{"body":"hi","reply_too":"DC_1"}]`), "verdict.replies[0].reply_too"},
		{"reply_duplicate_body", adj(`"replies":[{"body":"hi","body":"ho"}]`), "verdict.replies[0].body"},
		{"body_missing", adj(`"replies":[{"reply_to":"DC_1"}]`), "verdict.replies[0].body"},
		{"body_null", adj(`"replies":[{"body":null}]`), "verdict.replies[0].body"},
		{"body_empty", adj(`"replies":[{"body":"ok"},{"body":""}]`), "verdict.replies[1].body"},
		{"body_whitespace", adj(`"replies":[{"body":"ok"},{"body":"ok"},{"body":" \n\t\u00a0\u3000"}]`), "verdict.replies[2].body"},
		{"body_too_long", adj(reply(`"` + strings.Repeat("é", MaxReplyBody+1) + `"`)), "verdict.replies[0].body"},
		{"body_invalid_utf8", adj(reply("\"a\xffb\"")), "verdict.replies[0].body"},
		{"body_overlong_utf8", adj(reply("\"\xc0\xaf\"")), "verdict.replies[0].body"},
		{"body_lone_high_surrogate", adj(reply(`"a\ud800b"`)), "verdict.replies[0].body"},
		{"body_lone_low_surrogate", adj(reply(`"\udc00"`)), "verdict.replies[0].body"},
		{"body_reversed_surrogates", adj(reply(`"\udc00\ud800"`)), "verdict.replies[0].body"},
		{"body_high_surrogate_at_end", adj(reply(`"x\ud83d"`)), "verdict.replies[0].body"},
		{"body_nul", adj(reply(`"a\u0000b"`)), "verdict.replies[0].body"},
		{"body_number", adj(reply(`42`)), "verdict.replies[0].body"},
		{"reply_to_empty", adj(`"replies":[{"body":"hi","reply_to":""}]`), "verdict.replies[0].reply_to"},
		{"reply_to_bad_characters", adj(`"replies":[{"body":"hi","reply_to":"DC_kw/../x"}]`), "verdict.replies[0].reply_to"},
		{"reply_to_dot", adj(`"replies":[{"body":"hi","reply_to":"DC.1"}]`), "verdict.replies[0].reply_to"},
		{"reply_to_too_long", adj(`"replies":[{"body":"hi","reply_to":"` + strings.Repeat("D", MaxIDLength+1) + `"}]`), "verdict.replies[0].reply_to"},
		{"reply_to_number", adj(`"replies":[{"body":"hi","reply_to":7}]`), "verdict.replies[0].reply_to"},
		{"summary_too_long", adj(`"summary":"` + strings.Repeat("ü", MaxSummary+1) + `"`), "verdict.summary"},
		{"summary_invalid_utf8", adj("\"summary\":\"\xed\xa0\x80\""), "verdict.summary"},
		{"summary_nul", adj(`"summary":"\u0000"`), "verdict.summary"},
		{"summary_not_string", adj(`"summary":["a"]`), "verdict.summary"},
		{"adjourned_with_trigger", adj(`"trigger":{"kind":"missing_input","replies":2}`), "verdict.trigger"},
		{"recessed_without_trigger", verdictDoc(VerdictRecessed), "verdict.trigger"},
		{"recessed_with_null_trigger", verdictDoc(VerdictRecessed, `"trigger":null`), "verdict.trigger"},
		{"trigger_replies_zero", verdictDoc(VerdictRecessed, `"trigger":{"kind":"missing_input","replies":0}`), "trigger.replies"},
		{"trigger_child_duration", verdictDoc(VerdictRecessed, `"trigger":{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1H"}]}`), "trigger.of[0].elapsed"},
		{"trigger_unknown_kind", verdictDoc(VerdictRecessed, `"trigger":{"kind":"whenever"}`), "trigger.kind"},
		{"trigger_beyond_max_recess", verdictDoc(VerdictRecessed, `"trigger":{"kind":"elapsed","elapsed":"P1000D"}`), "trigger.elapsed"},
		{"trigger_not_object", verdictDoc(VerdictRecessed, `"trigger":"missing_input"`), "trigger"},
		{"bad_body_reported_before_bad_trigger", verdictDoc(VerdictRecessed, reply(`""`), `"trigger":{"kind":"whenever"}`), "verdict.replies[0].body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseVerdict([]byte(tt.doc), verdictLimits(t))
			var fe *wait.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseVerdict(%.120q) = %+v, %v, want a *FieldError for %s", tt.doc, got, err, tt.wantField)
			}
			if got != nil {
				t.Errorf("ParseVerdict(%.120q) returned a verdict with error %v", tt.doc, err)
			}
			if fe.Field != tt.wantField {
				t.Errorf("ParseVerdict(%.120q) error field = %q (%v), want %q", tt.doc, fe.Field, err, tt.wantField)
			}
		})
	}
}

func TestParseVerdictKeepsDurationErrors(t *testing.T) {
	t.Parallel()
	doc := verdictDoc(VerdictRecessed, `"trigger":{"kind":"elapsed","elapsed":"P1H"}`)
	_, err := ParseVerdict([]byte(doc), verdictLimits(t))
	var fe *wait.FieldError
	if !errors.As(err, &fe) || fe.Field != "trigger.elapsed" {
		t.Fatalf("ParseVerdict(%q) = %v, want a *FieldError on trigger.elapsed", doc, err)
	}
	var de *wait.FieldError
	if !errors.As(fe.Err, &de) || de.Field != `duration "P1H"` {
		t.Errorf("ParseVerdict(%q) = %v, want it to wrap the refused duration \"P1H\"", doc, err)
	}
}

func TestParseVerdictUsesPolicy(t *testing.T) {
	t.Parallel()
	lim := verdictLimits(t)
	lim.AllowedKinds = []string{wait.KindElapsed}
	doc := verdictDoc(VerdictRecessed, `"trigger":{"kind":"missing_input","replies":1}`)
	_, err := ParseVerdict([]byte(doc), lim)
	var fe *wait.FieldError
	if !errors.As(err, &fe) || fe.Field != "trigger.kind" {
		t.Errorf("ParseVerdict(%q) with only elapsed allowed = %v, want a *FieldError for trigger.kind", doc, err)
	}
}
