package resume

import (
	"fmt"
	"sort"
	"strings"

	"github.com/recess-action/recess/resume/wait"
)

// Texts are the words recess shows people in discussions (the status
// comment, its notes and its answers to commands), by key. A maintainer may
// override any of them (.github/recess.yml, texts:); {name} placeholders are
// filled in, and each key lists the ones it knows (see TextKeys).
var defaultTexts = map[string]string{
	// The status comment, one line per state.
	"status.waiting":   "⏸️ Waiting {what}.",
	"status.why":       "The agent's note: {summary}",
	"status.working":   "▶️ An agent is working on this discussion{run}.",
	"status.resumed":   "▶️ Resumed because {why}; an agent is working on this discussion{run}.",
	"status.attempt":   "This is attempt {attempt} of {attempts}.",
	"status.escalated": "⚠️ recess stopped starting agent runs here: {reason}. A maintainer can say `/recess retry` to try again.",
	"status.queued":    "⏳ An answer is owed here; it starts after {until}, because {reason}.",
	"status.closed":    "⏹️ Not waiting any more: {reason}.",
	"status.idle":      "✅ Nothing is pending here.",
	"status.footer":    "Kept up to date by recess. Maintainers can say `/recess status`, `cancel`, `resume`, `signal NAME`, `retry`, `extend DURATION` or `ask`.",
	// Notes recess posts in the discussion.
	"note.escalated": "⚠️ recess stopped starting agent runs for this discussion: {reason}.{mentions} A maintainer can say `/recess retry` to try again.",
	"note.cancelled": "⏹️ No longer waiting here: @{author} cancelled the wait.",
	"note.expired":   "⏹️ No longer waiting here: the wait ended at {at}, still waiting {what}.",
	// The line above a verdict reply posted at the top level instead of
	// under the comment it answers.
	"reply.answered": "↪️ In answer to {what}:",
	// Answers to slash commands.
	"answer.refused":        "I did not act on this: {why}.",
	"answer.no_recess":      "There is no open recess here to {command}.",
	"answer.not_escalated":  "Nothing is escalated here: there is nothing to retry.",
	"answer.already_active": "An agent run is already under way or a recess is open here: there is nothing to ask for.",
}

// textPlaceholders are the placeholders each text may use.
var textPlaceholders = map[string][]string{
	"status.waiting":        {"what"},
	"status.why":            {"summary"},
	"status.working":        {"run"},
	"status.resumed":        {"why", "run"},
	"status.attempt":        {"attempt", "attempts"},
	"status.escalated":      {"reason"},
	"status.queued":         {"until", "reason"},
	"status.closed":         {"reason"},
	"status.idle":           nil,
	"status.footer":         nil,
	"note.escalated":        {"reason", "mentions"},
	"note.cancelled":        {"author"},
	"note.expired":          {"at", "what"},
	"reply.answered":        {"what"},
	"answer.refused":        {"why"},
	"answer.no_recess":      {"command"},
	"answer.not_escalated":  nil,
	"answer.already_active": nil,
}

// TextKeys lists the keys of the texts a maintainer may override, sorted.
func TextKeys() []string {
	keys := make([]string, 0, len(defaultTexts))
	for k := range defaultTexts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CheckTexts validates overrides: known keys, known placeholders, and a text
// that is not empty. The error names the field (texts.KEY).
func CheckTexts(texts map[string]string) error {
	for _, k := range sortedKeys(texts) {
		v := texts[k]
		allowed, ok := textPlaceholders[k]
		if !ok {
			return &wait.FieldError{Field: "texts." + k, Reason: "unknown text (known: " + strings.Join(TextKeys(), ", ") + ")"}
		}
		if strings.TrimSpace(v) == "" {
			return &wait.FieldError{Field: "texts." + k, Reason: "empty"}
		}
		for rest := v; ; {
			i := strings.IndexByte(rest, '{')
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i:], '}')
			if j < 0 {
				break
			}
			name := rest[i+1 : i+j]
			if isPlaceholderName(name) && !contains(allowed, name) {
				return &wait.FieldError{Field: "texts." + k, Reason: fmt.Sprintf("unknown placeholder {%s} (this text knows %s)", name, placeholderList(allowed))}
			}
			rest = rest[i+j+1:]
		}
	}
	return nil
}

func isPlaceholderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

func placeholderList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "{" + n + "}"
	}
	return strings.Join(out, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// text renders text key with its placeholders: a maintainer's override, or
// the default.
func (p *pass) text(key string, args ...string) string {
	t, ok := p.cfg.Texts[key]
	if !ok {
		t = defaultTexts[key]
	}
	if len(args) > 0 {
		pairs := make([]string, 0, len(args))
		for i := 0; i+1 < len(args); i += 2 {
			pairs = append(pairs, "{"+args[i]+"}", args[i+1])
		}
		t = strings.NewReplacer(pairs...).Replace(t)
	}
	return t
}
