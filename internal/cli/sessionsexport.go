package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/session"
)

// exportCommand is `rein sessions export ID`: the session's events as
// JSON lines, read without writing to the store and without the refusal
// of a damaged one, so that what is readable can be saved before the
// store is moved aside. At the first damaged event it stops, says how
// many events it exported, and exits 1.
func (c *sessionsCmd) exportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "export ID",
		Short: "Print a session's events as JSON lines, even from a damaged store",
		Long: `Print the stored events of session ID, one JSON object per line (the
stream-json event shape), reading the store without changing it. A store
that rein refuses as damaged can still be exported: the events up to the
first damaged one are printed, then the damage is reported (exit 1).`,
		Args: exactlyOneID("export"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := host.StateDir(*c.dirFlag, c.app.Getenv)
			if dir == "" {
				return c.failed(errors.New("cannot find rein's state directory: set HOME or XDG_STATE_HOME, or pass --state-dir"))
			}
			path := filepath.Join(dir, session.DatabaseFile)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return c.failed(fmt.Errorf("%w: no session %q; nothing has been recorded yet", session.ErrNotFound, args[0]))
			}
			// Model-controlled text stays inert on a terminal: C1
			// controls, bidi overrides and the like as \u escapes.
			out := termsafe.NewJSONWriter(c.app.Stdout)
			_, err := session.Export(cmd.Context(), path, args[0], func(r session.Record) error {
				line, err := json.Marshal(r.Event)
				if err != nil {
					return err
				}
				_, err = out.Write(append(line, '\n'))
				return err
			})
			if err != nil {
				return c.failed(err)
			}
			return nil
		},
	}
}
