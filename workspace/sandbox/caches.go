package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Cache kinds: the tool caches a sandboxed command may keep across
// commands and sessions of one workspace.
const (
	CacheGo    = "go"    // GOCACHE (build cache) and GOMODCACHE (modules)
	CacheNPM   = "npm"   // npm_config_cache
	CachePip   = "pip"   // PIP_CACHE_DIR
	CacheCargo = "cargo" // CARGO_HOME (registry, git checkouts)
	CacheXDG   = "xdg"   // XDG_CACHE_HOME: every other tool's ~/.cache
)

// CacheKinds lists every kind, in the order they are reported; it is the
// default set.
var CacheKinds = []string{CacheGo, CacheNPM, CachePip, CacheCargo, CacheXDG}

// DefaultCacheSize is the size above which a workspace's caches are
// trimmed (PruneCaches) unless configured otherwise.
const DefaultCacheSize int64 = 10 << 30

// cacheVars maps each kind to its directories (below the workspace's
// cache directory) and the variable naming each.
var cacheVars = map[string][][2]string{
	CacheGo:    {{"GOCACHE", "go-build"}, {"GOMODCACHE", "gomod"}},
	CacheNPM:   {{"npm_config_cache", "npm"}},
	CachePip:   {{"PIP_CACHE_DIR", "pip"}},
	CacheCargo: {{"CARGO_HOME", "cargo"}},
	CacheXDG:   {{"XDG_CACHE_HOME", "xdg"}},
}

// wholeUnits are the cache directories PruneCaches removes as a whole:
// they hold unpacked trees (module sources, crate sources) that a tool
// trusts to be complete, so removing single files would break them.
// The others are content-addressed or HTTP caches, where a missing
// file is a miss.
var wholeUnits = []string{"gomod", "cargo"}

// WorkspaceFile names the file in a workspace's cache directory that
// records which workspace it belongs to (for `rein sandbox cache du`).
// Commands cannot write it: only the kinds' subdirectories are bound
// writable.
const WorkspaceFile = "workspace"

// ParseCacheKind validates a kind name.
func ParseCacheKind(s string) (string, error) {
	if slices.Contains(CacheKinds, s) {
		return s, nil
	}
	return "", fmt.Errorf("unknown cache %q: use %s", s, strings.Join(CacheKinds, ", "))
}

// Caches are the persistent tool caches of one workspace's sandboxed
// commands. They live under rein's state directory (CacheDir), never in
// the host's own caches: a command could poison those, and they are used
// outside the sandbox. The zero value means no caches.
type Caches struct {
	// Dir is the workspace's cache directory; "" means none.
	Dir string
	// Kinds are the enabled kinds (CacheKinds entries).
	Kinds []string
}

// CacheRoot is the directory holding every workspace's caches.
func CacheRoot(stateDir string) string { return filepath.Join(stateDir, "cache") }

// CacheDir returns the cache directory of workspace (an absolute,
// canonical path) under stateDir: named by a hash of the path, so two
// workspaces never share one.
func CacheDir(stateDir, workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(CacheRoot(stateDir), hex.EncodeToString(sum[:10]))
}

// Enabled reports whether kind is on.
func (c Caches) Enabled(kind string) bool { return c.Dir != "" && slices.Contains(c.Kinds, kind) }

// Dirs returns the directories to bind writable into the sandbox, in
// CacheKinds order.
func (c Caches) Dirs() []string {
	var out []string
	for _, k := range CacheKinds {
		if c.Enabled(k) {
			for _, v := range cacheVars[k] {
				out = append(out, filepath.Join(c.Dir, v[1]))
			}
		}
	}
	return out
}

// Var returns the directory for the variable name (GOCACHE, …) and true
// when its kind is enabled.
func (c Caches) Var(name string) (string, bool) {
	for _, k := range CacheKinds {
		for _, v := range cacheVars[k] {
			if v[0] == name && c.Enabled(k) {
				return filepath.Join(c.Dir, v[1]), true
			}
		}
	}
	return "", false
}

// Ensure creates the enabled directories (private to the user) and the
// record of the workspace they belong to.
func (c Caches) Ensure(workspace string) error {
	if c.Dir == "" || len(c.Kinds) == 0 {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("sandbox caches: %w", err)
	}
	for _, d := range c.Dirs() {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("sandbox caches: %w", err)
		}
	}
	rec := filepath.Join(c.Dir, WorkspaceFile)
	if b, err := os.ReadFile(rec); err == nil && string(b) == workspace+"\n" {
		return nil
	}
	return os.WriteFile(rec, []byte(workspace+"\n"), 0o600)
}

// CacheUsage is the disk use of one workspace's caches.
type CacheUsage struct {
	Dir       string
	Workspace string           // from WorkspaceFile; "" if unknown
	Bytes     map[string]int64 // per kind directory name (go-build, gomod, …)
	Total     int64
}

// DiskUsage reports the use of the cache directory dir (see CacheDir).
func DiskUsage(dir string) (CacheUsage, error) {
	u := CacheUsage{Dir: dir, Bytes: map[string]int64{}}
	if b, err := os.ReadFile(filepath.Join(dir, WorkspaceFile)); err == nil {
		u.Workspace = strings.TrimSpace(string(b))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return u, err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		n := dirSize(filepath.Join(dir, e.Name()))
		u.Bytes[e.Name()] = n
		u.Total += n
	}
	return u, nil
}

// AllCacheDirs lists the workspaces' cache directories under stateDir.
func AllCacheDirs(stateDir string) ([]string, error) {
	root := CacheRoot(stateDir)
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out, nil
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ClearCaches removes the given kinds' directories (all when kinds is
// empty) from the cache directory dir, and dir itself when nothing is left
// but the workspace record. The Go module cache is read-only by design,
// so write permission is restored first.
func ClearCaches(dir string, kinds []string) error {
	if len(kinds) == 0 {
		return removeAll(dir)
	}
	for _, k := range kinds {
		for _, v := range cacheVars[k] {
			if err := removeAll(filepath.Join(dir, v[1])); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeAll is os.RemoveAll after making every directory writable (the Go
// module cache's are 0555). Symlinks are not followed.
func removeAll(dir string) error {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// pruneUnit is one thing PruneCaches may remove: a file of a
// content-addressed cache or a whole unpacked tree.
type pruneUnit struct {
	path  string
	size  int64
	mtime time.Time
	tree  bool
}

// PruneCaches trims the cache directory dir to at most max bytes
// (max <= 0: no limit), removing the least recently modified units first:
// single files of the build and download caches (Go, npm, pip and
// XDG_CACHE_HOME treat a missing file as a miss), whole directories of the
// unpacked trees (GOMODCACHE, CARGO_HOME) by their newest file. It returns
// the bytes removed.
func PruneCaches(dir string, max int64) (int64, error) {
	if max <= 0 {
		return 0, nil
	}
	units, total, err := pruneUnits(dir)
	if err != nil || total <= max {
		return 0, err
	}
	sort.Slice(units, func(i, j int) bool { return units[i].mtime.Before(units[j].mtime) })
	var freed int64
	for _, u := range units {
		if total-freed <= max {
			break
		}
		var err error
		if u.tree {
			err = removeAll(u.path)
		} else {
			err = os.Remove(u.path)
		}
		if err == nil {
			freed += u.size
		}
	}
	return freed, nil
}

// pruneUnits lists the units of dir and their total size.
func pruneUnits(dir string) ([]pruneUnit, int64, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var units []pruneUnit
	var total int64
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		tree := slices.Contains(wholeUnits, e.Name())
		if tree {
			u := pruneUnit{path: sub, tree: true}
			walkFiles(sub, func(_ string, fi fs.FileInfo) {
				u.size += fi.Size()
				if fi.ModTime().After(u.mtime) {
					u.mtime = fi.ModTime()
				}
			})
			units, total = append(units, u), total+u.size
			continue
		}
		walkFiles(sub, func(p string, fi fs.FileInfo) {
			units = append(units, pruneUnit{path: p, size: fi.Size(), mtime: fi.ModTime()})
			total += fi.Size()
		})
	}
	return units, total, nil
}

func walkFiles(dir string, f func(string, fs.FileInfo)) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				f(p, fi)
			}
		}
		return nil
	})
}

// FormatSize formats bytes as the limits are shown: "2 GiB", "512 MiB".
func FormatSize(b int64) string { return sizeString(b) }
