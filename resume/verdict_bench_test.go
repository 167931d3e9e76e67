package resume

import (
	"strings"
	"testing"
)

// BenchmarkParseVerdict parses a recessed verdict with the most replies a
// verdict may post, each a few kilobytes long.
func BenchmarkParseVerdict(b *testing.B) {
	body := strings.Repeat("Which storage backend should we assume? é 日本 \\n ", 60)
	replies := make([]string, MaxReplies)
	for i := range replies {
		replies[i] = `{"body":"` + body + `","reply_to":"DC_kwDOabc"}`
	}
	doc := []byte(verdictDoc(VerdictRecessed, `"replies":[`+strings.Join(replies, ",")+`]`,
		`"trigger":{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}],"expires":"P30D"}`,
		`"summary":"waiting for the storage owners"`))
	lim := verdictLimits(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseVerdict(doc, lim); err != nil {
			b.Fatal(err)
		}
	}
}
