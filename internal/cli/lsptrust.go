package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/lsp"
	"github.com/reinharness/rein/mcp"
)

// lspTrustFile is the store of trusted project language servers in the
// state directory.
const lspTrustFile = "trusted-lsp.json"

// lspTrustStore remembers, per workspace, the project language servers
// the user allowed to start: the fingerprint of their [lsp.NAME] tables
// and the contents of the workspace files they run. A server starts on
// the first file rein reads and runs on every edit, so nothing of the
// repository's choosing starts until the user trusted exactly what runs;
// it still runs in the sandbox, as every command does.
func (a *App) lspTrustStore(stateDirFlag string) *host.TrustStore {
	return &host.TrustStore{Path: filepath.Join(host.StateDir(stateDirFlag, a.Getenv), lspTrustFile)}
}

// lspFingerprint identifies what the project servers run.
func lspFingerprint(servers []lsp.Config) string {
	sorted := slices.Clone(servers)
	slices.SortFunc(sorted, func(a, b lsp.Config) int { return strings.Compare(a.Name, b.Name) })
	data, _ := json.Marshal(sorted) // plain strings, slices and maps: cannot fail
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// lspPins are the states of the workspace files the servers run or name.
func lspPins(servers []lsp.Config, ws string) []mcp.Pin {
	seen := map[string]bool{}
	var pins []mcp.Pin
	for _, c := range servers {
		ps, _ := mcp.PinFiles(mcp.ServerConfig{Command: c.Command, Args: c.Args, Cwd: ws}, ws)
		for _, p := range ps {
			if !seen[p.Path] {
				seen[p.Path] = true
				pins = append(pins, p)
			}
		}
	}
	slices.SortFunc(pins, func(a, b mcp.Pin) int { return strings.Compare(a.Path, b.Path) })
	return pins
}

// lspTrust says whether the project servers of ws may start.
func lspTrust(store *host.TrustStore, servers []lsp.Config, ws string) host.TrustStatus {
	if len(servers) == 0 {
		return host.TrustStatus{Trusted: true}
	}
	return store.PinStatus(ws, lspFingerprint(servers), lspPins(servers, ws))
}

// trustedLSP returns st's servers with the project's added when the store
// trusts them (replacing a user server of the same name), or a warning
// saying why they do not start.
func trustedLSP(st host.LspSettings, store *host.TrustStore, ws string) ([]lsp.Config, string) {
	if len(st.Project) == 0 {
		return st.Servers, ""
	}
	trust := lspTrust(store, st.Project, ws)
	if !trust.Trusted {
		names := make([]string, len(st.Project))
		for i, c := range st.Project {
			names[i] = c.Name
		}
		return st.Servers, fmt.Sprintf("the workspace's language servers (%s) do not start: %s; review them with rein lsp list and allow them with rein lsp trust", strings.Join(names, ", "), trustWhy(trust, ""))
	}
	out := slices.DeleteFunc(slices.Clone(st.Servers), func(s lsp.Config) bool {
		return slices.ContainsFunc(st.Project, func(p lsp.Config) bool { return p.Name == s.Name })
	})
	return append(out, st.Project...), ""
}
