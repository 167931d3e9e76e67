// Package github is the one place in recess that speaks to GitHub. It adapts
// GitHub's GraphQL API (through githubv4) and REST API (through go-github) to
// the ports the engine declares in package resume: Threads, Dispatcher,
// Permissions and, for the two state stores, Store.
//
// A Client is built once per run from Config and is safe for concurrent use,
// although it deliberately never sends two requests at once: GitHub's
// secondary rate limits punish concurrency, and one token's budget is shared
// with every workflow in the repository. Every request of both libraries goes
// through one http.RoundTripper that authenticates, serialises, paces
// content-creating requests, waits out rate limits within a bound, and
// retries server errors only where repeating the request cannot apply it
// twice. Errors come back wrapped around the engine's sentinels
// (resume.ErrNotFound, resume.ErrDispatchRefused, and the state sentinels for
// the store) so the engine can decide without knowing HTTP.
//
// CommentStore keeps each discussion's record in recess's own status
// comment (state-store: comment); BranchStore keeps it as a file on a
// dedicated branch (state-store: branch).
//
// Identity is GitHub's viewerDidAuthor wherever GitHub reports it: the
// Actions bot is "github-actions" as a comment's GraphQL author but
// "github-actions[bot]" in REST, webhooks and GraphQL's viewer. The one
// exception, a deleted comment known only from its webhook, compares its
// author with the viewer's login through wait.SameAccount, so the person
// "foo" is never taken for the app "foo[bot]". Identity alone does not make
// a comment recess's record: other workflows of the repository post with
// the same token, so a comment of recess's identity is its status comment
// only when its body is exactly what recess writes for the record it holds
// (state.ReadStatus).
package github
