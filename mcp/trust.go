package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// Trusted reports whether sc may start: servers the user configured
// themselves always may; workspace-defined ones only when trusted as they
// are now. A store that cannot be read trusts nothing.
func (t *TrustStore) Trusted(sc ServerConfig) bool {
	if !sc.Project {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	set, err := t.load()
	return err == nil && set[Fingerprint(sc)]
}

// Trust records sc as allowed to start.
func (t *TrustStore) Trust(sc ServerConfig) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	set, err := t.load()
	if err != nil {
		return err
	}
	set[Fingerprint(sc)] = true
	list := make([]string, 0, len(set))
	for fp := range set {
		list = append(list, fp)
	}
	sort.Strings(list)
	data, err := json.MarshalIndent(struct {
		Trusted []string `json:"trusted"`
	}{list}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("mcp: recording trusted servers: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), ".trusted-*")
	if err != nil {
		return fmt.Errorf("mcp: recording trusted servers: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: recording trusted servers: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mcp: recording trusted servers: %w", err)
	}
	if err := os.Rename(tmp.Name(), t.path); err != nil {
		return fmt.Errorf("mcp: recording trusted servers: %w", err)
	}
	return nil
}

// load reads the fingerprints; a missing file is an empty store.
func (t *TrustStore) load() (map[string]bool, error) {
	set := map[string]bool{}
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: reading %s: %w", t.path, err)
	}
	var f struct {
		Trusted []string `json:"trusted"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("mcp: %s is not a trust store (%v); move it aside and trust the servers again", t.path, err)
	}
	for _, fp := range f.Trusted {
		set[fp] = true
	}
	return set, nil
}

// SplitTrusted separates the servers that may start from the
// workspace-defined ones the user has not trusted (as they are now).
func (t *TrustStore) SplitTrusted(servers []ServerConfig) (trusted, untrusted []ServerConfig) {
	for _, sc := range servers {
		if t.Trusted(sc) {
			trusted = append(trusted, sc)
		} else {
			untrusted = append(untrusted, sc)
		}
	}
	return trusted, untrusted
}
