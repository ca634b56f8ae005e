package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/reinharness/rein/internal/statefile"
	"slices"
	"sort"
	"strings"
	"sync"
)

// TrustFile is the name of the trust store under rein's state directory.
const TrustFile = "trusted-mcp-servers.json"

// TrustStore remembers the workspace-defined servers (ServerConfig.Project)
// the user allowed to start. A cloned repository controls its .mcp.json and
// .rein/config.toml, and starting a stdio server runs its command: such a
// server starts only once the user trusted exactly what it runs. The store
// lives outside any workspace, in the user's state directory, so a
// repository cannot trust itself. Entries are fingerprints of everything
// that decides what runs (command, arguments, environment, directory, URL,
// headers, the defining file), so a repository that changes any of it is
// asked about again.
//
// Trusting a stdio server also pins the contents of the workspace files it
// runs (see PinFiles): a server whose script changed, vanished or appeared
// is not trusted until the user reviews it again.
//
// A TrustStore is safe for concurrent use within a process; concurrent
// writers in several processes may lose an entry, never corrupt the file
// (writes are atomic renames).
type TrustStore struct {
	path string
	mu   sync.Mutex
}

// OpenTrust returns the store kept in path (created on first Trust).
func OpenTrust(path string) *TrustStore { return &TrustStore{path: path} }

// Fingerprint identifies what starting sc would run or reach. Secret
// values (env, headers) are hashed, never stored.
func Fingerprint(sc ServerConfig) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s;", len(p), p)
		}
	}
	source := sc.Source
	if i := strings.LastIndexByte(source, ':'); i > 0 {
		source = source[:i] // the line may move; the file may not
	}
	write("v1", sc.Name, source, sc.Command, sc.Cwd, sc.URL, string(sc.Transport), sc.BearerTokenEnvVar)
	write(sc.Args...)
	write(sortedPairs(sc.Env)...)
	write(sortedPairs(sc.Headers)...)
	envVars := slices.Clone(sc.EnvVars)
	sort.Strings(envVars)
	write(envVars...)
	return hex.EncodeToString(h.Sum(nil))
}

func sortedPairs(m Secrets) []string {
	out := make([]string, 0, 2*len(m))
	for _, k := range m.names() {
		out = append(out, k, m[k])
	}
	return out
}

// TrustStatus is what the store says about one server as it is now.
type TrustStatus struct {
	// Trusted: the server may start.
	Trusted bool
	// Known: the user trusted this configuration (command line,
	// environment, directory, URL, defining file) at some point.
	Known bool
	// Changed lists the pinned workspace paths whose contents changed,
	// vanished or appeared since the user trusted the server.
	Changed []string
	// Unpinned: the record predates file pinning and the server runs
	// workspace files, which were therefore never reviewed as they are.
	Unpinned bool
	// Pins are the current states of the workspace paths the server runs
	// or names (see PinFiles); Truncated says more were left out.
	Pins      []Pin
	Truncated bool
	// Network: the user granted the server the network when trusting
	// it (rein mcp trust --network); otherwise it runs without.
	Network bool
	// Err is why the store could not be read (nothing is trusted then).
	Err error
}

// Files returns the paths of the pinned regular files, for messages.
func (s TrustStatus) Files() []string {
	var out []string
	for _, p := range s.Pins {
		if p.Kind == PinFile {
			out = append(out, p.Path)
		}
	}
	return out
}

// Status reports whether sc may start in workspace: servers the user
// configured themselves always may; workspace-defined ones only when
// trusted as they are now — configuration and the contents of the
// workspace files they run. A store that cannot be read trusts nothing.
func (t *TrustStore) Status(sc ServerConfig, workspace string) TrustStatus {
	var st TrustStatus
	st.Pins, st.Truncated = PinFiles(sc, workspace)
	if !sc.Project {
		st.Trusted, st.Known = true, true
		return st
	}
	t.mu.Lock()
	f, err := t.load()
	t.mu.Unlock()
	if err != nil {
		st.Err = err
		return st
	}
	fp := Fingerprint(sc)
	if rec, ok := f.Servers[fp]; ok {
		st.Known = true
		st.Changed = diffPins(rec.Pins, st.Pins)
		st.Trusted = len(st.Changed) == 0
		st.Network = rec.Network
		return st
	}
	if slices.Contains(f.Trusted, fp) {
		st.Known = true
		st.Unpinned = len(st.Files()) > 0
		st.Trusted = !st.Unpinned
	}
	return st
}

// Trusted reports whether sc may start in workspace (see Status).
func (t *TrustStore) Trusted(sc ServerConfig, workspace string) bool {
	return t.Status(sc, workspace).Trusted
}

// Trust records sc as allowed to start in workspace, as it is now: its
// configuration and the contents of the workspace files it runs (see
// PinFiles), without network. It returns the status recorded.
func (t *TrustStore) Trust(sc ServerConfig, workspace string) (TrustStatus, error) {
	return t.TrustWith(sc, workspace, Grant{})
}

// Grant is what trusting a workspace-defined server allows beyond
// starting it in the sandbox.
type Grant struct {
	// Network lets the server's sandbox reach the network.
	Network bool
}

// TrustWith is Trust with the grant g recorded alongside.
func (t *TrustStore) TrustWith(sc ServerConfig, workspace string, g Grant) (TrustStatus, error) {
	pins, truncated := PinFiles(sc, workspace)
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.load()
	if err != nil {
		return TrustStatus{Err: err}, err
	}
	fp := Fingerprint(sc)
	f.Trusted = slices.DeleteFunc(f.Trusted, func(s string) bool { return s == fp })
	if pins == nil {
		pins = []Pin{}
	}
	f.Servers[fp] = trustRecord{Pins: pins, Truncated: truncated, Network: g.Network}
	if err := t.save(f); err != nil {
		return TrustStatus{Err: err}, err
	}
	return TrustStatus{Trusted: true, Known: true, Pins: pins, Truncated: truncated, Network: g.Network}, nil
}

// trustFile is the store's format.
type trustFile struct {
	// Trusted are fingerprints recorded before file pinning (no pins).
	Trusted []string `json:"trusted,omitempty"`
	// Servers maps fingerprints to what was pinned with them.
	Servers map[string]trustRecord `json:"servers,omitempty"`
}

type trustRecord struct {
	Pins      []Pin `json:"pins"`
	Truncated bool  `json:"truncated,omitempty"`
	Network   bool  `json:"network,omitempty"`
}

func (t *TrustStore) save(f trustFile) error {
	sort.Strings(f.Trusted)
	if err := statefile.WriteJSON(t.path, f); err != nil {
		return fmt.Errorf("mcp: recording trusted servers: %w", err)
	}
	return nil
}

// load reads the store; a missing file is an empty store.
func (t *TrustStore) load() (trustFile, error) {
	f := trustFile{Servers: map[string]trustRecord{}}
	if _, err := statefile.ReadJSON(t.path, &f); errors.Is(err, statefile.ErrCorrupt) {
		return trustFile{}, fmt.Errorf("mcp: %s is not a trust store (%v); move it aside and trust the servers again", t.path, err)
	} else if err != nil {
		return trustFile{}, fmt.Errorf("mcp: reading %s: %w", t.path, err)
	}
	if f.Servers == nil {
		f.Servers = map[string]trustRecord{}
	}
	return f, nil
}

// Untrusted is a server that may not start, with why.
type Untrusted struct {
	Server ServerConfig
	Status TrustStatus
}

// SplitTrusted separates the servers that may start in workspace from the
// workspace-defined ones the user has not trusted as they are now, and
// returns the workspace files the servers that may start run (absolute,
// sorted; see PinnedFiles).
func (t *TrustStore) SplitTrusted(servers []ServerConfig, workspace string) (trusted []ServerConfig, untrusted []Untrusted, files []string) {
	ws := canonicalDir(workspace)
	seen := map[string]bool{}
	for _, sc := range servers {
		st := t.Status(sc, ws)
		if !st.Trusted {
			untrusted = append(untrusted, Untrusted{Server: sc, Status: st})
			continue
		}
		if sc.Project {
			// A workspace-defined server's sandbox is what the user
			// granted, never what its own files ask for.
			network := st.Network
			sc.Network, sc.Unconfined = &network, false
		}
		trusted = append(trusted, sc)
		if sc.Disabled {
			continue
		}
		for _, f := range filePins(ws, st.Pins) {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return trusted, untrusted, files
}

// PinnedFiles returns the workspace files (absolute, sorted) that the
// servers allowed to start in workspace run or name: what a write must
// ask about, and what a sandbox should keep read-only, so that what the
// user trusted cannot be rewritten under them. It covers the servers the
// user configured too, when they run workspace files.
func PinnedFiles(servers []ServerConfig, store *TrustStore, workspace string) []string {
	_, _, files := store.SplitTrusted(servers, workspace)
	return files
}
