package host

import (
	"errors"
	"fmt"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/statefile"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/reinharness/rein/hooks"
	"github.com/reinharness/rein/mcp"
)

// HooksTrustFile is the store of trusted project hooks in the state
// directory.
const HooksTrustFile = "trusted-hooks.json"

// TrustStore remembers, per workspace, the project hooks the user
// allowed to run: the fingerprint of their definitions (hooks.Fingerprint)
// and the contents of the workspace files their commands run (a script
// under .claude/hooks/, pinned as MCP servers' files are). A repository
// controls .claude/settings.json and .rein/config.toml, and a hook runs a
// shell command on every tool call: nothing of it runs until the user
// trusted exactly what it runs. The store lives in the user's state
// directory, outside any workspace, so a repository cannot trust itself.
//
// Safe for concurrent use within a process; writers in several processes
// may lose an entry, never corrupt the file (writes are atomic renames).
type TrustStore struct {
	Path string
	mu   sync.Mutex
}

// hookTrustFile is the store's format.
type hookTrustFile struct {
	Workspaces map[string]hookTrustRecord `json:"workspaces"`
}

type hookTrustRecord struct {
	Fingerprint string    `json:"fingerprint"`
	Pins        []mcp.Pin `json:"pins"`
}

// TrustStatus is what the store says about a workspace's project hooks.
type TrustStatus struct {
	// Trusted: they may run.
	Trusted bool
	// Known: the user trusted this workspace's hooks before, in another
	// form (the definitions or the files they run changed since).
	Known bool
	// Changed lists the pinned files that changed, vanished or appeared.
	Changed []string
	// Pins are the current states of the files the hooks run.
	Pins []mcp.Pin
	// Err is why the store could not be read (nothing is trusted then).
	Err error
}

func (e Env) HooksTrustStore(stateDirFlag string) *TrustStore {
	return &TrustStore{Path: filepath.Join(StateDir(stateDirFlag, e.Getenv), HooksTrustFile)}
}

// hookPins returns the states of the workspace files the commands of c
// name, with $CLAUDE_PROJECT_DIR and $REIN_PROJECT_DIR expanded as they
// will be when the hooks run.
func hookPins(c hooks.Config, ws string) []mcp.Pin {
	var scripts []string
	for _, g := range c.Groups {
		for _, h := range g.Hooks {
			scripts = append(scripts, h.Command)
		}
	}
	return ScriptPins(scripts, ws)
}

// ScriptPins returns the states of the workspace files the bash scripts
// name, with $CLAUDE_PROJECT_DIR and $REIN_PROJECT_DIR expanded.
func ScriptPins(scripts []string, ws string) []mcp.Pin {
	// Quoted forms first: "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh is how
	// Claude Code's documentation writes them, and the quotes would cut
	// the path in two.
	var pairs []string
	for _, v := range []string{"CLAUDE_PROJECT_DIR", "REIN_PROJECT_DIR"} {
		pairs = append(pairs, `"${`+v+`}"`, ws, `"$`+v+`"`, ws, "${"+v+"}", ws, "$"+v, ws)
	}
	expand := strings.NewReplacer(pairs...)
	seen := map[string]bool{}
	var pins []mcp.Pin
	for _, script := range scripts {
		ps, _ := mcp.PinFiles(mcp.ServerConfig{Command: "bash", Args: []string{"-c", expand.Replace(script)}}, ws)
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

// HookFiles returns the workspace files (absolute) that any configured
// hook runs or names, the user's and the project's, trusted or not.
// Hooks run in the sandbox; the files stay protected as a change
// detector (writes ask, commands cannot change them), so that what the
// user reviewed is what runs.
func HookFiles(cfg *config.Config, ws string) []string {
	set, err := LoadHooks(cfg, ws)
	if err != nil {
		return nil // newAgent reports the error
	}
	var all hooks.Config
	all.Add(set.User)
	all.Add(set.Project)
	return mcp.PinnedPaths(ws, hookPins(all, ws))
}

// Status reports whether the project hooks c of workspace ws may run.
// No project hooks need no trust.
func (t *TrustStore) Status(c hooks.Config, ws string) TrustStatus {
	if len(c.Groups) == 0 {
		return TrustStatus{Trusted: true, Pins: hookPins(c, ws)}
	}
	return t.PinStatus(ws, hooks.Fingerprint(c), hookPins(c, ws))
}

// Trust records the project hooks c of ws, as they are now, as trusted.
func (t *TrustStore) Trust(c hooks.Config, ws string) (TrustStatus, error) {
	return t.TrustPins(ws, hooks.Fingerprint(c), hookPins(c, ws))
}

// PinStatus compares what the store holds for ws with the fingerprint fp
// of what would run and the current states of the files it names.
func (t *TrustStore) PinStatus(ws, fp string, pins []mcp.Pin) TrustStatus {
	st := TrustStatus{Pins: pins}
	t.mu.Lock()
	f, err := t.load()
	t.mu.Unlock()
	if err != nil {
		st.Err = err
		return st
	}
	rec, ok := f.Workspaces[ws]
	if !ok {
		return st
	}
	st.Known = true
	if rec.Fingerprint != fp {
		return st
	}
	st.Changed = changedPins(rec.Pins, st.Pins)
	st.Trusted = len(st.Changed) == 0
	return st
}

// TrustPins records fp and pins as trusted for ws.
func (t *TrustStore) TrustPins(ws, fp string, pins []mcp.Pin) (TrustStatus, error) {
	if pins == nil {
		pins = []mcp.Pin{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.load()
	if err != nil {
		return TrustStatus{Err: err}, err
	}
	f.Workspaces[ws] = hookTrustRecord{Fingerprint: fp, Pins: pins}
	if err := t.save(f); err != nil {
		return TrustStatus{Err: err}, err
	}
	return TrustStatus{Trusted: true, Known: true, Pins: pins}, nil
}

// changedPins lists the paths whose state differs between was and now.
func changedPins(was, now []mcp.Pin) []string {
	before := map[string]mcp.Pin{}
	for _, p := range was {
		before[p.Path] = p
	}
	var out []string
	for _, p := range now {
		if b, ok := before[p.Path]; !ok || b != p {
			out = append(out, p.Path)
		}
		delete(before, p.Path)
	}
	for path := range before {
		out = append(out, path)
	}
	slices.Sort(out)
	return out
}

func (t *TrustStore) load() (hookTrustFile, error) {
	f := hookTrustFile{Workspaces: map[string]hookTrustRecord{}}
	if _, err := statefile.ReadJSON(t.Path, &f); errors.Is(err, statefile.ErrCorrupt) {
		return hookTrustFile{}, fmt.Errorf("%s is not a hook trust store (%v); move it aside and trust the hooks again", t.Path, err)
	} else if err != nil {
		return hookTrustFile{}, fmt.Errorf("reading %s: %w", t.Path, err)
	}
	if f.Workspaces == nil {
		f.Workspaces = map[string]hookTrustRecord{}
	}
	return f, nil
}

func (t *TrustStore) save(f hookTrustFile) error {
	if err := statefile.WriteJSON(t.Path, f); err != nil {
		return fmt.Errorf("recording trusted hooks: %w", err)
	}
	return nil
}
