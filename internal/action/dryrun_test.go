package action

import (
	"strings"
	"testing"
)

// The excerpt a dry run and the lab show of a comment is its first line
// that is not blank, whichever break ends it: a body typed in GitHub's web
// UI has CRLF, and a leading blank line would show nothing.
func TestExcerpt_is_the_first_line_whatever_the_break(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{name: "lf", body: "one\ntwo", want: "one"},
		{name: "crlf", body: "one\r\ntwo", want: "one"},
		{name: "cr", body: "one\rtwo", want: "one"},
		{name: "line_separator", body: "one\u2028two", want: "one"},
		{name: "blank_line_first", body: "\r\n\r\nhello\r\nworld", want: "hello"},
		{name: "long_line_clipped", body: strings.Repeat("é", 105) + "\nmore", want: strings.Repeat("é", 100) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Excerpt(tt.body); got != tt.want {
				t.Errorf("Excerpt(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}
