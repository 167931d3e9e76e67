// Package recess holds what recess declares to the workflows that use it:
// the action's inputs (action.yml) and its reusable workflows'
// (.github/workflows/front-door.yml, claim.yml, verdict.yml), embedded as
// shipped so that `recess check` judges a setup against the very files it
// calls, never against a copy.
package recess

import "embed"

// Declarations are action.yml and the reusable workflows, by their paths in
// this repository.
//
//go:embed action.yml .github/workflows/front-door.yml .github/workflows/claim.yml .github/workflows/verdict.yml
var Declarations embed.FS

// ReusableDir is where Declarations keeps the reusable workflows.
const ReusableDir = ".github/workflows"
