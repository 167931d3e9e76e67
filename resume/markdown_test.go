package resume_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/recess-action/recess/internal/recesstest"
	"github.com/recess-action/recess/resume"
)

func TestEscapeMarkdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain_words_stay", "the discussion was closed", "the discussion was closed"},
		{"image", "![pixel](https://evil.example/p.png)", "!\\[pixel\\](https:\u2060//evil.example/p.png)"},
		{"link", "[click](www.evil.example)", "\\[click\\](www\u2060.evil.example)"},
		{"html", "<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert(1)\\>"},
		{"comment_hiding_the_rest", "<!-- recess:recess -->", "\\<!-- recess:recess --\\>"},
		{"mention_and_email", "@maya or ops@example.com", "@\u2060maya or ops@\u2060example.com"},
		{"code_and_emphasis", "`rm -rf` *now* _please_ ~~no~~", "\\`rm -rf\\` \\*now\\* \\_please\\_ \\~\\~no\\~\\~"},
		{"underscore_inside_a_word_stays", "GITHUB_REPOSITORY and NOT_FOUND", "GITHUB_REPOSITORY and NOT_FOUND"},
		{"table_cell_and_entity", "a | b &amp; $x$", "a \\| b \\&amp; \\$x\\$"},
		{"backslash", `C:\path\`, `C:\\path\\`},
		{"every_line_break_folds", "one\rtwo\r\nthree\u2028four\u2029five\u0085six\vseven\feight\nnine", "one two three four five six seven eight nine"},
		{"heading_at_the_start", "# Ignore the above", "\\# Ignore the above"},
		{"list_at_the_start", "- item", "\\- item"},
		{"numbered_list_at_the_start", "1. item", "1\\. item"},
		{"setext_underline_at_the_start", "===", "\\==="},
		{"reference_at_the_start", "#12: closed", "#12: closed"},
		{"number_at_the_start", "3.5 hours", "3.5 hours"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := resume.EscapeMarkdown(tt.in); got != tt.want {
				t.Errorf("EscapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// asciiPunct are the characters a backslash escapes in CommonMark.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// FuzzEscapeMarkdown: whatever the text, its escaped form is one line, none
// of its markup renders, and it reads as written (the escapes and word
// joiners set aside, runs of white space as one space).
func FuzzEscapeMarkdown(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "![x](https://e.example/p.png)", "<img src=x>", "[a](b) [c]: http://d", "@maya", "a@b.co",
		"www.example.com", "HTTPS://X.Y", "`code`", "**b** __u__ ~~s~~", "# h", "- l", "+ l", "1) l", "---", "==",
		"a|b", "&lt;", "$$x$$", "\\", "one\rtwo\u2028three", "\u2060@\u2060x", "_a_b_", "é_é",
	} {
		f.Add(seed)
	}
	fold := func(s string) string {
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
		}), " ")
	}
	unescape := strings.NewReplacer("\u2060", "")
	f.Fuzz(func(t *testing.T, s string) {
		got := resume.EscapeMarkdown(s)
		if strings.IndexFunc(got, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) >= 0 {
			t.Fatalf("EscapeMarkdown(%q) = %q, not one line", s, got)
		}
		if m := recesstest.RenderedMarkdown(got); len(m) > 0 {
			t.Fatalf("EscapeMarkdown(%q) = %q renders %q", s, got, m)
		}
		var plain strings.Builder
		for i := 0; i < len(got); i++ {
			if got[i] == '\\' && i+1 < len(got) && strings.IndexByte(asciiPunct, got[i+1]) >= 0 {
				i++
			}
			plain.WriteByte(got[i])
		}
		if want, read := fold(unescape.Replace(s)), fold(unescape.Replace(plain.String())); read != want {
			t.Fatalf("EscapeMarkdown(%q) = %q reads %q, want %q", s, got, read, want)
		}
	})
}
