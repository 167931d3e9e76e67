// Package text holds the rules recess applies to plain text wherever it
// shows or keeps some: shortening. Each rule is written here once, and
// every package that needs it calls it.
package text

import "unicode/utf8"

// Clip is s cut to at most n characters (runes), with "…" after it when it
// was cut.
func Clip(s string, n int) string { return ClipWith(s, n, "…") }

// ClipWith is s cut to at most n characters, with mark after it when it was
// cut.
func ClipWith(s string, n int, mark string) string {
	for i := range s {
		if n == 0 {
			return s[:i] + mark
		}
		n--
	}
	return s
}

// ClipBytes is s cut to at most n bytes without splitting a character,
// with "…" after it when it was cut: for text kept where room is counted
// in bytes.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
