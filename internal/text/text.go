// Package text holds the rules recess applies to plain text wherever it
// shows or keeps some: what ends a line, the first line of a text, a text
// on one line, shortening, counting in words, and the items of a list.
// Each rule is written here once, and every package that needs it calls
// it.
package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Break reports whether some reader ends a line at r: LF, CR, NEL, LS
// (U+2028), PS (U+2029), vertical tab, form feed, and the separators FS,
// GS and RS that Python's str.splitlines honours too. CRLF is one break.
func Break(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// NormalizeBreaks makes every line break in s a "\n".
func NormalizeBreaks(s string) string {
	return strings.Map(func(r rune) rune {
		if Break(r) {
			return '\n'
		}
		return r
	}, strings.ReplaceAll(s, "\r\n", "\n"))
}

// FirstLine splits s into its first line that is not blank and what
// follows it, trimmed. A body typed in GitHub's web UI has CRLF, and every
// other break (Break) ends a line too.
func FirstLine(s string) (line, rest string) {
	for {
		line, rest, found := cutLine(s)
		if strings.TrimSpace(line) != "" || !found {
			return line, strings.TrimSpace(rest)
		}
		s = rest
	}
}

// cutLine cuts s at its first line break, leaving every other byte as it
// was.
func cutLine(s string) (line, rest string, found bool) {
	i := strings.IndexFunc(s, Break)
	if i < 0 {
		return s, "", false
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == '\r' && strings.HasPrefix(s[i+1:], "\n") {
		n++
	}
	return s[:i], s[i+n:], true
}

// OneLine is s with every line break and control character made a space,
// so that text from outside cannot start a line of its own where it is
// shown (a prompt, a log line, an annotation).
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if Break(r) || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// Clip is s cut to at most n characters (runes), with "…" after it when it
// was cut.
func Clip(s string, n int) string { return ClipWith(s, n, "…") }

// ClipLine is s on one line (OneLine) and clipped to n characters (Clip).
func ClipLine(s string, n int) string { return Clip(OneLine(s), n) }

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

// Count is "1 reply", "2 replies", "0 replies": how recess counts things
// in words, everywhere.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Capital is s with its first letter upper case ("Pull request #7"), for
// a sentence that opens with a word recess chose (ASCII).
func Capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Items are the names in a comma- or newline-separated list, each trimmed,
// blanks dropped (names may hold spaces: "Show and tell"): how recess
// reads a list input, and how `recess check` reads one.
func Items(v string) []string {
	out := []string{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
