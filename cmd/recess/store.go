package main

import (
	"errors"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/resume"
)

// newBranchStore builds the branch store.
var newBranchStore = func(c *gh.Client, branch string) (resume.Store, error) {
	return nil, errors.New("the branch store is not available in this build")
}
