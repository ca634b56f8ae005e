package cli

import (
	"fmt"
	"sort"

	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
)

// stateUntrusted is the state `rein mcp list` shows for a server the
// workspace defines (.mcp.json, .rein/config.toml) that the user has not
// trusted as it is now: it was not started.
const stateUntrusted mcp.State = "untrusted"

// untrustedStatuses are the list rows of the servers that were not
// started for want of trust, each with the command that trusts it, so
// that `rein mcp list` in a fresh clone shows what the repository brings
// instead of saying that no servers are configured.
func untrustedStatuses(us []mcp.Untrusted) []mcp.Status {
	out := make([]mcp.Status, 0, len(us))
	for _, u := range us {
		sc, st := u.Server, u.Status
		// The names come from the repository: shown, never obeyed.
		name := termsafe.Line(sc.Name)
		why := "defined by the workspace and not trusted"
		switch {
		case st.Err != nil:
			why = "defined by the workspace and not started: " + textclip.FirstLine(st.Err.Error())
		case len(st.Changed) > 0:
			why = pathList(st.Changed) + " changed since you trusted it"
		case st.Unpinned:
			why = "trusted before rein pinned the workspace files it runs (" + pathList(st.Files()) + ")"
		}
		tr := sc.Transport
		if tr == "" && sc.Command != "" {
			tr = mcp.TransportStdio
		}
		out = append(out, mcp.Status{
			Name: sc.Name, State: stateUntrusted, Transport: tr, Required: sc.Required, Source: sc.Source,
			Err: fmt.Errorf("%s (%s) %s; it %s. Review it, then run: rein mcp trust %s",
				name, termsafe.Line(sc.Source), why, termsafe.Line(describeServer(sc)), name),
		})
	}
	return out
}

// withUntrusted merges the untrusted rows into a listing, in name order.
func withUntrusted(sts []mcp.Status, us []mcp.Untrusted) []mcp.Status {
	if len(us) == 0 {
		return sts
	}
	all := append(append([]mcp.Status(nil), sts...), untrustedStatuses(us)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}
