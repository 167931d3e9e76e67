package wait

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fuzzMoment maps any int64 onto a moment in years 1970..9999, the range
// AddTo promises not to overflow in.
func fuzzMoment(n int64) time.Time {
	lo := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	span := hi - lo + 1
	sec := n % span
	if sec < 0 {
		sec += span
	}
	return time.Unix(lo+sec, (n&0x3fffffff)%1e9).UTC()
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{
		"P1D", "PT12H", "P1DT6H", "P2W", "PT90M", "P1Y2M3W4DT5H6M7S", "PT0.5H", "P1DT1.5S", "P1.5D", "P1,5W",
		"P", "PT", "P1H", "1D", "P1DT", "-P1D", "PT0S", "P0D", "P1.5DT2H", "P1.5Y", "P99999999999Y",
		"PT0.000000001S", "P10000Y120000M530000W3660000DT2562047H", "PT2562048H", "P1D1D", "P1W1Y",
	} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, start int64) {
		d, err := ParseDuration(s)
		if err != nil {
			if d != (Duration{}) {
				t.Errorf("ParseDuration(%q) = %#v with error %v, want the zero Duration", s, d, err)
			}
			return
		}
		if got := d.String(); got != s {
			t.Errorf("ParseDuration(%q).String() = %q, want the input", s, got)
		}
		again, err := ParseDuration(d.String())
		if err != nil || !again.Equal(d) {
			t.Errorf("ParseDuration(ParseDuration(%q).String()) = %#v, %v, want %#v", s, again, err, d)
		}
		// The canonical form of the components means the same duration.
		bare := Duration{Years: d.Years, Months: d.Months, Weeks: d.Weeks, Days: d.Days, Clock: d.Clock}
		canon, err := ParseDuration(bare.String())
		if err != nil || !canon.Equal(bare) {
			t.Errorf("ParseDuration(%q) (canonical of %q) = %#v, %v, want %#v", bare.String(), s, canon, err, bare)
		}
		from := fuzzMoment(start)
		if to := d.AddTo(from); !to.After(from) {
			t.Errorf("ParseDuration(%q).AddTo(%s) = %s, want a later moment", s, from, to)
		}
	})
}

func FuzzParseTrigger(f *testing.F) {
	for _, doc := range []string{
		`{"kind":"missing_input","replies":2}`,
		`{"kind":"missing_input","replies":2,"from":["alice","dependabot[bot]"],"scope":"thread","expires":"P7D","on_expire":"cancel"}`,
		`{"kind":"elapsed","elapsed":"P2D"}`,
		`{"kind":"elapsed","elapsed":"PT0,5H","expires":"PT1H"}`,
		`{"kind":"escalation_needed","signal":"security-review"}`,
		`{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`,
		`{"kind":"all","of":[{"kind":"any","of":[{"kind":"elapsed","elapsed":"P1D"},{"kind":"escalation_needed","signal":"go"}]},{"kind":"missing_input","replies":1,"expires":"P3D","on_expire":"cancel"}],"expires":"P14D","on_expire":"resume"}`,
		`{"kind":"any","of":[{"kind":"all","of":[{"kind":"any","of":[]}]}]}`,
		`{"kind":"missing_input","replies":2,"replies":3}`,
		`{"kind":"missing_input","replies":2.5}`,
		`{"kind":"elapsed","elapsed":"P91D"}`,
		`{"kind":"elapsed","elapsed":null,"on_expire":"cancel"}`,
		`{"kind":"elapsed","elapsed":"P1D"} {}`,
		`[]`,
		`{"kind":"x","\u006bind":1}`,
	} {
		f.Add([]byte(doc), int64(3600), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, nowOffset int64, replies uint8) {
		lim := TriggerLimits{MaxRecess: Duration{Days: 90, text: "P90D"}, At: testOpenedAt}
		trig, err := ParseTrigger(data, lim)
		if err != nil {
			if trig != nil {
				t.Errorf("ParseTrigger(%q) = %v with error %v, want nil", data, trig, err)
			}
			return
		}
		out, err := trig.MarshalJSON()
		if err != nil {
			t.Fatalf("ParseTrigger(%q).MarshalJSON() error = %v", data, err)
		}
		if len(out) > len(data) {
			t.Errorf("MarshalJSON(ParseTrigger(%q)) = %s, longer than the document", data, out)
		}
		again, err := ParseTrigger(out, lim)
		if err != nil {
			t.Fatalf("ParseTrigger(MarshalJSON(ParseTrigger(%q))) = %s: error = %v", data, out, err)
		}
		if diff := cmp.Diff(trig, again); diff != "" {
			t.Errorf("ParseTrigger(%q) did not round trip (-first +again):\n%s", data, diff)
		}
		obs := Observed{OpenedAt: testOpenedAt, ThreadRoots: []string{"DC_root"}, Extensions: []Duration{{Days: 1}}}
		for i := range int(replies % 8) {
			obs.Replies = append(obs.Replies, Reply{
				ID: "DC_" + string(rune('a'+i)), Author: []string{"alice", "Bob", "carol"}[i%3],
				Root: []string{"", "DC_root"}[i%2], CreatedAt: testOpenedAt.Add(time.Duration(i*7919) * time.Minute),
			})
		}
		if replies&8 != 0 {
			obs.Signals = append(obs.Signals, Signal{Name: "go", At: testOpenedAt.Add(time.Hour)})
		}
		if replies&16 != 0 {
			obs.Signals = append(obs.Signals, Signal{Name: AnySignal})
		}
		now := testOpenedAt.Add(time.Duration(nowOffset%(200*24)) * time.Hour)
		ev := Evaluate(trig, obs, now)
		if ev.Fired && ev.Cancelled {
			t.Errorf("Evaluate(%s) = %+v, both fired and cancelled", out, ev)
		}
		if ev.Fired && (ev.FiredBy == "" || ev.At.IsZero()) {
			t.Errorf("Evaluate(%s) = %+v, a fire needs fired_by and its moment", out, ev)
		}
		if ev.Cancelled && ev.DueAt != nil {
			t.Errorf("Evaluate(%s) = %+v, a cancelled trigger has no due moment", out, ev)
		}
		if ev.DueAt != nil && ev.DueAt.Before(testOpenedAt) {
			t.Errorf("Evaluate(%s) = %+v, due before the recess opened", out, ev)
		}
		if ev.DueAt != nil && !hasTimeComponent(trig) {
			t.Errorf("Evaluate(%s) = %+v, a due moment without any time component", out, ev)
		}
		if ev.Reason == "" {
			t.Errorf("Evaluate(%s) reason is empty", out)
		}
	})
}

// hasTimeComponent reports whether time alone could ever fire t: an
// elapsed node or a resume expiry somewhere in it.
func hasTimeComponent(t *Trigger) bool {
	if t.Kind == KindElapsed || (t.Expires != nil && t.OnExpire != OnExpireCancel) {
		return true
	}
	for _, c := range t.Of {
		if hasTimeComponent(c) {
			return true
		}
	}
	return false
}
