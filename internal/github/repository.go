package github

import (
	"context"
	"errors"
	"fmt"

	"github.com/recess-action/recess/resume"
)

// RepositoryExists reports whether the token sees the repository: false
// when GitHub answers NOT_FOUND for it (it does not exist, or the token may
// not read it; GitHub does not say which).
//
// GitHub docs: https://docs.github.com/graphql/reference/queries#repository
func (c *Client) RepositoryExists(ctx context.Context) (bool, error) {
	var q repoQuery[*node]
	err := c.query(ctx, &q, c.repoVars())
	switch {
	case errors.Is(err, resume.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("github: repository %s/%s: %w", c.owner, c.repo, err)
	}
	return q.Repository != nil, nil
}
