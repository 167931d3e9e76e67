package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Shortening never splits a character, says that it cut, and leaves a text
// that fits as it was.
func TestClip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{name: "fits", in: "hello", n: 5, want: "hello"},
		{name: "empty", in: "", n: 0, want: ""},
		{name: "cut", in: "hello", n: 3, want: "hel…"},
		{name: "cut_to_nothing", in: "hello", n: 0, want: "…"},
		{name: "counts_characters_not_bytes", in: "ééé", n: 2, want: "éé…"},
		{name: "multibyte_fits", in: "日本語", n: 3, want: "日本語"},
		{name: "emoji", in: "👍👍👍", n: 1, want: "👍…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Clip(tt.in, tt.n); got != tt.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestClipWith(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{name: "fits", in: "abc", n: 3, want: "abc"},
		{name: "cut", in: "abcd", n: 3, want: "abc [more]"},
		{name: "cut_after_a_multibyte_character", in: "aé€d", n: 3, want: "aé€ [more]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ClipWith(tt.in, tt.n, " [more]"); got != tt.want {
				t.Errorf("ClipWith(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

// A text kept where room is counted in bytes is cut on a character
// boundary, never inside one.
func TestClipBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{name: "fits", in: "abc", n: 3, want: "abc"},
		{name: "cut", in: "abcd", n: 3, want: "abc…"},
		{name: "inside_a_two_byte_character", in: "aé", n: 2, want: "a…"},
		{name: "inside_a_four_byte_character", in: "ab👍", n: 5, want: "ab…"},
		{name: "on_a_boundary", in: "é€x", n: 5, want: "é€…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ClipBytes(tt.in, tt.n)
			if got != tt.want {
				t.Errorf("ClipBytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("ClipBytes(%q, %d) = %q, not valid UTF-8", tt.in, tt.n, got)
			}
		})
	}
}

// ClipLine keeps text from outside on one line, whatever break or control
// character it holds, before it shortens it.
func TestClipLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{name: "plain", in: "alice", n: 64, want: "alice"},
		{name: "every_break", in: "a\nb\rc\r\nd\u2028e\u2029f\u0085g\vh\fi", n: 64, want: "a b c  d e f g h i"},
		{name: "control_characters", in: "a\tb\x00c\x1bd", n: 64, want: "a b c d"},
		{name: "then_clipped", in: "line one\nline two", n: 8, want: "line one…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ClipLine(tt.in, tt.n); got != tt.want {
				t.Errorf("ClipLine(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

// Every form of line break is one break, CRLF included; nothing else is.
func TestBreak(t *testing.T) {
	t.Parallel()
	for _, r := range "\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029" {
		if !Break(r) {
			t.Errorf("Break(%U) = false, want true", r)
		}
	}
	for _, r := range " \ta\x00\u00a0\u200b" {
		if Break(r) {
			t.Errorf("Break(%U) = true, want false", r)
		}
	}
	if got, want := NormalizeBreaks("a\r\nb\rc\u2028d\ve"), "a\nb\nc\nd\ne"; got != want {
		t.Errorf("NormalizeBreaks = %q, want %q", got, want)
	}
}

// The first line is the first that is not blank, ended by any break; what
// follows it is trimmed and keeps its own breaks.
func TestFirstLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in   string
		line, rest string
	}{
		{name: "one_line", in: "hello", line: "hello"},
		{name: "lf", in: "one\ntwo\nthree", line: "one", rest: "two\nthree"},
		{name: "crlf", in: "one\r\ntwo", line: "one", rest: "two"},
		{name: "cr", in: "one\rtwo", line: "one", rest: "two"},
		{name: "nel", in: "one\u0085two", line: "one", rest: "two"},
		{name: "line_separator", in: "one\u2028two", line: "one", rest: "two"},
		{name: "paragraph_separator", in: "one\u2029two", line: "one", rest: "two"},
		{name: "vertical_tab", in: "one\vtwo", line: "one", rest: "two"},
		{name: "form_feed", in: "one\ftwo", line: "one", rest: "two"},
		{name: "blank_lines_first", in: "\n  \r\n\tone\n\ntwo  ", line: "\tone", rest: "two"},
		{name: "only_blank", in: "\n \n", line: ""},
		{name: "empty", in: "", line: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			line, rest := FirstLine(tt.in)
			if line != tt.line || rest != tt.rest {
				t.Errorf("FirstLine(%q) = %q, %q; want %q, %q", tt.in, line, rest, tt.line, tt.rest)
			}
		})
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want string
	}{
		{0, "0 replies"},
		{1, "1 reply"},
		{2, "2 replies"},
		{-1, "-1 replies"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, "reply", "replies"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// A sentence opens with a capital, whatever word recess chose; what is
// not a lower-case ASCII letter stays as it is.
func TestCapital(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"pull request": "Pull request", "Issue": "Issue", "": "", "2 comments": "2 comments", "été": "été"} {
		if got := Capital(in); got != want {
			t.Errorf("Capital(%q) = %q, want %q", in, got, want)
		}
	}
}

// No shortening lets a text grow past its bound plus the mark.
func FuzzClip(f *testing.F) {
	for _, s := range []string{"", "abc", "ééé", "👍x", "a\xffb"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = max(n%64, 0)
		if got := Clip(s, n); utf8.RuneCountInString(strings.TrimSuffix(got, "…")) > n || !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
			t.Errorf("Clip(%q, %d) = %q", s, n, got)
		}
		if got := ClipBytes(s, n); len(strings.TrimSuffix(got, "…")) > n || !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) ||
			utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("ClipBytes(%q, %d) = %q", s, n, got)
		}
	})
}
