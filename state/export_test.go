package state

import "encoding/base64"

// Test-only helpers: no binary needs them.

// CommentCapacity is the largest encoded record, in bytes, that EncodeComment
// can put behind this visible text within MaxCommentBody (and MaxEncoded).
func CommentCapacity(visible string) int {
	visible = cleanVisible(visible)
	overhead := len(stateHeader) + len(stateFooter)
	if visible != "" {
		overhead += commentLen(visible) + 2
	}
	avail := MaxCommentBody - overhead
	if avail <= 0 {
		return 0
	}
	n := min(avail/4*3, MaxEncoded)
	for n > 0 && wrappedLen(n) > avail {
		n--
	}
	return n
}

// wrappedLen is the length of the wrapped base64 of n bytes.
func wrappedLen(n int) int {
	b := base64.StdEncoding.EncodedLen(n)
	if b == 0 {
		return 0
	}
	return b + (b-1)/wrapColumns
}
