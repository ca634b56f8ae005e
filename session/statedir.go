package session

import (
	"errors"
	"path/filepath"
)

// DatabaseFile is the name of the session database inside the state
// directory.
const DatabaseFile = "sessions.db"

// StateDir returns rein's state directory: override when set (the
// --state-dir flag), else $XDG_STATE_HOME/rein, else ~/.local/state/rein.
// A relative XDG_STATE_HOME is ignored, as the XDG specification requires.
// getenv reads the environment (os.Getenv in production).
func StateDir(override string, getenv func(string) string) (string, error) {
	if override != "" {
		abs, err := filepath.Abs(override)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "rein"), nil
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("cannot find the state directory: HOME is not set to an absolute path; set XDG_STATE_HOME or pass --state-dir")
	}
	return filepath.Join(home, ".local", "state", "rein"), nil
}
