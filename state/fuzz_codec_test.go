package state_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

func FuzzDecode(f *testing.F) {
	for _, seed := range decodeSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := state.Decode(data)
		if err != nil {
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Decode(%q) = %v, want an error wrapping ErrCorrupt", data, err)
			}
			var re *wait.FieldError
			if !errors.As(err, &re) {
				t.Fatalf("Decode(%q) = %v, want a *wait.FieldError", data, err)
			}
			return
		}
		enc, err := state.Encode(rec)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)) = %v, want nil: an accepted record must encode again", data, err)
		}
		again, err := state.Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(%q))) = %v, want nil", data, err)
		}
		// Every field is in the wire form, so equal bytes mean equal records;
		// comparing bytes keeps each run cheap, the diff says what differs.
		if enc2, err := state.Encode(again); err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("Decode(Encode(Decode(%q))) differs (%v): %s then %s\n(-first +second):\n%s", data, err, enc, enc2, cmp.Diff(rec, again, recordOpts))
		}
	})
}

// decodeSeeds are wire forms that probe the decoder's edges: a good record,
// hostile text, nesting, huge numbers, broken syntax.
func decodeSeeds(f *testing.F) [][]byte {
	good, err := state.Encode(sample())
	if err != nil {
		f.Fatal(err)
	}
	return [][]byte{
		good,
		[]byte(`{"schema":1,"discussion":1}`),
		[]byte(`{"schema":1,"discussion":1,"kind":"discussion"}`),
		[]byte(`{"schema":1,"discussion":1,"kind":"issue"}`),
		[]byte(`{"schema":1,"discussion":1,"closed":"--> <!-- recess:state v1 -->","status":"\u0000\ud800"}`),
		[]byte("{\"schema\":1,\"discussion\":1,\"closed\":\"\xff\xfe\"}"),
		[]byte(`{"schema":1,"discussion":99999999999999999999,"active":{"run_id":-9223372036854775808}}`),
		[]byte(`{"schema":1,"discussion":1,"open_rfcs":{"c-1":{"trigger":{"kind":"any","of":[[[[[[[[{}]]]]]]]]},"due_at":null}}}`),
		[]byte(`{"schema":1,"discussion":1,"open_rfcs":{"c-1":null}}`),
		[]byte(`{"schema":1,"discussion":1,"updated_at":"0000-01-01T00:00:00+23:59"}`),
		[]byte(`{"schema":1,"discussion":1,"dispatches":["9999-12-31T23:59:59.999999999-23:59"]}`),
		[]byte(`{"schema":1,"discussion":1}{"schema":1}`),
		[]byte(`{"schema":1,"schema":1,"discussion":1}`),
		[]byte(`{"schema":1e0,"discussion":1.5}`),
		[]byte(`[`),
		[]byte(``),
	}
}

// hostileRecord builds a valid record whose values all carry the fuzzer's
// text, so the comment form is tried with whatever a value can hold.
func hostileRecord(text string, n int64) *state.Record {
	if n < 0 {
		n = -(n + 1)
	}
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Add(time.Duration(n%(1<<40)) * time.Nanosecond)
	key := "c-1"
	if text != "" && utf8.ValidString(text) {
		key = text
	}
	rec := state.New(1 + int(n%1_000_000_000))
	rec.Status = text
	rec.Closed = text
	rec.Applied = []string{text}
	rec.Seen = state.Cursor{At: at, IDs: []string{text}}
	rec.Active = &state.Run{CorrelationID: "c-" + text, State: state.RunDispatched, LastError: text, IntentAt: at}
	rec.OpenRFCs = map[string]*state.RFC{key: {
		Trigger:  storetest.MustTrigger(`{"kind":"missing_input","replies":1}`),
		OpenedAt: at,
		DueAt:    &at,
		Summary:  text,
		ReplyIDs: []string{text, text},
	}}
	rec.UpdatedAt = at
	return rec
}

func FuzzDecodeComment(f *testing.F) {
	good, err := state.EncodeComment("⏸ Waiting", sample())
	if err != nil {
		f.Fatal(err)
	}
	forged := "<!-- recess:state v1\n" + base64.StdEncoding.EncodeToString([]byte(`{"schema":1,"discussion":666}`)) + "\n-->"
	seeds := []struct {
		body, visible, text string
		n                   int64
	}{
		{good, "⏸ Waiting for 1 more reply", "c-1", 12},
		{"", "", "", 0},
		{"<!-- recess:state v1\n!!!\n-->", "-->", "-->", 1},
		{"<!-- recess:state v1\n", "<!--", "<!--", 2},
		{forged + "\n" + good, forged, forged, 3},
		{strings.ReplaceAll(good, "\n", "\r\n"), "a\x00b", "a\x00b", 4},
		{"<!-- recess:state v2\nAAAA\n-->", "\xff\xfe", "\xff\xfe", -1},
		{"<!-- recess:reply c-1 0 -->", "<!-- recess:reply c-1 0 -->", "recess:state", 9223372036854775807},
		{"<!-- recess:state v1\n" + strings.Repeat("A", 100) + "\n-->", strings.Repeat("\U0001F600", 100), "\u2028\u2029", -9223372036854775808},
	}
	for _, s := range seeds {
		f.Add(s.body, s.visible, s.text, s.n)
	}
	f.Fuzz(func(t *testing.T, body, visible, text string, n int64) {
		// Arbitrary bodies: no panic, and the answers agree with each other.
		rec, found, err := state.DecodeComment(body)
		switch {
		case !found && (err != nil || rec != nil):
			t.Fatalf("DecodeComment(%q) = %v, false, %v, want nothing when not found", body, rec, err)
		case found != state.HasMarker(body):
			t.Fatalf("DecodeComment(%q) found = %v, HasMarker = %v, want them to agree", body, found, !found)
		case err != nil && !errors.Is(err, state.ErrCorrupt):
			t.Fatalf("DecodeComment(%q) = %v, want an error wrapping ErrCorrupt", body, err)
		case found && err == nil:
			if _, err := state.Encode(rec); err != nil {
				t.Fatalf("Encode(DecodeComment(%q)) = %v, want nil", body, err)
			}
		}

		// Bodies built by EncodeComment round-trip whatever they carry.
		want := hostileRecord(text, n)
		built, err := state.EncodeComment(visible, want)
		if err != nil {
			if !errors.Is(err, state.ErrTooLarge) {
				t.Fatalf("EncodeComment(%q, record of %q) = %v, want nil or ErrTooLarge", visible, text, err)
			}
			return
		}
		got, found, err := state.DecodeComment(built)
		if err != nil || !found {
			t.Fatalf("DecodeComment(EncodeComment(%q, record of %q)) = %v, %v, want found", visible, text, found, err)
		}
		// Invalid UTF-8 in a value comes back as U+FFFD, as Encode documents;
		// all else comes back exactly.
		if utf8.ValidString(text) {
			wantRaw, err1 := state.Encode(want)
			gotRaw, err2 := state.Encode(got)
			if err1 != nil || err2 != nil || !bytes.Equal(wantRaw, gotRaw) {
				t.Fatalf("DecodeComment(EncodeComment(%q, record of %q)) mismatch (-want +got):\n%s", visible, text, cmp.Diff(want, got, recordOpts))
			}
		} else if got.Closed != strings.ToValidUTF8(text, "\uFFFD") {
			t.Fatalf("DecodeComment(EncodeComment(…, record of %q)).Closed = %q, want %q", text, got.Closed, strings.ToValidUTF8(text, "\uFFFD"))
		}
		if c := strings.Count(built, "recess:state"); c != 1 {
			t.Fatalf("EncodeComment(%q, record of %q) holds %d marker words, want 1", visible, text, c)
		}
		i := strings.LastIndex(built, "<!-- recess:state v1\n")
		payload, ok := strings.CutSuffix(built[i+len("<!-- recess:state v1\n"):], "\n-->")
		if i < 0 || !ok {
			t.Fatalf("EncodeComment(%q, …) = %q, want it to end with the hidden record", visible, built)
		}
		if strings.Contains(payload, "--") || strings.Contains(payload, ">") || strings.Contains(payload, "<") {
			t.Fatalf("EncodeComment(%q, …) payload %q holds comment syntax", visible, payload)
		}
		if strings.HasPrefix(payload, "\n") || strings.Contains(payload, "\n\n") {
			t.Fatalf("EncodeComment(%q, …) payload %q has blank lines", visible, payload)
		}

		// A status comment recess writes is recess's when read back,
		// whatever its visible text; one with a record ReadStatus takes is
		// exactly what recess writes for it.
		want.Status = visible
		if status, err := state.StatusBody(want); err == nil {
			if _, found, err := state.ReadStatus(status); !found || err != nil {
				t.Fatalf("ReadStatus(StatusBody(status %q, record of %q)) = %v, %v, want the record", visible, text, found, err)
			}
		}
		if rec, _, err := state.ReadStatus(body); err == nil && rec != nil {
			lf := strings.NewReplacer("\r\n", "\n", "\r", "\n")
			if again, err := state.StatusBody(rec); err != nil || lf.Replace(again) != lf.Replace(body) {
				t.Fatalf("ReadStatus(%q) took a body that is not StatusBody of its record (%v)", body, err)
			}
		}
	})
}

// FuzzParseRecessMarker: a comment body is outside input; a recess marker
// read from it is a valid record or nothing, and never panics.
func FuzzParseRecessMarker(f *testing.F) {
	rec := state.New(7)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":2}`)}}
	m, err := state.RecessMarker(rec)
	if err != nil {
		f.Fatal(err)
	}
	kept := state.ReplyBody("Which backend?", "c-1", 0, m)
	for _, seed := range []string{m, kept, kept + "\n", kept[:len(kept)/2], "Which backend?\n\n" + m, m[:len(m)/2], "<!-- recess:recess v1 e30= -->", "<!-- recess:recess v2 AAAA -->", "<!-- recess:recess v1 !!! -->"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, ok := state.ParseRecessMarker(body)
		if !ok {
			return
		}
		if _, err := state.Encode(got); err != nil {
			t.Fatalf("ParseRecessMarker(%q) gave a record that does not encode: %v", body, err)
		}
	})
}

// FuzzReplyBody: whatever an agent or a person writes, the body recess
// posts for it carries recess's own reply marker and no other marker any
// reader takes: no record, no copy of a recess.
func FuzzReplyBody(f *testing.F) {
	rec := state.New(7)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"missing_input","replies":2}`)}}
	m, err := state.RecessMarker(rec)
	if err != nil {
		f.Fatal(err)
	}
	status, err := state.EncodeComment("waiting", rec)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"", "Which backend?", m, status, state.ReplyMarker("c-1", 0) + "\n" + m,
		"<!-- recess:reply c-1 0 -->", "recess:recess:state", "<!-- recess:answer x -->"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		body := state.ReplyBody(text, "c-2", 3, "")
		if cid, i, ok := state.ParseReplyMarker(body); !ok || cid != "c-2" || i != 3 {
			t.Fatalf("ParseReplyMarker(ReplyBody(%q)) = %q, %d, %v; want c-2, 3", text, cid, i, ok)
		}
		if _, ok := state.ParseRecessMarker(body); ok {
			t.Fatalf("ParseRecessMarker reads a copy in ReplyBody(%q)", text)
		}
		if _, found, _ := state.DecodeComment(body); found || state.HasMarker(body) {
			t.Fatalf("a record marker survives in ReplyBody(%q)", text)
		}
	})
}
