// Package clienttest drives the fake GitHub with go-github, the REST client
// recess uses, to show that go-github's requests work against it unchanged
// and that its typed errors come out as they do against github.com. It holds
// tests only; it is a package of its own so that the fake's other tests do
// not depend on go-github's module graph.
package clienttest
