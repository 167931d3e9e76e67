package resume

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume/wait"
)

var contextStart = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// history builds n entries, oldest first, one minute apart, with body(i).
func history(n int, body func(i int) string) []HistoryEntry {
	h := make([]HistoryEntry, n)
	for i := range h {
		h[i] = HistoryEntry{
			ID:        fmt.Sprintf("DC_kwDOentry%05d", i),
			Author:    fmt.Sprintf("user%d", i%7),
			Role:      "user",
			Body:      body(i),
			CreatedAt: contextStart.Add(time.Duration(i) * time.Minute),
			URL:       fmt.Sprintf("https://github.com/o/r/discussions/12#discussioncomment-%d", 1000+i),
		}
		if i%3 == 1 {
			h[i].ReplyTo = "DC_kwDOparent"
			h[i].Role = "maintainer"
		}
	}
	return h
}

func testContext(h []HistoryEntry) Context {
	return Context{
		CorrelationID: "c-original",
		FiredBy:       wait.KindMissingInput,
		FiredAt:       contextStart.Add(24 * time.Hour),
		Trigger:       json.RawMessage(`{"kind":"missing_input","replies":2}`),
		RecessCount:   1,
		HistorySince:  h,
	}
}

var testRequest = DispatchRequest{CorrelationID: "c-0123456789abcdef", Discussion: 12}

// checkEncoded verifies what every Encode result must satisfy and returns
// it decoded: valid JSON of a Context, the dispatch within GitHub's
// limit by both measures, every kept entry an original entry (in order,
// url intact) whose body is whole or a marked prefix, and nothing lost
// without being counted.
func checkEncoded(t testing.TB, rc Context, req DispatchRequest, out string) Context {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var got Context
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("Encode() = %.200q, which does not decode: %v", out, err)
	}
	if !json.Valid([]byte(out)) {
		t.Fatalf("Encode() = %.200q, not valid JSON", out)
	}
	if got.HistorySince == nil {
		t.Errorf("Encode() decoded history_since = null, want a list")
	}
	req.ResumeContext = out
	if size := DispatchSize(req.Inputs()); size > MaxDispatchInputChars {
		t.Errorf("DispatchSize(inputs) = %d, want <= %d", size, MaxDispatchInputChars)
	}
	sum := 0
	for _, v := range req.Inputs() {
		sum += len(v)
	}
	if sum > MaxDispatchInputChars {
		t.Errorf("sum of input bytes = %d, want <= %d", sum, MaxDispatchInputChars)
	}
	if got.Omitted < rc.Omitted || got.Omitted-rc.Omitted+len(got.HistorySince) != len(rc.HistorySince) {
		t.Errorf("Encode() kept %d and omitted %d (given %d omitted) of %d entries", len(got.HistorySince), got.Omitted, rc.Omitted, len(rc.HistorySince))
	}
	if got.Omitted > rc.Omitted && !got.Truncated {
		t.Errorf("Encode() omitted %d entries with truncated = false", got.Omitted-rc.Omitted)
	}
	// Kept entries are the newest ones (the test contexts are in age order).
	offset := len(rc.HistorySince) - len(got.HistorySince)
	for k, e := range got.HistorySince {
		if offset < 0 {
			break
		}
		orig := rc.HistorySince[offset+k]
		if e.ID != asDecoded(orig.ID) || e.URL != asDecoded(orig.URL) || e.Author != asDecoded(orig.Author) ||
			!e.CreatedAt.Equal(orig.CreatedAt) || e.ReplyTo != asDecoded(orig.ReplyTo) || e.Role != asDecoded(orig.Role) {
			t.Errorf("Encode() entry %d = %+v, want the fields of %+v", k, e, orig)
		}
		if e.URL == "" {
			t.Errorf("Encode() entry %d lost its url", k)
		}
		full := asDecoded(orig.Body)
		if e.Body == full {
			continue
		}
		if !got.Truncated {
			t.Errorf("Encode() shortened entry %d with truncated = false", k)
		}
		prefix, ok := strings.CutSuffix(e.Body, TruncatedMarker)
		if !ok || !strings.HasPrefix(full, prefix) {
			t.Errorf("Encode() entry %d body = %.80q…, want %.80q… whole or a prefix ending in the marker", k, e.Body, full)
		}
	}
	return got
}

// asDecoded is a body as the agent reads it after encoding/json replaced
// each byte that is not UTF-8 (TestAsDecodedMatchesEncoder pins that).
func asDecoded(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // a byte that is not UTF-8 ranges as U+FFFD
	}
	return b.String()
}

func TestAsDecodedMatchesEncoder(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "ok", "\xff", "a\xc3(\xe2\x82b", "\xed\xa0\x80", "é\xff😀"} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("json.Marshal(%q) = %v", s, err)
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("json.Unmarshal(%s) = %v", b, err)
		}
		if got := asDecoded(s); got != want {
			t.Errorf("asDecoded(%q) = %q, want %q", s, got, want)
		}
	}
}

// slack is how far below the limit the dispatch ended.
func slack(req DispatchRequest, out string) int {
	req.ResumeContext = out
	return MaxDispatchInputChars - DispatchSize(req.Inputs())
}

// shortened reports, per kept entry, whether its body was shortened (the
// test contexts are in age order, so the kept ones are the last).
func shortened(rc, got Context) []bool {
	s := make([]bool, len(got.HistorySince))
	offset := len(rc.HistorySince) - len(got.HistorySince)
	for i, e := range got.HistorySince {
		s[i] = e.Body != asDecoded(rc.HistorySince[offset+i].Body)
	}
	return s
}

func TestEncodeSmallContextUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rc   Context
	}{
		{"no_history", testContext(nil)},
		{"empty_history", testContext([]HistoryEntry{})},
		{"a_few_comments", testContext(history(5, func(i int) string { return fmt.Sprintf("comment %d: use <b>S3</b> & \"GCS\"", i) }))},
		{"no_trigger", Context{CorrelationID: "c-x", FiredBy: wait.FiredByManual, FiredAt: contextStart}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := tt.rc.Encode(testRequest)
			if err != nil {
				t.Fatalf("Encode() = %v", err)
			}
			got := checkEncoded(t, tt.rc, testRequest, out)
			want := tt.rc
			if want.HistorySince == nil {
				want.HistorySince = []HistoryEntry{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Encode() decoded mismatch (-want +got):\n%s", diff)
			}
			if got.Truncated {
				t.Errorf("Encode() truncated = true, want false")
			}
			if !strings.Contains(out, `"history_since":[`) {
				t.Errorf("Encode() = %s, want history_since as a list", out)
			}
			if strings.Contains(out, `\u003c`) || strings.Contains(out, "\n") {
				t.Errorf("Encode() = %s, want compact JSON without HTML escaping", out)
			}
		})
	}
}

func TestEncodeOneHugeBody(t *testing.T) {
	t.Parallel()
	h := history(6, func(i int) string { return fmt.Sprintf("short comment %d", i) })
	h[2].Body = strings.Repeat("All work and no play. ", 20000) // 440 KB
	rc := testContext(h)
	out, err := rc.Encode(testRequest)
	if err != nil {
		t.Fatalf("Encode() = %v", err)
	}
	got := checkEncoded(t, rc, testRequest, out)
	if !got.Truncated || got.Omitted != 0 {
		t.Errorf("Encode() truncated = %v, omitted = %d, want true, 0", got.Truncated, got.Omitted)
	}
	if diff := cmp.Diff([]bool{false, false, true, false, false, false}, shortened(rc, got)); diff != "" {
		t.Errorf("Encode() shortened entries mismatch (-want +got):\n%s", diff)
	}
	if s := slack(testRequest, out); s < 0 || s >= 8 {
		t.Errorf("Encode() left %d bytes of the limit unused, want 0..7", s)
	}
}

func TestEncodeManyMediumBodiesShortensOldestFirst(t *testing.T) {
	t.Parallel()
	rc := testContext(history(40, func(i int) string { return strings.Repeat(fmt.Sprintf("[%d] medium text ", i), 250) }))
	out, err := rc.Encode(testRequest)
	if err != nil {
		t.Fatalf("Encode() = %v", err)
	}
	got := checkEncoded(t, rc, testRequest, out)
	if !got.Truncated || got.Omitted != 0 || len(got.HistorySince) != 40 {
		t.Fatalf("Encode() truncated = %v, omitted = %d, kept = %d, want true, 0, 40", got.Truncated, got.Omitted, len(got.HistorySince))
	}
	cut := shortened(rc, got)
	if cut[0] == false || cut[len(cut)-1] == true {
		t.Errorf("Encode() shortened = %v, want the oldest shortened and the newest whole", cut)
	}
	for i := 1; i < len(cut); i++ {
		if cut[i] && !cut[i-1] {
			t.Errorf("Encode() shortened entry %d but kept older entry %d whole", i, i-1)
		}
	}
	// Only the newest shortened body keeps text; older ones keep the marker.
	partial := 0
	for i, e := range got.HistorySince {
		if cut[i] && e.Body != TruncatedMarker {
			partial++
		}
	}
	if partial > 1 {
		t.Errorf("Encode() kept text in %d shortened bodies, want at most 1", partial)
	}
	if s := slack(testRequest, out); s < 0 || s >= 8 {
		t.Errorf("Encode() left %d bytes of the limit unused, want 0..7", s)
	}
}

func TestEncodeEscapedAndMultibyteBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		unit string
	}{
		{"accents", "é"},
		{"cjk", "日本語"},
		{"emoji", "😀👍🏽"},
		{"quotes_and_backslashes", `"\"\\`},
		{"control_characters", "\x01\x1f\t\n\r\b\f\x7f"},
		{"html", "<script>&amp;</script>"},
		{"line_separators", "\u2028\u2029"},
		{"invalid_utf8", "\xff\xfe\xc3"},
		{"marker_lookalike", TruncatedMarker},
		{"mixed", "é\"<\u2028\x00😀\\\xff>&\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rc := testContext(history(30, func(i int) string { return fmt.Sprint(i) + strings.Repeat(tt.unit, 6000/len(tt.unit)) }))
			out, err := rc.Encode(testRequest)
			if err != nil {
				t.Fatalf("Encode() = %v", err)
			}
			got := checkEncoded(t, rc, testRequest, out)
			if !got.Truncated {
				t.Errorf("Encode() truncated = false, want true")
			}
			if !utf8.ValidString(out) {
				t.Errorf("Encode() is not valid UTF-8")
			}
			if s := slack(testRequest, out); s < 0 || s >= 8 {
				t.Errorf("Encode() left %d bytes of the limit unused, want 0..7", s)
			}
		})
	}
}

func TestEncodeThousandsOfEntriesOmitsOldest(t *testing.T) {
	t.Parallel()
	rc := testContext(history(5000, func(i int) string {
		return fmt.Sprintf("+1 from comment %d, which says a lot more than the marker does", i)
	}))
	out, err := rc.Encode(testRequest)
	if err != nil {
		t.Fatalf("Encode() = %v", err)
	}
	got := checkEncoded(t, rc, testRequest, out)
	if got.Omitted == 0 || !got.Truncated {
		t.Fatalf("Encode() omitted = %d, truncated = %v, want > 0, true", got.Omitted, got.Truncated)
	}
	if newest := got.HistorySince[len(got.HistorySince)-1]; newest.ID != rc.HistorySince[4999].ID || newest.Body != rc.HistorySince[4999].Body {
		t.Errorf("Encode() newest entry = %+v, want %+v whole", newest, rc.HistorySince[4999])
	}
}

func TestEncodeOldestByCreationTime(t *testing.T) {
	t.Parallel()
	h := history(20, func(i int) string { return strings.Repeat("x", 5000) })
	// Entry 0 is the newest comment despite its place in the list.
	h[0].CreatedAt = contextStart.Add(time.Hour)
	rc := testContext(h)
	out, err := rc.Encode(testRequest)
	if err != nil {
		t.Fatalf("Encode() = %v", err)
	}
	var got Context
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("Encode() = %.100q, which does not decode: %v", out, err)
	}
	if got.HistorySince[0].ID != h[0].ID || got.HistorySince[0].Body != h[0].Body {
		t.Errorf("Encode() entry 0 = %.80q, want the newest comment first in place and whole", got.HistorySince[0].Body)
	}
	if got.HistorySince[1].Body != TruncatedMarker {
		t.Errorf("Encode() entry 1 body = %.80q, want the oldest shortened to the marker", got.HistorySince[1].Body)
	}
}

func TestEncodeIsStableOnItsOwnOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rc   Context
	}{
		{"fits", testContext(history(3, func(i int) string { return "short" }))},
		{"shortened", testContext(history(40, func(i int) string { return strings.Repeat("é<\"", 900) }))},
		{"omitted", testContext(history(3000, func(i int) string { return "a comment long enough to be shortened" }))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, err := tt.rc.Encode(testRequest)
			if err != nil {
				t.Fatalf("Encode() = %v", err)
			}
			var decoded Context
			if err := json.Unmarshal([]byte(first), &decoded); err != nil {
				t.Fatalf("Encode() = %.100q, which does not decode: %v", first, err)
			}
			second, err := decoded.Encode(testRequest)
			if err != nil {
				t.Fatalf("Encode() of its own output = %v", err)
			}
			if second != first {
				t.Errorf("Encode() of its own output differs:\n%.300s\nwant\n%.300s", second, first)
			}
		})
	}
}

func TestEncodeNeverFailsForSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rc   Context
		req  DispatchRequest
	}{
		{
			name: "other_inputs_take_the_whole_limit",
			rc:   testContext(history(3, func(i int) string { return "hi" })),
			req:  DispatchRequest{CorrelationID: strings.Repeat("c", MaxDispatchInputChars), Discussion: 12},
		},
		{
			name: "huge_trigger",
			rc: func() Context {
				rc := testContext(history(3, func(i int) string { return "hi" }))
				rc.Trigger = json.RawMessage(`{"kind":"missing_input","replies":1,"from":["` + strings.Repeat("a", 70000) + `"]}`)
				return rc
			}(),
			req: testRequest,
		},
		{
			name: "entries_that_fit_nowhere",
			rc:   testContext(history(2, func(i int) string { return "hi" })),
			req:  DispatchRequest{CorrelationID: strings.Repeat("c", MaxDispatchInputChars-400), Discussion: 12},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := tt.rc.Encode(tt.req)
			if err != nil {
				t.Fatalf("Encode() = %v, want no error", err)
			}
			var got Context
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("Encode() = %.100q, which does not decode: %v", out, err)
			}
			if !got.Truncated || got.Omitted != len(tt.rc.HistorySince) || len(got.HistorySince) != 0 {
				t.Errorf("Encode() truncated = %v, omitted = %d, kept = %d, want true, %d, 0", got.Truncated, got.Omitted, len(got.HistorySince), len(tt.rc.HistorySince))
			}
		})
	}
}

func TestEncodeEncodingErrors(t *testing.T) {
	t.Parallel()
	badTrigger := testContext(nil)
	badTrigger.Trigger = json.RawMessage(`{"kind":`)
	badTime := testContext(history(1, func(int) string { return "hi" }))
	badTime.HistorySince[0].CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, rc := range map[string]Context{"invalid_trigger": badTrigger, "year_beyond_9999": badTime} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := rc.Encode(testRequest)
			var me *json.MarshalerError
			if !errors.As(err, &me) {
				t.Errorf("Encode() = %.100q, %v, want a *json.MarshalerError", out, err)
			}
		})
	}
}

func TestEncodeRandomContexts(t *testing.T) {
	t.Parallel()
	units := []string{"a", "word ", "é", "日", "😀", `"`, `\`, "\n", "\x01", "<", "&", "\u2028", "\xff", TruncatedMarker}
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 200 {
		n := rng.IntN(400)
		if run%10 == 0 {
			n = rng.IntN(4000)
		}
		// Up to about 2 MB of text per context: 30 times the limit.
		maxBody := min([]int{0, 50, 500, 5000, 40000}[rng.IntN(5)], 4<<20/(n+1))
		h := history(n, func(i int) string {
			var b strings.Builder
			size := rng.IntN(maxBody + 1)
			for b.Len() < size {
				b.WriteString(units[rng.IntN(len(units))])
			}
			return b.String()
		})
		for i := range h {
			if rng.IntN(10) == 0 {
				h[i].Author = strings.Repeat("<&>", rng.IntN(50))
			}
		}
		rc := testContext(h)
		rc.Omitted = rng.IntN(3)
		rc.Truncated = rc.Omitted > 0
		req := DispatchRequest{CorrelationID: strings.Repeat("c", 1+rng.IntN(200)), Discussion: 1 + rng.IntN(100000)}
		t.Run(fmt.Sprintf("run_%03d", run), func(t *testing.T) {
			t.Parallel()
			out, err := rc.Encode(req)
			if err != nil {
				t.Fatalf("Encode() = %v", err)
			}
			got := checkEncoded(t, rc, req, out)
			if s := slack(req, out); slices.Contains(shortened(rc, got), true) && s >= 8 {
				t.Errorf("Encode() shortened bodies yet left %d bytes unused, want < 8", s)
			}
		})
	}
}

// TestEscapeCostsMatchEncoder checks the planner's accounting against
// encoding/json itself, character by character and for whole strings.
func TestEscapeCostsMatchEncoder(t *testing.T) {
	t.Parallel()
	inputs := []string{"", "plain", `"\`, "\x00\x01\x1f\x7f\b\f\n\r\t", "<>&", "\u2028\u2029", "\xff\xc3(\xe2\x82", "é日😀\ufffd", TruncatedMarker}
	for b := range 256 {
		inputs = append(inputs, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"\u2028")
	}
	for _, s := range inputs {
		inner, err := encodeCompact(s)
		if err != nil {
			t.Fatalf("encodeCompact(%q) = %v", s, err)
		}
		outer, _ := json.Marshal(string(inner))
		if got, want := escapedLen(inner), len(outer)-2; got != want {
			t.Errorf("escapedLen(%q) = %d, want %d", inner, got, want)
		}
		if got, want := bodyCost(s), len(outer)-len(`"\"\""`); got != want {
			t.Errorf("bodyCost(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestBodyPrefixCutsOnRuneBoundaries(t *testing.T) {
	t.Parallel()
	s := "a😀é\u2028b"
	for budget := range bodyCost(s) + 2 {
		end, cost, whole := bodyPrefix(s, budget)
		if !utf8.ValidString(s[:end]) {
			t.Errorf("bodyPrefix(%q, %d) cut at %d, inside a rune", s, budget, end)
		}
		if cost > budget || cost != bodyCost(s[:end]) || whole != (end == len(s)) {
			t.Errorf("bodyPrefix(%q, %d) = %d, %d, %v; want cost %d <= budget", s, budget, end, cost, whole, bodyCost(s[:end]))
		}
		if !whole {
			if next, _, _ := bodyPrefix(s[end:], budget-cost); next != 0 {
				t.Errorf("bodyPrefix(%q, %d) stopped at %d with room left", s, budget, end)
			}
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	body := strings.Repeat("Ten kilobytes of comment text, \"quoted\" & <tagged>. ", 10240/52)
	rc := testContext(history(1000, func(int) string { return body }))
	var out string
	for b.Loop() {
		var err error
		if out, err = rc.Encode(testRequest); err != nil {
			b.Fatal(err)
		}
	}
	if s := slack(testRequest, out); s < 0 {
		b.Fatalf("Encode() overran the limit by %d", -s)
	}
}

// FuzzEncodeContext builds contexts from fuzzed text and sizes: the dispatch
// always fits, the result is a valid Context, and every kept entry is
// an original one with its url.
func FuzzEncodeContext(f *testing.F) {
	f.Add([]byte("hello"), uint16(3), uint16(1), uint8(10), "alice")
	f.Add([]byte("é\"<\u2028\x00😀\\\xff>&\n"), uint16(200), uint16(600), uint8(40), "<&>")
	f.Add([]byte(TruncatedMarker), uint16(3000), uint16(1), uint8(200), "")
	f.Add([]byte("\xed\xa0\x80\xc0\xaf"), uint16(1), uint16(65535), uint8(1), "\u2029")
	f.Fuzz(func(t *testing.T, unit []byte, count, repeat uint16, corrLen uint8, author string) {
		n := int(count % 1500) // 1,500 entries is about six times what fits
		// At most about 512 KB of text in all keeps a run quick; that is
		// still eight times what fits.
		reps := min(int(repeat), 512<<10/(n+1)/max(len(unit), 1))
		h := history(n, func(i int) string {
			k := (i * 7919) % (len(unit) + 1)
			return strings.Repeat(string(unit[:k]), 1+(i*31)%(reps+1))
		})
		for i := range h {
			if i%5 == 0 {
				h[i].Author = author
			}
		}
		rc := testContext(h)
		req := DispatchRequest{CorrelationID: strings.Repeat("c", int(corrLen)+1), Discussion: n + 1}
		out, err := rc.Encode(req)
		if err != nil {
			t.Fatalf("Encode() = %v", err)
		}
		checkEncoded(t, rc, req, out)
	})
}
