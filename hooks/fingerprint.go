package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// Fingerprint identifies exactly what c runs: every group's event,
// matcher, layer and defining file, and every hook's command and timeout,
// in order. Trusting a project's hooks records it; any change to them
// gives another fingerprint, and the hooks run nothing until trusted
// again. (The contents of the scripts a command names are pinned by the
// caller, see the CLI's hook trust.)
func Fingerprint(c Config) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s;", len(p), p)
		}
	}
	write("rein-hooks-v1")
	for _, g := range c.Groups {
		write("group", string(g.Event), g.Matcher, string(g.Layer), g.Source, strconv.Itoa(len(g.Hooks)))
		for _, cmd := range g.Hooks {
			write(cmd.Command, cmd.Timeout.String())
			if cmd.Unconfined || cmd.Network != nil {
				// Only the user's hooks carry these; project fingerprints
				// recorded before them stay valid.
				write("sandbox", strconv.FormatBool(!cmd.Unconfined), netString(cmd.Network))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func netString(n *bool) string {
	if n == nil {
		return "session"
	}
	return strconv.FormatBool(*n)
}
