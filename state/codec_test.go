package state_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"

	"github.com/recess-action/recess/resume/wait"
)

// recordOpts compare records after a trip through the wire form: times by
// instant, nil and empty alike, Rev aside (not part of the wire form).
var recordOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(state.Record{}, "Rev"),
}

var zone = time.FixedZone("UTC-7", -7*60*60)

func ptr[T any](v T) *T { return &v }

// sample is a record with the fields a real one has, times away from UTC.
func sample() *state.Record {
	at := time.Date(2026, 11, 21, 3, 0, 0, 987654321, zone)
	return &state.Record{
		Schema:       state.Schema,
		Discussion:   12,
		DiscussionID: "D_kwDOJ6b3Ys4AXyZt",
		Seen:         state.Cursor{At: at, IDs: []string{"DC_1", "DC_2"}},
		Active: &state.Run{
			CorrelationID: "c-2", State: state.RunDispatching, IntentAt: at,
			Since: state.Cursor{At: at.Add(-time.Hour)}, Until: state.Cursor{At: at},
			Resume:  &state.Resume{CorrelationID: "c-1", FiredBy: "elapsed", FiredAt: at, Trigger: storetest.MustTrigger(`{"kind":"elapsed","elapsed":"P2D"}`), RecessCount: 1},
			Attempt: 1,
		},
		OpenRFCs: map[string]*state.RFC{
			"c-3": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":2}`), OpenedAt: at, DueAt: ptr(at.Add(time.Hour)), RecessCount: 1, ReplyIDs: []string{"DC_9"}},
		},
		Dispatches: []time.Time{at},
		Applied:    []string{"c-0"},
		Commands:   state.Cursor{At: at},
		Checked:    at,
		UpdatedAt:  at,
		Status:     "⏸ Waiting for 2 more replies",
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	hostile := "--> <!-- recess:state v1 --> \x00 \" \\ \u2028 \U0001F600 <script>&"
	tests := []struct {
		name   string
		rec    func() *state.Record
		want   func() *state.Record // nil: the record itself
		inJSON []string             // substrings the wire form must hold
	}{
		{name: "sample", rec: sample, inJSON: []string{`"schema":1`, `"updated_at":"2026-11-21T10:00:00.987654321Z"`}},
		{name: "new_record", rec: func() *state.Record { return state.New(1) }, inJSON: []string{`{"schema":1,"discussion":1,`}},
		{name: "hostile_text", rec: func() *state.Record {
			r := sample()
			r.Status, r.Closed = hostile, hostile
			r.Active.LastError = hostile
			r.OpenRFCs[hostile] = &state.RFC{Trigger: storetest.MustTrigger(`{"kind":"escalation_needed","signal":"--"}`), Summary: hostile, ReplyIDs: []string{hostile}}
			return r
		}},
		{name: "invalid_utf8_becomes_replacement", rec: func() *state.Record {
			r := sample()
			r.Status = "a\xffb\xfe\xfdc"
			r.Applied = []string{"\xc3"}
			return r
		}, want: func() *state.Record {
			r := sample()
			r.Status = "a\uFFFDb\uFFFDc"
			r.Applied = []string{"\uFFFD"}
			return r
		}},
		{name: "schema_forced", rec: func() *state.Record {
			r := sample()
			r.Schema = 7
			return r
		}, want: sample},
		{name: "extreme_times", rec: func() *state.Record {
			r := state.New(3)
			r.UpdatedAt = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
			r.Checked = time.Date(0, 1, 1, 0, 0, 0, 1, time.UTC)
			return r
		}, inJSON: []string{`"updated_at":"9999-12-31T23:59:59.999999999Z"`, `"checked":"0000-01-01T00:00:00.000000001Z"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := tc.rec()
			before := tc.rec()
			data, err := state.Encode(rec)
			if err != nil {
				t.Fatalf("Encode() = %v, want nil", err)
			}
			if diff := cmp.Diff(before, rec); diff != "" {
				t.Errorf("Encode() changed its argument (-before +after):\n%s", diff)
			}
			got, err := state.Decode(data)
			if err != nil {
				t.Fatalf("Decode(Encode()) = %v, want nil; wire form %s", err, data)
			}
			want := rec
			if tc.want != nil {
				want = tc.want()
			}
			if diff := cmp.Diff(want, got, recordOpts); diff != "" {
				t.Errorf("Decode(Encode()) mismatch (-want +got):\n%s", diff)
			}
			for _, s := range tc.inJSON {
				if !bytes.Contains(data, []byte(s)) {
					t.Errorf("Encode() = %s, want it to contain %s", data, s)
				}
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, data); err != nil || !bytes.Equal(compact.Bytes(), data) {
				t.Errorf("Encode() = %s, want compact JSON", data)
			}
			if !utf8.Valid(data) {
				t.Errorf("Encode() = %q, want valid UTF-8", data)
			}
			again, err := state.Encode(got)
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("Encode(Decode(Encode())) = %s, %v, want the same bytes %s", again, err, data)
			}
		})
	}
}

var timeInJSON = regexp.MustCompile(`"\d{4}-\d\d-\d\dT[^"]*"`)

func TestEncodeTimesInUTC(t *testing.T) {
	t.Parallel()
	rec := filled(t)
	data, err := state.Encode(rec)
	if err != nil {
		t.Fatalf("Encode() = %v", err)
	}
	found := timeInJSON.FindAll(data, -1)
	if len(found) < 10 {
		t.Fatalf("Encode() = %s, want the record's times in it", data)
	}
	for _, ts := range found {
		if !bytes.HasSuffix(ts, []byte(`Z"`)) {
			t.Errorf("Encode() wrote time %s, want UTC (Z)", ts)
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	t.Parallel()
	a, b := sample(), sample()
	ids := []string{"c-9", "c-1", "c-5", "c-3", "c-7"}
	for i, id := range ids {
		a.OpenRFCs[id] = &state.RFC{Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), RecessCount: i}
	}
	for i := len(ids) - 1; i >= 0; i-- {
		b.OpenRFCs[ids[i]] = &state.RFC{Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), RecessCount: i}
	}
	first, err := state.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		got, err := state.Encode(b)
		if err != nil || !bytes.Equal(got, first) {
			t.Fatalf("Encode(same record) = %s, %v, want %s", got, err, first)
		}
	}
}

// filled returns a record with every field of every type in it set to a
// value of its own, found by reflection, so that a field added to the
// record and forgotten by the codec shows up here.
func filled(t *testing.T) *state.Record {
	t.Helper()
	rec := &state.Record{}
	n := 0
	fill(t, reflect.ValueOf(rec).Elem(), &n)
	rec.Schema = state.Schema
	rec.Kind = state.KindDiscussion
	rec.Active.State = state.RunDispatched
	return rec
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	triggerType = reflect.TypeFor[*wait.Trigger]()
)

func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 1, 1, 0, 0, *n, *n, zone)))
		return
	case v.Type() == triggerType:
		// A trigger is a value of the trigger language, whole: its own
		// package's tests cover its fields.
		v.Set(reflect.ValueOf(storetest.MustTrigger(fmt.Sprintf(`{"kind":"missing_input","replies":%d}`, *n))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("v" + strconv.Itoa(*n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("json") == "-" {
				continue
			}
			fill(t, v.Field(i), n)
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			fill(t, k, n)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(t, e, n)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		t.Fatalf("fill: no test value for %s (%s): teach the codec and this test about it", v.Type(), v.Kind())
	}
}

func TestEncodeCoversEveryField(t *testing.T) {
	t.Parallel()
	rec := filled(t)
	data, err := state.Encode(rec)
	if err != nil {
		t.Fatalf("Encode(filled record) = %v, want nil", err)
	}
	got, err := state.Decode(data)
	if err != nil {
		t.Fatalf("Decode(Encode(filled record)) = %v, want nil; wire form %s", err, data)
	}
	// No EquateEmpty: every field is set, so every field must come back.
	if diff := cmp.Diff(rec, got, cmpopts.IgnoreFields(state.Record{}, "Rev")); diff != "" {
		t.Errorf("Decode(Encode(filled record)) mismatch (-want +got):\n%s", diff)
	}
}

func TestEncodeRefuses(t *testing.T) {
	t.Parallel()
	trigger := storetest.MustTrigger(`{"kind":"missing_input","replies":1}`)
	manyIDs := func(n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = "DC_" + strconv.Itoa(i)
		}
		return ids
	}
	withRFC := func(f func(o *state.RFC)) func(r *state.Record) {
		return func(r *state.Record) {
			o := &state.RFC{Trigger: trigger}
			f(o)
			r.OpenRFCs = map[string]*state.RFC{"c-1": o}
		}
	}
	tests := []struct {
		name   string
		change func(r *state.Record)
		want   error
		field  string
	}{
		{"discussion_zero", func(r *state.Record) { r.Discussion = 0 }, state.ErrInvalid, "discussion"},
		{"discussion_negative", func(r *state.Record) { r.Discussion = -4 }, state.ErrInvalid, "discussion"},
		{"kind_unknown", func(r *state.Record) { r.Kind = "gist" }, state.ErrInvalid, "kind"},
		{"open_rfcs_over", func(r *state.Record) {
			r.OpenRFCs = map[string]*state.RFC{}
			for i := range state.MaxOpenRFCs + 1 {
				r.OpenRFCs["c-"+strconv.Itoa(i)] = &state.RFC{Trigger: trigger}
			}
		}, state.ErrTooLarge, "open_rfcs"},
		{"applied_over", func(r *state.Record) { r.Applied = manyIDs(state.MaxApplied + 1) }, state.ErrTooLarge, "applied"},
		{"dispatches_over", func(r *state.Record) { r.Dispatches = make([]time.Time, state.MaxDispatchTimes+1) }, state.ErrTooLarge, "dispatches"},
		{"seen_ids_over", func(r *state.Record) { r.Seen.IDs = manyIDs(state.MaxCursorIDs + 1) }, state.ErrTooLarge, "seen.ids"},
		{"commands_ids_over", func(r *state.Record) { r.Commands.IDs = manyIDs(state.MaxCursorIDs + 1) }, state.ErrTooLarge, "commands.ids"},
		{"active_until_ids_over", func(r *state.Record) {
			r.Active = &state.Run{CorrelationID: "c", State: state.RunDispatched, Until: state.Cursor{IDs: manyIDs(state.MaxCursorIDs + 1)}}
		}, state.ErrTooLarge, "active.until.ids"},
		{"rfc_cursor_ids_over", withRFC(func(o *state.RFC) { o.RepliesAfter.IDs = manyIDs(state.MaxCursorIDs + 1) }), state.ErrTooLarge, `open_rfcs["c-1"].replies_after.ids`},
		{"reply_ids_over", withRFC(func(o *state.RFC) { o.ReplyIDs = manyIDs(state.MaxReplyIDs + 1) }), state.ErrTooLarge, `open_rfcs["c-1"].reply_ids`},
		{"thread_roots_over", withRFC(func(o *state.RFC) { o.ThreadRoots = manyIDs(state.MaxReplyIDs + 1) }), state.ErrTooLarge, `open_rfcs["c-1"].thread_roots`},
		{"trigger_over", withRFC(func(o *state.RFC) {
			o.Trigger = storetest.TriggerOf(state.MaxTriggerBytes + 1)
		}), state.ErrTooLarge, `open_rfcs["c-1"].trigger`},
		{"resume_trigger_over", func(r *state.Record) {
			r.Active = &state.Run{CorrelationID: "c", State: state.RunDispatched, Resume: &state.Resume{
				CorrelationID: "c-0", Trigger: storetest.TriggerOf(state.MaxTriggerBytes + 1),
			}}
		}, state.ErrTooLarge, "active.resume.trigger"},
		{"encoded_over", func(r *state.Record) { r.Status = strings.Repeat("x", state.MaxEncoded) }, state.ErrTooLarge, ""},
		{"nil_rfc", func(r *state.Record) { r.OpenRFCs = map[string]*state.RFC{"c-1": nil} }, state.ErrInvalid, `open_rfcs["c-1"]`},
		{"empty_rfc_key", func(r *state.Record) { r.OpenRFCs = map[string]*state.RFC{"": {Trigger: trigger}} }, state.ErrInvalid, `open_rfcs[""]`},
		{"invalid_utf8_rfc_key", func(r *state.Record) { r.OpenRFCs = map[string]*state.RFC{"c-\xff": {Trigger: trigger}} }, state.ErrInvalid, `open_rfcs["c-\xff"]`},
		{"missing_trigger", withRFC(func(o *state.RFC) { o.Trigger = nil }), state.ErrInvalid, `open_rfcs["c-1"].trigger`},
		{"negative_recess_count", withRFC(func(o *state.RFC) { o.RecessCount = -1 }), state.ErrInvalid, `open_rfcs["c-1"].recess_count`},
		{"due_at_year_10000", withRFC(func(o *state.RFC) { o.DueAt = ptr(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) }), state.ErrInvalid, `open_rfcs["c-1"].due_at`},
		{"active_no_correlation_id", func(r *state.Record) { r.Active = &state.Run{State: state.RunDispatched} }, state.ErrInvalid, "active.correlation_id"},
		{"active_unknown_state", func(r *state.Record) { r.Active = &state.Run{CorrelationID: "c", State: "running"} }, state.ErrInvalid, "active.state"},
		{"active_negative_run_id", func(r *state.Record) {
			r.Active = &state.Run{CorrelationID: "c", State: state.RunDispatched, RunID: -1}
		}, state.ErrInvalid, "active.run_id"},
		{"active_negative_attempt", func(r *state.Record) {
			r.Active = &state.Run{CorrelationID: "c", State: state.RunDispatched, Attempt: -1}
		}, state.ErrInvalid, "active.attempt"},
		{"resume_no_correlation_id", func(r *state.Record) {
			r.Active = &state.Run{CorrelationID: "c", State: state.RunDispatched, Resume: &state.Resume{}}
		}, state.ErrInvalid, "active.resume.correlation_id"},
		{"updated_at_year_before_0", func(r *state.Record) { r.UpdatedAt = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }, state.ErrInvalid, "updated_at"},
		{"updated_at_past_9999_in_utc", func(r *state.Record) {
			r.UpdatedAt = time.Date(9999, 12, 31, 23, 0, 0, 0, zone)
		}, state.ErrInvalid, "updated_at"},
		{"dispatch_time_out_of_range", func(r *state.Record) {
			r.Dispatches = []time.Time{{}, time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}
		}, state.ErrInvalid, "dispatches[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := state.New(5)
			tc.change(rec)
			data, err := state.Encode(rec)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Encode() = %s, %v, want %v", data, err, tc.want)
			}
			var re *wait.FieldError
			if !errors.As(err, &re) || re.Field != tc.field {
				t.Errorf("Encode() = %v, want a *wait.FieldError on field %q", err, tc.field)
			}
			if _, err := state.EncodeComment("", rec); !errors.Is(err, tc.want) {
				t.Errorf("EncodeComment() = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := state.Encode(nil); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("Encode(nil) = %v, want ErrInvalid", err)
	}
}

func TestEncodeAcceptsBounds(t *testing.T) {
	t.Parallel()
	rec := state.New(5)
	rec.OpenRFCs = map[string]*state.RFC{}
	for i := range state.MaxOpenRFCs {
		rec.OpenRFCs["c-"+strconv.Itoa(i)] = &state.RFC{Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), ReplyIDs: make([]string, state.MaxReplyIDs)}
	}
	rec.OpenRFCs["c-0"].Trigger = storetest.TriggerOf(state.MaxTriggerBytes)
	rec.Applied = make([]string, state.MaxApplied)
	rec.Dispatches = make([]time.Time, state.MaxDispatchTimes)
	rec.Seen.IDs = make([]string, state.MaxCursorIDs)
	if _, err := state.Encode(rec); err != nil {
		t.Errorf("Encode(record at the bounds) = %v, want nil", err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	valid := func(extra string) string {
		return `{"schema":1,"discussion":4,"seen":{"at":"2026-11-21T10:00:00Z"},"updated_at":"2026-11-21T10:00:00Z"` + extra + `}`
	}
	rfc := func(fields string) string {
		return valid(`,"open_rfcs":{"c-1":{"trigger":{"kind":"missing_input","replies":1}` + fields + `}}`)
	}
	tests := []struct {
		name  string
		input string
		field string
	}{
		{"empty", "", ""},
		{"whitespace", " \n", ""},
		{"null", "null", ""},
		{"array", "[]", ""},
		{"string", `"schema"`, ""},
		{"truncated", `{"schema":1,"discussion":4`, ""},
		{"trailing_data", valid("") + `{}`, ""},
		{"trailing_garbage", valid("") + ` x`, ""},
		{"invalid_utf8", "{\"schema\":1,\"discussion\":4,\"closed\":\"\xff\"}", ""},
		{"too_large", valid(`,"closed":"` + strings.Repeat("x", state.MaxEncoded) + `"`), ""},
		{"schema_missing", `{"discussion":4}`, "schema"},
		{"schema_2", `{"schema":2,"discussion":4}`, "schema"},
		{"schema_string", `{"schema":"1","discussion":4}`, "schema"},
		{"schema_float", `{"schema":1.0,"discussion":4}`, "schema"},
		{"schema_exponent", `{"schema":1e0,"discussion":4}`, "schema"},
		{"schema_case_folded", `{"Schema":1,"discussion":4}`, "Schema"},
		{"unknown_field", valid(`,"extra":true`), "extra"},
		{"duplicate_field", valid(`,"discussion":5`), "discussion"},
		{"discussion_negative", `{"schema":1,"discussion":-3}`, "discussion"},
		{"discussion_missing", `{"schema":1}`, "discussion"},
		{"discussion_huge", `{"schema":1,"discussion":99999999999999999999999}`, "discussion"},
		{"kind_unknown", valid(`,"kind":"gist"`), "kind"},
		{"kind_null", valid(`,"kind":null`), "kind"},
		{"kind_number", valid(`,"kind":1`), "kind"},
		{"run_id_huge", valid(`,"active":{"correlation_id":"c","state":"dispatched","run_id":1e400}`), "active.run_id"},
		{"bool_as_string", valid(`,"active":{"correlation_id":"c","state":"dispatched","claimed":"true"}`), "active.claimed"},
		{"active_array", valid(`,"active":[]`), "active"},
		{"active_unknown_field", valid(`,"active":{"correlation_id":"c","state":"dispatched","pid":1}`), "active.pid"},
		{"active_unknown_state", valid(`,"active":{"correlation_id":"c","state":"lost"}`), "active.state"},
		{"seen_null", `{"schema":1,"discussion":4,"seen":null}`, "seen"},
		{"seen_ids_not_strings", valid(`,"commands":{"at":"2026-11-21T10:00:00Z","ids":[1]}`), "commands.ids[0]"},
		{"seen_ids_over", valid(`,"commands":{"at":"2026-11-21T10:00:00Z","ids":[` + strings.Repeat(`"x",`, state.MaxCursorIDs) + `"x"]}`), "commands.ids"},
		{"bad_time", valid(`,"checked":"yesterday"`), "checked"},
		{"time_without_zone", valid(`,"checked":"2026-11-21T10:00:00"`), "checked"},
		{"time_hour_25", valid(`,"checked":"2026-11-21T25:00:00Z"`), "checked"},
		{"time_past_9999_in_utc", valid(`,"checked":"9999-12-31T23:00:00-07:00"`), "checked"},
		{"time_number", valid(`,"dispatches":[1]`), "dispatches[0]"},
		{"applied_over", valid(`,"applied":[` + strings.Repeat(`"c",`, state.MaxApplied) + `"c"]`), "applied"},
		{"applied_not_array", valid(`,"applied":"c-1"`), "applied"},
		{"open_rfcs_null_entry", valid(`,"open_rfcs":{"c-1":null}`), `open_rfcs["c-1"]`},
		{"open_rfcs_null", valid(`,"open_rfcs":null`), "open_rfcs"},
		{"open_rfcs_duplicate", valid(`,"open_rfcs":{"c-1":{"trigger":{"kind":"missing_input","replies":1}},"c-1":{"trigger":{"kind":"missing_input","replies":1}}}`), `open_rfcs["c-1"]`},
		{"open_rfcs_empty_key", valid(`,"open_rfcs":{"":{"trigger":{"kind":"missing_input","replies":1}}}`), `open_rfcs[""]`},
		{"rfc_opened_at_bad", rfc(`,"opened_at":"x"`), `open_rfcs["c-1"].opened_at`},
		{"rfc_unknown_field", rfc(`,"kind":"elapsed"`), `open_rfcs["c-1"].kind`},
		{"rfc_trigger_missing", valid(`,"open_rfcs":{"c-1":{"opened_at":"2026-11-21T10:00:00Z"}}`), `open_rfcs["c-1"].trigger`},
		{"rfc_trigger_string", valid(`,"open_rfcs":{"c-1":{"trigger":"{}"}}`), `open_rfcs["c-1"].trigger`},
		{"rfc_trigger_null", valid(`,"open_rfcs":{"c-1":{"trigger":null}}`), `open_rfcs["c-1"].trigger`},
		{"rfc_trigger_unknown_kind", valid(`,"open_rfcs":{"c-1":{"trigger":{"kind":"x"}}}`), `open_rfcs["c-1"].trigger`},
		{"rfc_trigger_zero_duration", valid(`,"open_rfcs":{"c-1":{"trigger":{"kind":"elapsed","elapsed":"PT0S"}}}`), `open_rfcs["c-1"].trigger`},
		{"resume_trigger_no_replies", valid(`,"active":{"correlation_id":"c","state":"dispatched","resume":{"correlation_id":"c-0","trigger":{"kind":"missing_input"}}}`), "active.resume.trigger"},
		{"rfc_trigger_broken", valid(`,"open_rfcs":{"c-1":{"trigger":{"kind":}}}`), `open_rfcs["c-1"].trigger`},
		{"rfc_trigger_over", valid(`,"open_rfcs":{"c-1":{"trigger":{"x":"` + strings.Repeat("a", state.MaxTriggerBytes) + `"}}}`), `open_rfcs["c-1"].trigger`},
		{"rfc_due_at_number", rfc(`,"due_at":5`), `open_rfcs["c-1"].due_at`},
		{"rfc_negative_recess_count", rfc(`,"recess_count":-1`), `open_rfcs["c-1"].recess_count`},
		{"rfc_reply_ids_over", rfc(`,"reply_ids":[` + strings.Repeat(`"r",`, state.MaxReplyIDs) + `"r"]`), `open_rfcs["c-1"].reply_ids`},
		{"resume_trigger_array", valid(`,"active":{"correlation_id":"c","state":"dispatched","resume":{"correlation_id":"c-0","trigger":[]}}`), "active.resume.trigger"},
		{"queued_reason_number", valid(`,"queued":{"since":"2026-11-21T10:00:00Z","reason":5}`), "queued.reason"},
		{"escalated_unknown", valid(`,"escalated":{"at":"2026-11-21T10:00:00Z","who":"x"}`), "escalated.who"},
		{"rev_not_stored", valid(`,"rev":"abc"`), "rev"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := state.Decode([]byte(tc.input))
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Decode(%.80q) = %+v, %v, want ErrCorrupt", tc.input, got, err)
			}
			var re *wait.FieldError
			if !errors.As(err, &re) || re.Field != tc.field {
				t.Errorf("Decode(%.80q) = %v, want a *wait.FieldError on field %q", tc.input, err, tc.field)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  *state.Record
	}{
		{"minimal", `{"schema":1,"discussion":4}`, state.New(4)},
		{"kind_discussion", `{"schema":1,"discussion":4,"kind":"discussion"}`, &state.Record{Schema: 1, Discussion: 4, Kind: state.KindDiscussion}},
		{"kind_issue", `{"schema":1,"discussion":4,"kind":"issue"}`, &state.Record{Schema: 1, Discussion: 4, Kind: state.KindIssue}},
		{"kind_pull_request", `{"schema":1,"discussion":4,"kind":"pull_request"}`, &state.Record{Schema: 1, Discussion: 4, Kind: state.KindPullRequest}},
		{"whitespace_and_nulls", " {\n\"schema\" : 1 , \"discussion\":4,\"active\":null,\"queued\":null,\"escalated\":null,\"open_rfcs\":{\"c-1\":{\"trigger\":{ \"kind\" : \"missing_input\", \"replies\" : 1 },\"due_at\":null}}}\n\t",
			&state.Record{Schema: 1, Discussion: 4, OpenRFCs: map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`)}}}},
		{"offset_times_become_utc", `{"schema":1,"discussion":4,"updated_at":"2026-11-21T12:00:00.5+02:00"}`,
			&state.Record{Schema: 1, Discussion: 4, UpdatedAt: time.Date(2026, 11, 21, 10, 0, 0, 5e8, time.UTC)}},
		{"escapes", `{"schema":1,"discussion":4,"closed":"\u002d\u002d> \ud83d\ude00 \u0000"}`,
			&state.Record{Schema: 1, Discussion: 4, Closed: "--> \U0001F600 \x00"}},
		{"lone_surrogate_becomes_replacement", `{"schema":1,"discussion":4,"closed":"\ud800"}`,
			&state.Record{Schema: 1, Discussion: 4, Closed: "\uFFFD"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := state.Decode([]byte(tc.input))
			if err != nil {
				t.Fatalf("Decode(%q) = %v, want nil", tc.input, err)
			}
			if diff := cmp.Diff(tc.want, got, recordOpts); diff != "" {
				t.Errorf("Decode(%q) mismatch (-want +got):\n%s", tc.input, diff)
			}
			if got.UpdatedAt.Location() != time.UTC {
				t.Errorf("Decode(%q).UpdatedAt in %v, want UTC", tc.input, got.UpdatedAt.Location())
			}
		})
	}
}

func TestRefusalMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      func() error
		sentinel error
		want     string
	}{
		{"corrupt_field", func() error {
			_, err := state.Decode([]byte(`{"schema":1,"discussion":4,"open_rfcs":{"c-1":{"trigger":{"kind":"missing_input","replies":1},"opened_at":"x"}}}`))
			return err
		}, state.ErrCorrupt, `state: corrupt record: open_rfcs["c-1"].opened_at: must be an RFC 3339 time`},
		{"too_large", func() error {
			rec := state.New(4)
			rec.Applied = make([]string, state.MaxApplied+1)
			_, err := state.Encode(rec)
			return err
		}, state.ErrTooLarge, fmt.Sprintf("state: record too large: applied: %d entries, more than %d", state.MaxApplied+1, state.MaxApplied)},
		{"hidden_record_with_cause", func() error {
			_, _, err := state.DecodeComment("<!-- recess:state v1\n!!! -->")
			return err
		}, state.ErrCorrupt, "state: corrupt record: hidden record: payload is not base64: illegal base64 data at input byte 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.err()
			var fe *wait.FieldError
			if !errors.Is(err, tc.sentinel) || !errors.As(err, &fe) {
				t.Fatalf("error = %v, want %v wrapping a *wait.FieldError", err, tc.sentinel)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

// hiddenPayload returns what lies between the state marker's header line
// and the closing "-->" of the last marker.
func hiddenPayload(t *testing.T, body string) string {
	t.Helper()
	i := strings.LastIndex(body, "<!-- recess:state v1\n")
	if i < 0 {
		t.Fatalf("body %q holds no state marker", body)
	}
	rest := body[i+len("<!-- recess:state v1\n"):]
	if !strings.HasSuffix(rest, "\n-->") {
		t.Fatalf("body %q does not end with the marker's close", body)
	}
	return strings.TrimSuffix(rest, "\n-->")
}

var base64Line = regexp.MustCompile(`^[A-Za-z0-9+/]{1,76}={0,2}$`)

func TestEncodeCommentRoundTrip(t *testing.T) {
	t.Parallel()
	forged := "<!-- recess:state v1\n" + base64.StdEncoding.EncodeToString([]byte(`{"schema":1,"discussion":666}`)) + "\n-->"
	tests := []struct {
		name        string
		visible     string
		wantVisible string
	}{
		{"empty", "", ""},
		{"plain", "⏸ Waiting for 1 more reply", "⏸ Waiting for 1 more reply"},
		{"closes_comment", "a --> b", "a --> b"},
		{"opens_comment", "a <!-- b", "a <!-- b"},
		{"nul", "a\x00b", "ab"},
		{"invalid_utf8", "a\xffb", "a\uFFFDb"},
		{"trailing_space", "a\n\n \t\n", "a"},
		{"forged_marker", forged + "\nafter", strings.Replace(forged, "recess:state", "recess\u2060:state", 1) + "\nafter"},
		{"forged_reply_and_answer", "<!-- recess:reply c-1 0 --><!-- recess:answer DC_1 -->", "<!-- recess\u2060:reply c-1 0 --><!-- recess\u2060:answer DC_1 -->"},
		{"crlf", "line\r\nline", "line\r\nline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := sample()
			rec.Status = tc.visible
			rec.OpenRFCs["c-3"].Summary = "--> " + forged
			body, err := state.EncodeComment(tc.visible, rec)
			if err != nil {
				t.Fatalf("EncodeComment(%q) = %v, want nil", tc.visible, err)
			}
			got, found, err := state.DecodeComment(body)
			if err != nil || !found {
				t.Fatalf("DecodeComment(EncodeComment(%q)) = %v, %v, want found", tc.visible, found, err)
			}
			want := sample()
			want.Status = strings.ToValidUTF8(tc.visible, "\uFFFD")
			want.OpenRFCs["c-3"].Summary = "--> " + forged
			if diff := cmp.Diff(want, got, recordOpts); diff != "" {
				t.Errorf("DecodeComment(EncodeComment(%q)) mismatch (-want +got):\n%s", tc.visible, diff)
			}
			wantPrefix := tc.wantVisible
			if wantPrefix != "" {
				wantPrefix += "\n\n"
			}
			if !strings.HasPrefix(body, wantPrefix+"<!-- recess:state v1\n") {
				t.Errorf("EncodeComment(%q) = %q, want it to start with %q and the marker", tc.visible, body, wantPrefix)
			}
			if n := strings.Count(body, "recess:state"); n != 1 {
				t.Errorf("EncodeComment(%q) holds %d marker words, want only the record's", tc.visible, n)
			}
			if !state.HasMarker(body) {
				t.Errorf("HasMarker(EncodeComment(%q)) = false, want true", tc.visible)
			}
			for i, line := range strings.Split(hiddenPayload(t, body), "\n") {
				if !base64Line.MatchString(line) {
					t.Errorf("payload line %d = %q, want base64 of at most 76 columns", i, line)
				}
			}
		})
	}
}

func TestEncodeCommentSize(t *testing.T) {
	t.Parallel()
	// padded returns a record whose wire form is exactly size bytes.
	padded := func(t *testing.T, size int) *state.Record {
		rec := state.New(1)
		rec.UpdatedAt = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
		rec.Closed = "x"
		data, err := state.Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		rec.Closed += strings.Repeat("x", size-len(data))
		return rec
	}
	tests := []struct {
		name    string
		visible string
	}{
		{"no_visible_text", ""},
		{"ascii", strings.Repeat("status ", 100)},
		{"astral_counts_twice", strings.Repeat("\U0001F600", 500)},
		{"long_visible", strings.Repeat("v", 40000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			capacity := state.CommentCapacity(tc.visible)
			if capacity <= 1000 || capacity > state.MaxEncoded {
				t.Fatalf("CommentCapacity(%d bytes) = %d, want within 1000..%d", len(tc.visible), capacity, state.MaxEncoded)
			}
			body, err := state.EncodeComment(tc.visible, padded(t, capacity))
			if err != nil {
				t.Fatalf("EncodeComment(record of CommentCapacity bytes) = %v, want nil", err)
			}
			n := 0
			for _, r := range body {
				n++
				if r > 0xFFFF {
					n++
				}
			}
			if n > state.MaxCommentBody || n < state.MaxCommentBody-80 {
				t.Errorf("EncodeComment(record of CommentCapacity bytes) has %d UTF-16 units, want at most %d and close to it", n, state.MaxCommentBody)
			}
			if _, err := state.EncodeComment(tc.visible, padded(t, capacity+1)); !errors.Is(err, state.ErrTooLarge) {
				t.Errorf("EncodeComment(record of CommentCapacity+1 bytes) = %v, want ErrTooLarge", err)
			}
		})
	}
	if got := state.CommentCapacity(strings.Repeat("v", state.MaxCommentBody)); got != 0 {
		t.Errorf("CommentCapacity(visible text of the whole limit) = %d, want 0", got)
	}
	// 65,536 characters less the marker's 25 leave 65,511 for the payload:
	// 48,495 bytes are 64,660 base64 characters on 851 lines (850 newlines),
	// 65,510 in all; 3 bytes more would need 65,515.
	if got := state.CommentCapacity(""); got != 48495 {
		t.Errorf("CommentCapacity(\"\") = %d, want 48495", got)
	}
}

func TestDecodeComment(t *testing.T) {
	t.Parallel()
	rec := sample()
	data, err := state.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	good, err := state.EncodeComment("visible", rec)
	if err != nil {
		t.Fatal(err)
	}
	payload := base64.StdEncoding.EncodeToString(data)
	other := state.New(99)
	otherBody, err := state.EncodeComment("", other)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		body      string
		want      *state.Record
		found     bool
		corrupt   bool
		hasMarker bool
	}{
		{name: "no_marker", body: "just a comment --> <!-- -->"},
		{name: "other_marker_words", body: "<!-- recess:reply c-1 0 --> recess:state", hasMarker: false},
		{name: "good", body: good, want: rec, found: true, hasMarker: true},
		{name: "crlf_from_web_edit", body: strings.ReplaceAll(good, "\n", "\r\n"), want: rec, found: true, hasMarker: true},
		{name: "unwrapped_payload", body: "<!-- recess:state v1\n" + payload + "\n-->", want: rec, found: true, hasMarker: true},
		{name: "text_after_marker", body: good + "\n\nedited by hand", want: rec, found: true, hasMarker: true},
		{name: "last_marker_wins", body: otherBody + "\n\n" + good, want: rec, found: true, hasMarker: true},
		{name: "last_marker_corrupt", body: good + "\n<!-- recess:state v1\n!!!!\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "not_closed", body: "<!-- recess:state v1\n" + payload, found: true, corrupt: true, hasMarker: true},
		{name: "version_2", body: "<!-- recess:state v2\n" + payload + "\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "no_version", body: "<!-- recess:state\n" + payload + "\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "not_base64", body: "<!-- recess:state v1\n{\"schema\":1}\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "base64_url_alphabet", body: "<!-- recess:state v1\n" + base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff}) + "\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "not_a_record", body: "<!-- recess:state v1\n" + base64.StdEncoding.EncodeToString([]byte(`{"schema":1}`)) + "\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "empty_payload", body: "<!-- recess:state v1\n\n-->", found: true, corrupt: true, hasMarker: true},
		{name: "huge_payload", body: "<!-- recess:state v1\n" + strings.Repeat("AAAA", state.MaxEncoded) + "\n-->", found: true, corrupt: true, hasMarker: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, found, err := state.DecodeComment(tc.body)
			if found != tc.found {
				t.Errorf("DecodeComment(%.60q) found = %v, want %v", tc.body, found, tc.found)
			}
			if tc.corrupt != errors.Is(err, state.ErrCorrupt) || (!tc.corrupt && err != nil) {
				t.Errorf("DecodeComment(%.60q) error = %v, want corrupt %v", tc.body, err, tc.corrupt)
			}
			if diff := cmp.Diff(tc.want, got, recordOpts); diff != "" {
				t.Errorf("DecodeComment(%.60q) mismatch (-want +got):\n%s", tc.body, diff)
			}
			if got := state.HasMarker(tc.body); got != tc.hasMarker {
				t.Errorf("HasMarker(%.60q) = %v, want %v", tc.body, got, tc.hasMarker)
			}
		})
	}
}

// TestReadStatusTrustsOnlyTheBodyRecessWrites: a status comment is recess's
// only when its whole body is StatusBody of the record it holds; the same
// record in any other body (someone's words around it, another visible
// text, another encoding) is ErrNotExact, and a marker that cannot be read
// stays ErrCorrupt.
func TestReadStatusTrustsOnlyTheBodyRecessWrites(t *testing.T) {
	t.Parallel()
	rec := sample()
	rec.Status = "⏸ Waiting for 1 more reply\r\n\n<sub>recess keeps this comment</sub>"
	good, err := state.StatusBody(rec)
	if err != nil {
		t.Fatal(err)
	}
	data, err := state.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	other, err := state.EncodeComment("I agree.", rec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
		want error // nil: rec is read
	}{
		{"as_recess_writes_it", good, nil},
		// A browser sends every line break of a textarea as CRLF.
		{"saved_from_the_web_editor", strings.ReplaceAll(strings.ReplaceAll(good, "\r\n", "\n"), "\n", "\r\n"), nil},
		{"someone_elses_words", other, state.ErrNotExact},
		{"words_before_it", "Cross-posted:\n\n" + good, state.ErrNotExact},
		{"words_after_it", good + "\n\nedited by hand", state.ErrNotExact},
		{"payload_unwrapped", good[:strings.Index(good, "<!--")] + "<!-- recess:state v1\n" + base64.StdEncoding.EncodeToString(data) + "\n-->", state.ErrNotExact},
		{"marker_corrupt", "⏸\n\n<!-- recess:state v1\n!!!\n-->", state.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, found, err := state.ReadStatus(tc.body)
			if !found || !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("ReadStatus(%.60q) = found %v, %v; want %v", tc.body, found, err, tc.want)
			}
			if tc.want == nil {
				if diff := cmp.Diff(rec, got, recordOpts); diff != "" {
					t.Errorf("ReadStatus (-want +got):\n%s", diff)
				}
			} else if got != nil {
				t.Errorf("ReadStatus(%.60q) = %+v with %v, want no record", tc.body, got, err)
			}
		})
	}
	if _, found, err := state.ReadStatus("no marker here"); found || err != nil {
		t.Errorf("ReadStatus(no marker) = found %v, %v; want neither", found, err)
	}
}

func TestDecodeCommentBoundsPayloadBeforeDecoding(t *testing.T) {
	t.Parallel()
	// Over the bound and broken at its very end: refused for its size, so the
	// base64 decoder never got to the broken part.
	body := "<!-- recess:state v1\n" + strings.Repeat("AAAA", state.MaxEncoded) + "!!\n-->"
	_, found, err := state.DecodeComment(body)
	if !found || !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("DecodeComment(oversized payload) = %v, %v, want found and ErrCorrupt", found, err)
	}
	var b64 base64.CorruptInputError
	if errors.As(err, &b64) {
		t.Errorf("DecodeComment(oversized payload) = %v, want it refused before base64 decoding", err)
	}
}

func TestNeutralize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"nothing to see", "nothing to see"},
		{"recess: a word", "recess: a word"},
		{"recess:state", "recess\u2060:state"},
		{"recess:recess:state", "recess\u2060:recess\u2060:state"},
		{"x recess:reply y recess:answer z recess:state", "x recess\u2060:reply y recess\u2060:answer z recess\u2060:state"},
		{"<!-- recess:recess v1 QUJD -->", "<!-- recess\u2060:recess v1 QUJD -->"},
		{"recess:recessed", "recess\u2060:recessed"},
		{"recess:other", "recess:other"},
		{"recess:", "recess:"},
		{"RECESS:STATE", "RECESS:STATE"},
	}
	for _, tc := range tests {
		got := state.Neutralize(tc.in)
		if got != tc.want {
			t.Errorf("Neutralize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if state.Neutralize(got) != got {
			t.Errorf("Neutralize(%q) is not idempotent", got)
		}
		if _, _, ok := state.ParseReplyMarker("<!-- " + got + " c 0 -->"); ok && strings.Contains(tc.in, "recess:reply") {
			t.Errorf("ParseReplyMarker found a marker in Neutralize(%q)", tc.in)
		}
	}
}

func TestReplyMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cid   string
		index int
		plain bool // the id appears as it is
	}{
		{"correlation_id", "c-20261121T100000-ab12", 0, true},
		{"dots_and_underscores", "c.a_b-C9", 3, true},
		{"big_index", "c-1", 1000000, true},
		{"empty", "", 0, false},
		{"space", "c 1", 1, false},
		{"closes_comment", "c-->", 2, false},
		{"angle", "a>b", 2, false},
		{"colon_like_b64_prefix", "b64:YQ==", 2, false},
		{"unicode", "c-ü", 5, false},
		{"newline", "c\n-->", 5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := state.ReplyMarker(tc.cid, tc.index)
			if !strings.HasPrefix(m, "<!-- recess:reply ") || !strings.HasSuffix(m, " -->") || strings.Count(m, "-->") != 1 {
				t.Errorf("ReplyMarker(%q, %d) = %q, want one HTML comment closed only at its end", tc.cid, tc.index, m)
			}
			if got := strings.Contains(m, " "+tc.cid+" "); got != tc.plain {
				t.Errorf("ReplyMarker(%q, %d) = %q: id as it is = %v, want %v", tc.cid, tc.index, m, got, tc.plain)
			}
			body := "Here is my question.\n<!-- recess:reply forged 9 -->\n\n" + m
			cid, index, ok := state.ParseReplyMarker(body)
			if !ok || cid != tc.cid || index != tc.index {
				t.Errorf("ParseReplyMarker(%q) = %q, %d, %v, want %q, %d, true", body, cid, index, ok, tc.cid, tc.index)
			}
		})
	}
}

func TestParseReplyMarkerRefuses(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"",
		"no marker",
		"<!-- recess:reply c-1 -->",
		"<!-- recess:reply c-1 0 extra -->",
		"<!-- recess:reply c-1 -1 -->",
		"<!-- recess:reply c-1 +1 -->",
		"<!-- recess:reply c-1 0x1 -->",
		"<!-- recess:reply c-1 99999999999999999999999 -->",
		"<!-- recess:reply c-1 0",
		"<!-- recess:reply c:1 0 -->",
		"<!-- recess:reply b64:!!! 0 -->",
		"<!-- recess:reply c-1 0 --> and then <!-- recess:reply broken -->",
	} {
		if cid, index, ok := state.ParseReplyMarker(body); ok {
			t.Errorf("ParseReplyMarker(%q) = %q, %d, true, want ok false", body, cid, index)
		}
	}
}

func TestCancelAt_round_trip_and_next_due(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cancel := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	rec := state.New(7)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {
		Trigger:  storetest.MustTrigger(`{"kind":"missing_input","replies":2,"expires":"P7D","on_expire":"cancel"}`),
		OpenedAt: cancel.Add(-7 * 24 * time.Hour),
		DueAt:    &due,
		CancelAt: &cancel,
	}}
	b, err := state.Encode(rec)
	if err != nil {
		t.Fatalf("Encode() = %v", err)
	}
	got, err := state.Decode(b)
	if err != nil {
		t.Fatalf("Decode(%s) = %v", b, err)
	}
	if c := got.OpenRFCs["c-1"].CancelAt; c == nil || !c.Equal(cancel) {
		t.Errorf("cancel_at after a round trip = %v, want %v", c, cancel)
	}
	if next := got.NextDue(); !next.Equal(cancel) {
		t.Errorf("NextDue() = %v, want the cancel moment %v (before the due moment)", next, cancel)
	}
	bad := strings.Replace(string(b), `"cancel_at":"2026-11-28T12:00:00Z"`, `"cancel_at":12`, 1)
	if bad == string(b) {
		t.Fatalf("encoded record lacks cancel_at: %s", b)
	}
	if _, err := state.Decode([]byte(bad)); !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("state.Decode(cancel_at: 12) = %v, want ErrCorrupt", err)
	}
}

func TestCursorBurstCoversTheWholeSecond(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var c state.Cursor
	for i := range state.MaxCursorIDs + 1 {
		c = c.Advance("DC_"+strconv.Itoa(i), at)
	}
	if !c.All || len(c.IDs) != 0 {
		t.Fatalf("cursor after %d comments in one second = %+v, want All", state.MaxCursorIDs+1, c)
	}
	for _, id := range []string{"DC_0", "DC_32", "DC_other"} {
		if !c.Covers(id, at) {
			t.Errorf("Covers(%q, the burst's second) = false, want true", id)
		}
	}
	if c.Covers("DC_next", at.Add(time.Second)) {
		t.Errorf("Covers(a comment a second later) = true, want false")
	}
	rec := state.New(3)
	rec.Seen = c
	data, err := state.Encode(rec)
	if err != nil {
		t.Fatalf("Encode = %v", err)
	}
	back, err := state.Decode(data)
	if err != nil {
		t.Fatalf("Decode(%s) = %v", data, err)
	}
	if !back.Seen.All || !back.Seen.At.Equal(at) {
		t.Errorf("decoded cursor = %+v, want the whole second covered", back.Seen)
	}
}

// TestNeutralizeBreaksEveryMarkerRecessReads: every marker recess writes,
// neutralised, is read by none of recess's readers; the marker itself still
// is.
func TestNeutralizeBreaksEveryMarkerRecessReads(t *testing.T) {
	t.Parallel()
	rec := state.New(7)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), RecessCount: 1}}
	status, err := state.EncodeComment("", rec)
	if err != nil {
		t.Fatal(err)
	}
	recess, err := state.RecessMarker(rec)
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]func(string) bool{
		"DecodeComment":     func(b string) bool { _, found, _ := state.DecodeComment(b); return found },
		"HasMarker":         state.HasMarker,
		"ParseReplyMarker":  func(b string) bool { _, _, ok := state.ParseReplyMarker(b); return ok },
		"ParseRecessMarker": func(b string) bool { _, ok := state.ParseRecessMarker(b); return ok },
	}
	markers := map[string]string{"status": status, "reply": state.ReplyMarker("c-1", 0), "recess": state.ReplyBody("", "c-1", 0, recess)}
	for name, m := range markers {
		read := false
		for reader, fn := range readers {
			read = read || fn(m)
			if fn(state.Neutralize(m)) {
				t.Errorf("%s reads the neutralised %s marker %q", reader, name, state.Neutralize(m))
			}
		}
		if !read {
			t.Errorf("no reader reads the %s marker %q", name, m)
		}
	}
}

// TestParseRecessMarkerReadsCopiesNamingTheirWriter: a copy that names the
// verdict that wrote it (Applied) may hold any open recesses, or none, in
// any of recess's comments.
func TestParseRecessMarkerReadsCopiesNamingTheirWriter(t *testing.T) {
	t.Parallel()
	open := state.New(7)
	open.Applied = []string{"c-1", "c-2"}
	open.OpenRFCs = map[string]*state.RFC{"c-2": {Trigger: storetest.MustTrigger(`{"kind":"elapsed","elapsed":"PT2H"}`), RecessCount: 2}}
	none := state.New(7)
	none.Applied = []string{"c-2"}
	for _, rec := range []*state.Record{open, none} {
		m, err := state.RecessMarker(rec)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := state.ParseRecessMarker(state.ReplyBody("Which backend?", "c-1", 0, m))
		if !ok {
			t.Fatalf("ParseRecessMarker did not read the copy of %+v", rec)
		}
		if diff := cmp.Diff(rec, got, recordOpts); diff != "" {
			t.Errorf("ParseRecessMarker (-want +got):\n%s", diff)
		}
	}
}

// TestParseRecessMarkerReadsOnlyTheCopyRecessKept: a copy of a recess is
// read only where ReplyBody puts it, right after the reply's own marker and
// naming that reply's correlation id.
func TestParseRecessMarkerReadsOnlyTheCopyRecessKept(t *testing.T) {
	t.Parallel()
	rec := state.New(7)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":1}`), RecessCount: 1}}
	m, err := state.RecessMarker(rec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"kept_by_reply_body", state.ReplyBody("Which backend?", "c-1", 0, m), true},
		{"trailing_newline", state.ReplyBody("Which backend?", "c-1", 2, m) + "\r\n", true},
		{"alone", m, false},
		{"other_correlation_id", state.ReplyBody("Which backend?", "c-2", 0, m), false},
		{"before_the_reply_marker", "Which backend? " + m + "\n\n" + state.ReplyMarker("c-1", 0), false},
		{"text_after_it", state.ReplyBody("Which backend?", "c-1", 0, m) + "\nmore", false},
		{"in_a_note_without_copy", state.ReplyBody("Closed. "+m, "c-1", 0, ""), false},
		{"spaced_otherwise", strings.Replace(state.ReplyBody("Which backend?", "c-1", 0, m), " -->", "  -->", 2), false},
		{"payload_encoded_otherwise", state.ReplyBody("Which backend?", "c-1", 0, strings.Replace(m, "v1 ", "v1 \t", 1)), false},
		{"live_marker_in_the_text", state.ReplyMarker("c-9", 0) + "\n\n" + state.ReplyMarker("c-1", 0) + "\n" + m, false},
		{"web_edited", strings.ReplaceAll(state.ReplyBody("Which\nbackend?", "c-1", 0, m), "\n", "\r\n"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := state.ParseRecessMarker(tc.body)
			if ok != tc.want {
				t.Fatalf("ParseRecessMarker(%q) ok = %v, want %v", tc.body, ok, tc.want)
			}
			if ok && !cmp.Equal(got.OpenRFCs["c-1"].Trigger, rec.OpenRFCs["c-1"].Trigger) {
				t.Errorf("ParseRecessMarker trigger = %v, want %v", got.OpenRFCs["c-1"].Trigger, rec.OpenRFCs["c-1"].Trigger)
			}
		})
	}
}
