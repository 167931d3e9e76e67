package wait

import "testing"

// BenchmarkParseTrigger parses the mix of benchTriggers once per operation,
// as decoding a record with that many open recesses would.
func BenchmarkParseTrigger(b *testing.B) {
	lim := TriggerLimits{MaxRecess: mustDuration(b, "P90D"), At: testOpenedAt}
	docs := make([][]byte, len(benchTriggers))
	for i, s := range benchTriggers {
		docs[i] = []byte(s)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			if _, err := ParseTrigger(d, lim); err != nil {
				b.Fatalf("ParseTrigger(%s) error = %v", d, err)
			}
		}
	}
}
