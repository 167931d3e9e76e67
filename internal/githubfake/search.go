package githubfake

import (
	"slices"
	"strconv"
	"strings"
)

// searchQuery is a parsed GitHub search string. Only the qualifiers recess
// can use are understood; any other qualifier is refused loudly rather than
// ignored, so a query that would filter differently on GitHub fails here.
type searchQuery struct {
	repos    []string
	labels   []string // every one must be present (GitHub ANDs label: terms)
	noLabels []string
	states   []string // open, closed
	locked   *bool
	kinds    []threadKind // is:issue, is:pr, is:discussion (any of them)
	author   string
	sort     string // created-desc (default), created-asc, updated-desc, updated-asc
	words    []string
}

// searchTokens splits a query on spaces, keeping quoted parts together and
// removing the quotes (label:"recess:waiting" -> label:recess:waiting).
func searchTokens(q string) []string {
	var out []string
	var cur strings.Builder
	inQuote, has := false, false
	for _, r := range q {
		switch {
		case r == '"':
			inQuote = !inQuote
			has = true
		case (r == ' ' || r == '\t' || r == '\n') && !inQuote:
			if has {
				out = append(out, cur.String())
			}
			cur.Reset()
			has = false
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, cur.String())
	}
	return out
}

func parseSearch(q string) (*searchQuery, error) {
	sq := &searchQuery{sort: "created-desc"}
	for _, tok := range searchTokens(q) {
		neg := false
		if strings.HasPrefix(tok, "-") && strings.Contains(tok, ":") {
			neg, tok = true, tok[1:]
		}
		key, val, ok := strings.Cut(tok, ":")
		if !ok || val == "" {
			sq.words = append(sq.words, strings.ToLower(tok))
			continue
		}
		switch strings.ToLower(key) {
		case "repo":
			sq.repos = append(sq.repos, strings.ToLower(val))
		case "label":
			if neg {
				sq.noLabels = append(sq.noLabels, val)
			} else {
				sq.labels = append(sq.labels, val)
			}
		case "is":
			switch strings.ToLower(val) {
			case "open", "closed":
				sq.states = append(sq.states, strings.ToLower(val))
			case "locked":
				b := !neg
				sq.locked = &b
			case "unlocked":
				b := neg
				sq.locked = &b
			case "discussion":
				sq.kinds = append(sq.kinds, kindDiscussion)
			case "issue":
				sq.kinds = append(sq.kinds, kindIssue)
			case "pr", "pull-request":
				sq.kinds = append(sq.kinds, kindPullRequest)
			default:
				return nil, errorf("UNPROCESSABLE", "githubfake: search qualifier is:%s not implemented", val)
			}
		case "state":
			sq.states = append(sq.states, strings.ToLower(val))
		case "author":
			sq.author = strings.ToLower(val)
		case "sort":
			switch val {
			case "created", "created-desc", "created-asc", "updated", "updated-desc", "updated-asc":
				if !strings.Contains(val, "-") {
					val += "-desc"
				}
				sq.sort = val
			default:
				return nil, errorf("UNPROCESSABLE", "githubfake: search sort:%s not implemented", val)
			}
		case "in":
			// in:title/in:body only narrows where words match; the fake
			// matches words in both.
		default:
			return nil, errorf("UNPROCESSABLE", "githubfake: search qualifier %s: not implemented", key)
		}
	}
	return sq, nil
}

func (sq *searchQuery) match(d *discussion) bool {
	if len(sq.repos) > 0 && !containsFold(sq.repos, d.repo.fullName()) {
		return false
	}
	names := make([]string, 0, len(d.labels))
	for _, l := range d.labels {
		names = append(names, l.name)
	}
	for _, l := range sq.labels {
		// label:a,b means either of them.
		any := false
		for _, alt := range strings.Split(l, ",") {
			if containsFold(names, alt) {
				any = true
			}
		}
		if !any {
			return false
		}
	}
	for _, l := range sq.noLabels {
		if containsFold(names, l) {
			return false
		}
	}
	if len(sq.states) > 0 {
		st := "open"
		if d.closed {
			st = "closed"
		}
		if !containsFold(sq.states, st) {
			return false
		}
	}
	if len(sq.kinds) > 0 && !slices.Contains(sq.kinds, d.kind) {
		return false
	}
	if sq.locked != nil && d.locked != *sq.locked {
		return false
	}
	if sq.author != "" && (d.author == nil || !strings.EqualFold(d.author.login, strings.TrimSuffix(sq.author, "[bot]"))) {
		return false
	}
	text := strings.ToLower(d.title + "\n" + d.body)
	for _, w := range sq.words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// searchLimit is how many results GitHub search makes reachable.
const searchLimit = 1000

// search serves Query.search for types DISCUSSION and ISSUE (issues and
// pull requests). Cursors are positions, as GitHub's search cursors are
// ("Y3Vyc29yOjI=" is "cursor:2").
func (x *executor) search(args map[string]any) (any, error) {
	typ, _ := argString(args, "type")
	if typ != "DISCUSSION" && typ != "ISSUE" {
		return nil, errorf("UNPROCESSABLE", "githubfake: search type %s not implemented", typ)
	}
	q, _ := argString(args, "query")
	sq, err := parseSearch(q)
	if err != nil {
		return nil, err
	}
	var list []*discussion
	for _, r := range x.g.repos {
		from := r.discussions
		if typ == "ISSUE" {
			from = r.issues
		}
		for _, d := range from {
			if !d.deleted && sq.match(d) {
				list = append(list, d)
			}
		}
	}
	field, dir, _ := strings.Cut(sq.sort, "-")
	f := "CREATED_AT"
	if field == "updated" {
		f = "UPDATED_AT"
	}
	sortDiscussions(list, f, strings.ToUpper(dir))
	total := len(list)
	if len(list) > searchLimit {
		list = list[:searchLimit]
	}
	items := make([]any, len(list))
	keys := make([]string, len(list))
	for i, d := range list {
		items[i] = objDiscussion(d)
		keys[i] = strconv.Itoa(i + 1)
	}
	o, err := paginateWith("SearchResultItemConnection", items, keys, args,
		func(k string) string { return b64("cursor:" + k) },
		func(c string) string {
			s, ok := unb64(c)
			if k, found := strings.CutPrefix(s, "cursor:"); ok && found {
				return k
			}
			return "\x00invalid"
		})
	if err != nil {
		return nil, err
	}
	o.v.(*connection).extraInts = map[string]int{strings.ToLower(typ) + "Count": total}
	return o, nil
}
