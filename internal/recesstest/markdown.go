package recesstest

import "regexp"

// markup is what GitHub would render in a line of Markdown, once escaped
// characters are set aside: an image or a link, HTML, a bare URL, an
// @mention or e-mail address, a code span, an entity, emphasis.
var markup = []*regexp.Regexp{
	regexp.MustCompile(`\[[^\]]*\]\(`),                     // [text](url), ![alt](src)
	regexp.MustCompile(`<[A-Za-z!/?]`),                     // HTML, <https://…>
	regexp.MustCompile(`(?i)(https?|ftp)://`),              // bare URLs
	regexp.MustCompile(`(?i)\bwww\.`),                      // www. links
	regexp.MustCompile(`@[A-Za-z0-9]`),                     // mentions, e-mail
	regexp.MustCompile("`"),                                // code spans
	regexp.MustCompile(`&[#A-Za-z0-9]+;`),                  // entities
	regexp.MustCompile(`(^|[^\pL\pN])_|_($|[^\pL\pN])|\*`), // emphasis
	regexp.MustCompile(`~|\|`),                             // strikethrough, table cells
}

// escapedPunct is a backslash escape: it renders the character as written.
var escapedPunct = regexp.MustCompile(`\\[!-/:-@\[-` + "`" + `{-~]`)

// RenderedMarkdown lists the markup a line of someone else's text would
// render on GitHub. What was escaped (a backslash before punctuation, a word
// joiner inside a URL or a mention) renders as written and is not listed.
func RenderedMarkdown(line string) []string {
	plain := escapedPunct.ReplaceAllString(line, "x")
	var found []string
	for _, re := range markup {
		found = append(found, re.FindAllString(plain, -1)...)
	}
	return found
}
