package strictjson

import (
	"strconv"
)

// maxPlainName is the longest member name a path spells bare; a longer
// one is quoted and clipped like any other odd name.
const maxPlainName = 64

// MemberPath returns the path of the member name of the object at path:
// "verdict.replies", or "schema" at an empty root. A name that is not 1 to
// 64 of A-Z a-z 0-9 _ - is spelled as KeyPath spells it, so a hostile name can
// neither forge a path nor break a line: `trigger["a.b\n"]`.
func MemberPath(path, name string) string {
	if !plainName(name) {
		return KeyPath(path, name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// KeyPath returns the path of the entry key of a map-like object:
// `open_rfcs["c-1"]`. The key is quoted as Go quotes strings (control
// characters, invalid UTF-8 and invisible runes escaped) and clipped to 64
// characters.
func KeyPath(path, key string) string {
	n := 0
	for i := range key {
		if n == maxPlainName {
			key = key[:i] + "…"
			break
		}
		n++
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// IndexPath returns the path of element i of the list at path: "verdict.replies[2]".
func IndexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func plainName(s string) bool {
	if s == "" || len(s) > maxPlainName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
