package wait

import (
	"strconv"
	"testing"
	"time"
)

// benchTriggers mix every kind, composites and expiries, as a sweep over
// many discussions would meet them.
var benchTriggers = []string{
	`{"kind":"missing_input","replies":2}`,
	`{"kind":"missing_input","replies":3,"from":["alice","bob","carol"]}`,
	`{"kind":"missing_input","replies":1,"scope":"thread","expires":"P7D"}`,
	`{"kind":"elapsed","elapsed":"P2D"}`,
	`{"kind":"elapsed","elapsed":"PT12H","expires":"P1D","on_expire":"cancel"}`,
	`{"kind":"escalation_needed","signal":"security-review"}`,
	`{"kind":"escalation_needed","signal":"go","expires":"P3D","on_expire":"cancel"}`,
	`{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`,
	`{"kind":"all","of":[{"kind":"missing_input","replies":1,"from":["alice"]},{"kind":"escalation_needed","signal":"go"}],"expires":"P14D"}`,
	`{"kind":"any","of":[{"kind":"all","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P1D"}]},{"kind":"elapsed","elapsed":"P1W"}]}`,
}

type benchRFC struct {
	trigger *Trigger
	obs     Observed
}

func benchRFCs(b *testing.B, n int) []benchRFC {
	b.Helper()
	lim := TriggerLimits{MaxRecess: mustDuration(b, "P90D"), At: testOpenedAt}
	parsed := make([]*Trigger, len(benchTriggers))
	for i, doc := range benchTriggers {
		t, err := ParseTrigger([]byte(doc), lim)
		if err != nil {
			b.Fatalf("ParseTrigger(%q) error = %v", doc, err)
		}
		parsed[i] = t
	}
	authors := []string{"alice", "Bob", "carol", "dave"}
	rfcs := make([]benchRFC, n)
	for i := range rfcs {
		opened := testOpenedAt.Add(-time.Duration(i%240) * time.Hour)
		obs := Observed{OpenedAt: opened, ThreadRoots: []string{"DC_root" + strconv.Itoa(i)}}
		for j := range 1 + i%5 { // 1..5 replies, 3 on average
			parent := ""
			if j%2 == 1 {
				parent = obs.ThreadRoots[0]
			}
			obs.Replies = append(obs.Replies, Reply{
				ID: "DC_" + strconv.Itoa(i) + "_" + strconv.Itoa(j), Author: authors[(i+j)%len(authors)],
				Root: parent, CreatedAt: opened.Add(time.Duration(j*(i%97+1)) * time.Hour),
			})
		}
		if i%7 == 0 {
			obs.Signals = []Signal{{Name: "go", At: opened.Add(time.Hour)}}
		}
		if i%11 == 0 {
			obs.Extensions = []Duration{mustDuration(b, "P1D")}
		}
		rfcs[i] = benchRFC{trigger: parsed[i%len(parsed)], obs: obs}
	}
	return rfcs
}

// BenchmarkEvaluate10k evaluates 10,000 varied RFCs per operation, what one
// sweep over a busy repository would do.
func BenchmarkEvaluate10k(b *testing.B) {
	const n = 10000
	rfcs := benchRFCs(b, n)
	now := testOpenedAt.Add(36 * time.Hour)
	fired := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fired = 0
		for i := range rfcs {
			if Evaluate(rfcs[i].trigger, rfcs[i].obs, now).Fired {
				fired++
			}
		}
	}
	b.StopTimer()
	if fired == 0 || fired == n {
		b.Fatalf("Evaluate fired %d of %d RFCs, want a mix", fired, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/rfc")
}
