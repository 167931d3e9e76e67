// Package state keeps what recess remembers about each discussion: one
// versioned, bounded record per discussion, its wire form, and the stores
// that hold it.
//
// A record is read, changed by the engine and written back optimistically:
// Load returns it with the store's revision in Rev, and Save writes it only if
// that revision is still the stored one (ErrConflict otherwise, and the caller
// re-reads and retries). A record that cannot be decoded is never replaced
// silently: Load and Save report ErrCorrupt and the bytes stay where they are.
//
// Encode and Decode are the one wire form every store keeps, so the size
// limits hold everywhere. Decode treats its input as hostile: a branch file
// can be edited by anyone who can push to the repository. EncodeComment and
// DecodeComment wrap that form in a hidden HTML comment for the store that
// keeps the record in recess's own status comment; the other markers recess
// leaves in its comments (ReplyMarker) live beside them in
// codec.go, so every format that ends up in a comment body is in one place.
//
// The stores live with the GitHub adapters (internal/github: the status
// comment and the state branch); package storetest holds the conformance
// suite every store must pass. The engine consumes the stores through its
// own Store port; this package never imports the engine.
package state
