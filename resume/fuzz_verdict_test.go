package resume

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
)

// FuzzParseVerdict checks that no input panics, that every refusal is a
// *FieldError, and that an accepted verdict satisfies every bound and reads
// the same as encoding/json reads the document. The seed corpus in
// testdata/fuzz/FuzzParseVerdict holds valid verdicts of both kinds and
// hostile ones. Megabyte documents stay in TestParseVerdictRefuses: as
// seeds they slow the fuzzer's mutations to a crawl.
func FuzzParseVerdict(f *testing.F) {
	f.Add([]byte(verdictDoc(VerdictAdjourned, `"replies":[{"body":"done"}]`)))
	f.Add([]byte(verdictDoc(VerdictRecessed, `"trigger":{"kind":"elapsed","elapsed":"PT12H"}`)))
	f.Add([]byte(verdictDoc(VerdictAdjourned, `"replies":[`+strings.Repeat(`{"body":"x"},`, MaxReplies)+`{"body":"x"}]`)))
	f.Add([]byte(verdictDoc(VerdictRecessed, `"replies":[{"body":"-->\u0000"}]`, `"trigger":{"kind":"all","of":[]}`)))
	lim := verdictLimits(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseVerdict(data, lim)
		if err != nil {
			var fe *wait.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("ParseVerdict(%.200q) = %v, want a *FieldError naming a field", data, err)
			}
			if v != nil {
				t.Fatalf("ParseVerdict(%.200q) = %+v with error %v, want nil", data, v, err)
			}
			return
		}
		checkVerdictBounds(t, data, v, lim)
	})
}

// checkVerdictBounds verifies an accepted verdict against every bound
// ParseVerdict promises.
func checkVerdictBounds(t *testing.T, data []byte, v *Verdict, lim wait.TriggerLimits) {
	t.Helper()
	if len(data) > MaxVerdictBytes || !json.Valid(data) {
		t.Fatalf("ParseVerdict accepted %d bytes, valid JSON %v", len(data), json.Valid(data))
	}
	if v.Verdict != VerdictAdjourned && v.Verdict != VerdictRecessed {
		t.Errorf("ParseVerdict(%.200q).Verdict = %q", data, v.Verdict)
	}
	if checkID(v.CorrelationID, "id", correlationIDChars) != nil {
		t.Errorf("ParseVerdict(%.200q).CorrelationID = %q, not a valid id", data, v.CorrelationID)
	}
	if v.DiscussionNumber < 1 || v.DiscussionNumber > maxDiscussionNumber {
		t.Errorf("ParseVerdict(%.200q).DiscussionNumber = %d", data, v.DiscussionNumber)
	}
	if len(v.Replies) > MaxReplies {
		t.Errorf("ParseVerdict(%.200q) has %d replies, want <= %d", data, len(v.Replies), MaxReplies)
	}
	for i, r := range v.Replies {
		if !utf8.ValidString(r.Body) || strings.ContainsRune(r.Body, 0) || strings.TrimSpace(r.Body) == "" ||
			utf8.RuneCountInString(r.Body) > MaxReplyBody {
			t.Errorf("ParseVerdict(%.200q).Replies[%d].Body = %.100q breaks a bound", data, i, r.Body)
		}
		if r.ReplyTo != "" && checkID(r.ReplyTo, "id", nodeIDChars) != nil {
			t.Errorf("ParseVerdict(%.200q).Replies[%d].ReplyTo = %q, not a node id", data, i, r.ReplyTo)
		}
	}
	if !utf8.ValidString(v.Summary) || strings.ContainsRune(v.Summary, 0) || utf8.RuneCountInString(v.Summary) > MaxSummary {
		t.Errorf("ParseVerdict(%.200q).Summary = %.100q breaks a bound", data, v.Summary)
	}
	if recessed := v.Verdict == VerdictRecessed; (v.Trigger != nil) != recessed || (v.TriggerJSON != nil) != recessed {
		t.Errorf("ParseVerdict(%.200q) %s with Trigger %v, TriggerJSON %s", data, v.Verdict, v.Trigger, v.TriggerJSON)
	}
	if v.Trigger != nil {
		again, err := wait.ParseTrigger(v.TriggerJSON, lim)
		if err != nil {
			t.Fatalf("ParseTrigger(%s) of the canonical form = %v", v.TriggerJSON, err)
		}
		if b, err := json.Marshal(again); err != nil || string(b) != string(v.TriggerJSON) {
			t.Errorf("canonical trigger %s reads back as %s, %v", v.TriggerJSON, b, err)
		}
	}

	// With duplicates, case games and broken text refused, encoding/json
	// must read the same document the same way.
	var plain struct {
		Verdict          string `json:"verdict"`
		CorrelationID    string `json:"correlation_id"`
		DiscussionNumber int    `json:"discussion_number"`
		Replies          []struct {
			Body    string `json:"body"`
			ReplyTo string `json:"reply_to"`
		} `json:"replies"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(data, &plain); err != nil {
		t.Fatalf("json.Unmarshal(%.200q) = %v for an accepted verdict", data, err)
	}
	if plain.Verdict != v.Verdict || plain.CorrelationID != v.CorrelationID || plain.DiscussionNumber != v.DiscussionNumber ||
		plain.Summary != v.Summary || len(plain.Replies) != len(v.Replies) {
		t.Fatalf("encoding/json reads %.200q as %+v, ParseVerdict as %+v", data, plain, v)
	}
	for i, r := range plain.Replies {
		if r.Body != v.Replies[i].Body || r.ReplyTo != v.Replies[i].ReplyTo {
			t.Errorf("encoding/json reads reply %d as %+v, ParseVerdict as %+v", i, r, v.Replies[i])
		}
	}
}
