package resume

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// access is what the Permissions port answered for one author: the
// permission, or why it could not be read (an error wrapping
// ErrPermissionUnreadable).
type access struct {
	perm Permission
	err  error
}

// permissions reads into Engine.perms, for every author of a comment in d
// that holds a slash command and is not settled in rec, the author's
// permission on the repository: once per author per Engine (a sweep asks
// once for an author it meets in many discussions), and not at all when no
// such comment holds a command. A token that may not ask gives an answer
// that says so (the command is held with a warning); any other error fails
// the run, which changed nothing yet.
func (e *Engine) permissions(ctx context.Context, rec *state.Record, isNew bool, d *Thread) error {
	for i := range d.Comments {
		c := &d.Comments[i]
		key := authorityKey(c)
		if _, cmd := parseCommand(c.Body); key == "" || !cmd || !spoken(c, e.cfg().IgnoreAuthors) || settled(rec, isNew, c) {
			continue
		}
		if _, ok := e.perms[key]; ok {
			continue
		}
		var a access
		switch {
		case app(c), wait.SameLogin(c.Author, DeletedAccount):
			// Not asked: only a person's account may write (GitHub says
			// an app's "is not a user"), and a deleted account cannot.
		case e.Permissions == nil:
			a.err = fmt.Errorf("%w: the engine has no Permissions port", ErrPermissionUnreadable)
		default:
			// A person's login is the same in GraphQL and REST.
			a.perm, a.err = e.Permissions.Permission(ctx, c.Author)
			if a.err != nil && !errors.Is(a.err, ErrPermissionUnreadable) {
				return fmt.Errorf("read the permission of @%s: %w", c.Author, a.err)
			}
		}
		if e.perms == nil {
			e.perms = map[string]access{}
		}
		e.perms[key] = a
	}
	return nil
}

// settled reports whether no decision over rec reads comment c again: the
// command cursor has passed it (its command was handled), and so have what
// the runs were shown (Seen), every open recess's windows and the active
// run's history. Its author's permission is then not asked again: a
// command handled long ago costs later runs nothing. A new record settles
// nothing.
func settled(rec *state.Record, isNew bool, c *Comment) bool {
	if isNew {
		return false
	}
	cursors := []state.Cursor{rec.Commands, rec.Seen}
	for _, rfc := range rec.OpenRFCs {
		cursors = append(cursors, rfc.RepliesAfter, rfc.Since)
	}
	if a := rec.Active; a != nil {
		cursors = append(cursors, a.Since)
	}
	return !slices.ContainsFunc(cursors, func(k state.Cursor) bool { return !k.Covers(c.ID, c.CreatedAt) })
}

// authorityKey is the key of a comment author's permission: the normalised
// login, and for an app's account a key no person's login can have.
func authorityKey(c *Comment) string {
	k := wait.NormLogin(c.Author)
	if k != "" && app(c) {
		return k + "[bot]"
	}
	return k
}

// app reports whether a comment's author is an app's account: GitHub says
// so (AuthorBot), or the login carries "[bot]" as REST spells it.
func app(c *Comment) bool { return isApp(c.Author, c.AuthorBot) }

// isApp reports whether login is an app's account: GitHub says so (bot), or
// the login carries "[bot]" as REST spells it.
func isApp(login string, bot bool) bool {
	return bot || strings.HasSuffix(strings.ToLower(strings.TrimSpace(login)), "[bot]")
}

// writer reports whether a comment's author may use slash commands: GitHub
// said the author's permission on the repository is write, maintain or
// admin. This is the one rule for command authority; author_association is
// no proof of it.
func (f *facts) writer(c *Comment) bool {
	a, ok := f.s.perms[authorityKey(c)]
	return ok && a.err == nil && a.perm.Write
}

// unauthorized records a slash command recess does not carry out: a log
// line and a note when GitHub says the author cannot write (the comment is
// then an ordinary reply), a warning for the maintainer when recess could
// not ask (the command is then held until it can: see reading).
func (f *facts) unauthorized(c *Comment, cmd command) plan {
	a, n := f.s.perms[authorityKey(c)], f.s.rec.Discussion
	if a.err != nil {
		return logged("%s %d: held /recess %s from @%s: %v", f.kind().noun, n, cmd.name, c.Author, a.err).with(
			warned("comment %s: /recess %s from @%s is held: recess may not read @%s's permission on the repository (%v); give the token read access to the repository's metadata, and the next run carries it out", c.ID, cmd.name, c.Author, c.Author, a.err))
	}
	role := a.perm.Role
	if role == "" {
		role = "none"
	}
	return logged("%s %d: ignored /recess %s from @%s (%s, permission %s): slash commands need write access; it counts as an ordinary reply", f.kind().noun, n, cmd.name, c.Author, c.Association, role).with(
		noted("ignored /recess %s from @%s: no write access", cmd.name, c.Author))
}
