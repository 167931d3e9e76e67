package action

import "fmt"

// missingMessage says what was not found and what to check, for a run whose
// discussion GitHub does not know (resume.Result.Missing): a wrong
// GITHUB_REPOSITORY, as act sets by default, or a discussion deleted
// meanwhile. Such a run changes nothing, which is right, and must say so in
// its summary and as an annotation.
func missingMessage(repo string, number int, err error) string {
	msg := fmt.Sprintf("discussion #%d was not found in %s (GITHUB_REPOSITORY), so this run did nothing (%v).", number, repo, err)
	if repo == "nektos/act" {
		msg += " act sets GITHUB_REPOSITORY=nektos/act: pass --env GITHUB_REPOSITORY=OWNER/REPO."
	} else {
		msg += " Check that the discussion exists and that the token can read it."
	}
	return msg
}
