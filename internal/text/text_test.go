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
