// Package githubfake is an honest, stateful, in-memory GitHub served over
// httptest, for tests and for running recess on a laptop.
//
// It speaks the two APIs recess uses the way github.com does: GraphQL at
// /api/graphql (every document is validated against GitHub's published
// schema, connections need first/last, points are charged as GitHub
// documents) and REST under /api/v3/ (go-github's enterprise layout, so a
// client that builds absolute URLs fails). It refuses what GitHub refuses:
// replies to replies, bodies over 65,536 characters, undeclared workflow
// inputs, stale expectedHeadOid. Fields of the schema that the fake does not
// model answer an explicit "githubfake: field X not implemented" error
// instead of a silent null.
//
// Lifecycle: New builds the state; tests seed it with the Go API (AddToken,
// AddRepo, CreateDiscussion, CreateIssue, Comment, AddWorkflow, ...), Start
// serves it, the code under test talks HTTP to URL()/GraphQLURL(), and the
// test inspects the state (Discussion, Issue, Comments, Runs, Requests) or
// injects trouble (Fail, budgets). Close stops the server. Every method is safe for concurrent use.
package githubfake
