// Package strictjson is the one JSON reader for what recess takes from
// outside: the agent's verdict, the trigger in it, and the discussion record
// a store hands back. encoding/json silently repairs or chooses where these
// documents must be refused: it keeps the last of duplicated keys, matches
// keys case-insensitively, turns invalid UTF-8 and unpaired surrogate escapes
// into U+FFFD and ignores nothing-but-trouble like unbounded nesting, so two
// readers of one document could disagree about what it says.
//
// A Decoder reads one document in order. It refuses, naming the place by
// its path ("verdict.replies[2].body", `open_rfcs["c-1"].trigger`,
// "trigger.of[0].elapsed"):
//   - text that is not JSON, and anything after the top-level object;
//   - a duplicated key, and more members in an object than Limits allow;
//   - nesting deeper than Limits allow;
//   - a string that is not valid UTF-8 or holds an unpaired surrogate escape.
//
// What the values mean (which keys exist, which types they take) is the
// caller's: it reads members and elements through callbacks, or takes a
// whole small document as a Value tree (Parse), or a value's raw text to
// hand to another reader (Raw). It imports nothing of recess, so the trigger
// language and the record's codec can both use it.
package strictjson
