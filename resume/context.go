package resume

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Context is the resume_context input of a resumed agent run.
type Context struct {
	CorrelationID string `json:"correlation_id"`
	// Kind is the kind of thread the run is about (omitted: a discussion),
	// so the words the agent reads name it and recess mcp reads it as such.
	Kind        state.Kind      `json:"kind,omitempty"`
	FiredBy     string          `json:"fired_by"`
	FiredAt     time.Time       `json:"fired_at"`
	Trigger     json.RawMessage `json:"trigger,omitempty"`
	RecessCount int             `json:"recess_count"`
	Truncated   bool            `json:"truncated"`
	// Omitted counts the oldest entries left out entirely because even
	// without bodies they would not fit (only in extreme discussions).
	Omitted      int            `json:"omitted,omitempty"`
	HistorySince []HistoryEntry `json:"history_since"`
}

// HistoryEntry is one human comment the agent has not seen yet.
type HistoryEntry struct {
	ID     string `json:"id"`
	Author string `json:"author"`
	// Role is "maintainer" when GitHub told this run that the author may
	// write to the repository (asked for the authors of slash commands
	// only), "user" otherwise.
	Role      string    `json:"role"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	URL       string    `json:"url"`
	ReplyTo   string    `json:"reply_to,omitempty"`
}

// Dispatch limits GitHub puts on workflow_dispatch inputs.
const (
	MaxDispatchInputs     = 25
	MaxDispatchInputChars = 65535
)

// TruncatedMarker ends every body Encode shortened; a body shortened to
// nothing is the marker alone. The entry's url leads to the full text.
const TruncatedMarker = "… [truncated; full text at the url]"

// Encode renders rc as the resume_context input so that the whole dispatch
// (every input of req, req.ResumeContext replaced) fits GitHub's limit,
// shortening the oldest bodies first and setting Truncated. It never fails
// for size.
//
// The dispatch is measured as DispatchSize measures it. When it does not
// fit, the oldest bodies (by CreatedAt) are cut on a rune boundary and end in
// TruncatedMarker, the newest stay whole, and the text kept is the most that
// fits; if even marker-only bodies do not fit, the oldest entries are left
// out and counted in Omitted. Every kept entry keeps its url. Entries keep
// their order. A context that already fits comes back unchanged (so encoding
// a decoded result again gives the same string). The only error is a value
// encoding/json cannot encode (an invalid Trigger, a year beyond 9999).
func (rc Context) Encode(req DispatchRequest) (string, error) {
	req.ResumeContext = ""
	avail := MaxDispatchInputChars - DispatchSize(req.Inputs())
	// The plan's accounting is exact; the loop only guards the guarantee
	// should it ever be off, by planning again against a smaller budget.
	for budget, try := avail, 0; ; try++ {
		out, err := rc.fit(budget)
		if err != nil {
			return "", err
		}
		size := escapedLen(out)
		if size <= avail || try == 3 {
			return string(out), nil
		}
		budget -= size - avail
	}
}

// DispatchSize is how much of GitHub's inputs limit (MaxDispatchInputChars)
// a dispatch uses, counted conservatively because GitHub does not say how it
// counts: the byte length of the inputs object as JSON with HTML-safe
// escaping. That is at least the sum of the values in bytes (itself at least
// their length in UTF-16 units or code points) and at least the inputs object
// as encoding/json writes it into the request body, with or without HTML
// escaping. resume_context is JSON inside a JSON string, so its quotes and
// backslashes count twice.
func DispatchSize(inputs map[string]string) int {
	b, _ := json.Marshal(inputs) // a map of strings always encodes
	return len(b)
}

// fit encodes rc so that the escaped length of the result is at most budget
// (when anything at all fits).
func (rc Context) fit(budget int) ([]byte, error) {
	entries := rc.HistorySince
	n := len(entries)
	// skel is the cost of everything but the entries. Only the number of
	// digits in omitted changes it (0 leaves it out), so it is measured once
	// per length.
	type skelKey struct {
		truncated, trigger bool
		digits             int
	}
	skelCosts := map[skelKey]int{}
	skel := func(truncated bool, omitted int, trigger json.RawMessage) (int, error) {
		key := skelKey{truncated, trigger != nil, len(strconv.Itoa(omitted))}
		if omitted == 0 {
			key.digits = 0
		}
		if c, ok := skelCosts[key]; ok {
			return c, nil
		}
		s := rc
		s.Truncated, s.Omitted, s.Trigger, s.HistorySince = truncated, omitted, trigger, []HistoryEntry{}
		b, err := encodeCompact(s)
		skelCosts[key] = escapedLen(b)
		return skelCosts[key], err
	}

	// fixed[i] is entry i with an empty body; a body adds bodyCost on top,
	// and entries are separated by one comma.
	fixed := make([]int, n)
	sumFixed := 0
	for i, e := range entries {
		e.Body = ""
		b, err := encodeCompact(e)
		if err != nil {
			return nil, err
		}
		fixed[i] = escapedLen(b)
		sumFixed += fixed[i]
	}
	commas := func(kept int) int { return max(kept-1, 0) }

	// Everything whole, as given.
	s, err := skel(rc.Truncated, rc.Omitted, rc.Trigger)
	if err != nil {
		return nil, err
	}
	if left := budget - s - sumFixed - commas(n); left >= 0 {
		whole := true
		for i := n - 1; i >= 0 && whole; i-- {
			var cost int
			_, cost, whole = bodyPrefix(entries[i].Body, left)
			left -= cost
		}
		if whole {
			out := rc
			if out.HistorySince == nil {
				out.HistorySince = []HistoryEntry{}
			}
			return encodeCompact(out)
		}
	}

	// Oldest first by creation time; ties keep their order.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return entries[a].CreatedAt.Compare(entries[b].CreatedAt) })

	// The least each entry's body can cost: the marker alone, unless the
	// body is no longer than that.
	marker := bodyCost(TruncatedMarker)
	minBody := make([]int, n)
	shortenable := make([]bool, n)
	sumMin := 0
	for i, e := range entries {
		_, cost, whole := bodyPrefix(e.Body, marker)
		minBody[i], shortenable[i] = cost, !whole
		if !whole {
			minBody[i] = marker
		}
		sumMin += fixed[i] + minBody[i]
	}

	// Leave out the fewest oldest entries that make the rest fit with
	// marker-only bodies; as a last resort leave out the trigger too.
	trigger := rc.Trigger
	dropped, left := 0, 0
	for {
		s, err := skel(true, rc.Omitted+dropped, trigger)
		if err != nil {
			return nil, err
		}
		left = budget - s - sumMin - commas(n-dropped)
		if left >= 0 || dropped == n && trigger == nil {
			break
		}
		if dropped == n {
			trigger = nil
			continue
		}
		i := order[dropped]
		sumMin -= fixed[i] + minBody[i]
		dropped++
	}

	// Give what is left back to the newest bodies: they stay whole while
	// they fit, the next one is cut to fit, older ones keep only the marker.
	bodies, keep := make([]string, n), make([]bool, n)
	cut := false
	for k := n - 1; k >= dropped; k-- {
		i := order[k]
		body := entries[i].Body
		keep[i] = true
		if !shortenable[i] {
			bodies[i] = body
			continue
		}
		if cut {
			bodies[i] = TruncatedMarker
			continue
		}
		if left > 0 {
			if _, cost, whole := bodyPrefix(body, minBody[i]+left); whole {
				bodies[i] = body
				left -= cost - minBody[i]
				continue
			}
		}
		end, cost, _ := bodyPrefix(body, left)
		bodies[i] = body[:end] + TruncatedMarker
		left -= cost
		cut = true
	}

	out := rc
	out.Truncated, out.Omitted, out.Trigger = true, rc.Omitted+dropped, trigger
	out.HistorySince = make([]HistoryEntry, 0, n-dropped)
	for i, e := range entries {
		if keep[i] {
			e.Body = bodies[i]
			out.HistorySince = append(out.HistorySince, e)
		}
	}
	return encodeCompact(out)
}

// encodeCompact is encoding/json without HTML escaping and without the
// Encoder's trailing newline: the agent reads the text as written.
func encodeCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode resume_context: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// escapedLen is the size of b (text of resume_context) inside the inputs
// JSON, as DispatchSize counts it.
func escapedLen(b []byte) int {
	q, _ := json.Marshal(string(b)) // a string always encodes
	return len(q) - len(`""`)
}

// bodyCost is what a body adds to the dispatch: escaped into
// resume_context, then again into the inputs JSON.
func bodyCost(s string) int {
	inner, _ := encodeCompact(s) // a string always encodes
	return escapedLen(inner[1 : len(inner)-1])
}

// asciiCost[c] is bodyCost of the ASCII character c, measured once from
// encoding/json itself so that the accounting cannot drift from the
// encoder.
var asciiCost = func() (c [utf8.RuneSelf]int) {
	for b := range utf8.RuneSelf {
		c[b] = bodyCost(string(rune(b)))
	}
	return c
}()

// bodyPrefix finds the longest prefix of s, cut where encoding/json steps
// from character to character, whose cost in the dispatch is at most budget.
// It returns the prefix's length in bytes, its cost, and whether it is all of
// s. It reads no further than the budget reaches.
func bodyPrefix(s string, budget int) (end, cost int, whole bool) {
	for end < len(s) {
		n, size := 0, 1
		if c := s[end]; c < utf8.RuneSelf {
			n = asciiCost[c]
		} else if r, sz := utf8.DecodeRuneInString(s[end:]); r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			// Invalid bytes and the two separators encoding/json escapes.
			n, size = bodyCost(s[end:end+sz]), sz
		} else {
			n, size = sz, sz
		}
		if cost+n > budget {
			return end, cost, false
		}
		cost += n
		end += size
	}
	return end, cost, true
}

// triggerJSON is a trigger's canonical JSON, as resume_context and the
// result carry it (nil for none).
func triggerJSON(t *wait.Trigger) json.RawMessage {
	if t == nil {
		return nil
	}
	b, err := t.MarshalJSON()
	if err != nil {
		panic(fmt.Sprintf("resume: a parsed trigger does not encode: %v", err))
	}
	return b
}
