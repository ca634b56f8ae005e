package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultProtected lists the paths inside workspace that commands must not
// change because something outside the sandbox later runs or trusts what
// they say: git's config and hooks (git runs hooks, fsmonitor, pagers and
// filters configured there on the user's next commit), rein's project
// configuration, MCP server definitions, other agents' settings, direnv's
// .envrc and the editor's workspace settings. .git/commondir is there
// because git reads the config of the directory it names instead of
// .git/config.
func DefaultProtected(workspace string) []string {
	var out []string
	for _, rel := range []string{
		".git/config", ".git/config.worktree", ".git/commondir", ".git/hooks",
		".rein", ".mcp.json", ".claude", ".agents", ".envrc", ".vscode",
	} {
		out = append(out, filepath.Join(workspace, filepath.FromSlash(rel)))
	}
	return out
}

// DefaultHidden lists what commands must not read: rein's own
// configuration and state (API keys, sessions, approvals), the usual
// credential stores under home, the user's runtime directory (agent and
// keyring sockets), the directory of SSH_AUTH_SOCK and the Docker daemon's
// socket. Empty arguments are skipped; rein's config dir defaults to
// $XDG_CONFIG_HOME/rein or home/.config/rein when configDir is empty.
func DefaultHidden(home, configDir, stateDir string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	if configDir == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			configDir = filepath.Join(x, "rein")
		} else if home != "" {
			configDir = filepath.Join(home, ".config", "rein")
		}
	}
	add(configDir)
	add(stateDir)
	if home != "" {
		for _, rel := range []string{
			".ssh", ".aws", ".config/gh", ".config/gcloud", ".azure", ".kube",
			".docker", ".gnupg", ".password-store", ".netrc", ".git-credentials",
			".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
		} {
			add(filepath.Join(home, filepath.FromSlash(rel)))
		}
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		add(rt)
	} else {
		add("/run/user")
	}
	if sock := os.Getenv("SSH_AUTH_SOCK"); filepath.IsAbs(sock) {
		add(filepath.Dir(sock))
	}
	add("/run/docker.sock")
	add("/var/run/docker.sock")
	return out
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) || dir == "/"
}

// mount is one bind or mask in the namespace layer.
type mount struct {
	kind string // "pin" (bind onto itself), "ro" (read-only bind), "tmpfs", "null"
	path string
}

// protectedMounts turns the protected list into mounts: ancestors inside a
// writable directory pinned, then the paths themselves read-only. It
// creates a missing .git/hooks whose .git exists, and returns the other
// missing paths whose parent directory exists: a command must not create
// them either (see Sweep).
func protectedMounts(protected, writable []string) (mounts []mount, watch []string) {
	var pins, ros []mount
	seen := map[string]bool{}
	for _, p := range protected {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if _, err := os.Lstat(p); err != nil {
			parent := filepath.Dir(p)
			if filepath.Base(p) != "hooks" || filepath.Base(parent) != ".git" {
				if fi, err := os.Stat(parent); err == nil && fi.IsDir() && !slices.Contains(watch, p) {
					watch = append(watch, p)
				}
				continue
			}
			if fi, err := os.Lstat(parent); err != nil || !fi.IsDir() {
				continue
			}
			if err := os.Mkdir(p, 0o755); err != nil && !os.IsExist(err) {
				continue
			}
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		ros = append(ros, mount{"ro", p})
		// Pin the ancestors below the innermost writable directory that
		// holds p: a renamed .git would take the protection with it.
		base := ""
		for _, w := range writable {
			if within(p, w) && p != w && len(w) > len(base) {
				base = w
			}
		}
		if base == "" {
			continue
		}
		for a := filepath.Dir(p); a != base && within(a, base); a = filepath.Dir(a) {
			if fi, err := os.Lstat(a); err == nil && fi.IsDir() && !seen["pin:"+a] {
				seen["pin:"+a] = true
				pins = append(pins, mount{"pin", a})
			}
		}
	}
	// Outer directories first: a later bind over an ancestor would cover
	// the binds made inside it.
	slices.SortStableFunc(pins, func(a, b mount) int { return len(a.path) - len(b.path) })
	return append(pins, ros...), watch
}

// Sweep removes the paths of Launch.Watch that exist now: protected paths
// a command created (a new .mcp.json, .git/commondir, .rein/, …) although
// they were missing when it started. Call it after the command and all its
// processes are gone; it returns what it removed.
func Sweep(watch []string) []string {
	var removed []string
	for _, p := range watch {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := os.RemoveAll(p); err == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// hiddenMounts turns the hidden list into masks. Entries that are a
// writable directory or one of its ancestors, missing entries, entries
// inside another hidden directory and entries under /tmp outside the
// writable directories (the sandbox's /tmp is empty anyway) are skipped.
func hiddenMounts(hidden, writable []string) []mount {
	return hiddenMountsVisible(hidden, writable, nil)
}

// hiddenMountsVisible is hiddenMounts where the directories of visible
// are bound back into the empty /tmp: hidden entries inside them are
// masked like those inside writable ones.
func hiddenMountsVisible(hidden, writable, visible []string) []mount {
	shown := append(slices.Clip(writable), visible...)
	var out []mount
	var dirs []string
	cands := make([]string, 0, len(hidden))
	for _, h := range hidden {
		if !filepath.IsAbs(h) {
			continue
		}
		if real, err := filepath.EvalSymlinks(h); err == nil {
			cands = append(cands, real)
		}
	}
	slices.SortStableFunc(cands, func(a, b string) int { return len(a) - len(b) })
	for _, h := range cands {
		if slices.ContainsFunc(writable, func(w string) bool { return within(w, h) }) {
			continue // never hide the workspace or what holds it
		}
		if slices.ContainsFunc(dirs, func(d string) bool { return within(h, d) }) {
			continue
		}
		if within(h, "/tmp") && h != "/tmp" && !slices.ContainsFunc(shown, func(w string) bool { return within(h, w) }) {
			continue
		}
		fi, err := os.Stat(h)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			dirs = append(dirs, h)
			out = append(out, mount{"tmpfs", h})
		} else {
			out = append(out, mount{"null", h})
		}
	}
	return out
}

// socketRoots are where host daemons keep their Unix sockets. /tmp is
// empty inside the sandbox anyway, and the user's runtime directory is
// hidden.
var socketRoots = []string{"/run", "/var/run"}

// socketScan bounds the search for sockets, so start-up stays cheap on a
// busy host. The bounds fail closed: a directory the search does not
// enter (past the entry budget or the depth) is masked whole with an
// empty tmpfs, and past maxSockets a socket's directory is masked instead
// of the socket (bounding bwrap's arguments) — never left reachable.
type socketScan struct {
	entries, depth, sockets int
}

var defaultSocketScan = socketScan{entries: 8192, depth: 5, sockets: 512}

// socketMasks finds the Unix sockets under roots (following no symlink
// but the roots themselves) and masks each with /dev/null, so a command
// cannot connect to a daemon outside the sandbox. Sockets inside writable
// directories belong to the command's own work and are left.
func socketMasks(roots, writable []string) []mount {
	return defaultSocketScan.masks(roots, writable)
}

func (b socketScan) masks(roots, writable []string) []mount {
	var out []mount
	seen := map[string]bool{}
	dirMasked := map[string]bool{}
	maskDir := func(dir string) {
		if !dirMasked[dir] {
			dirMasked[dir] = true
			out = append(out, mount{"tmpfs", dir})
		}
	}
	budget, sockets := b.entries, 0
	for _, root := range roots {
		real, err := filepath.EvalSymlinks(root)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		base := strings.Count(real, string(filepath.Separator))
		filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() && p != real {
					maskDir(p) // unreadable here; what is inside stays unknown
					return fs.SkipDir
				}
				return nil
			}
			if slices.ContainsFunc(writable, func(w string) bool { return within(p, w) }) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			budget--
			if d.IsDir() {
				if p != real && (budget < 0 || strings.Count(p, string(filepath.Separator))-base >= b.depth) {
					maskDir(p)
					return fs.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSocket == 0 {
				return nil
			}
			if dir := filepath.Dir(p); sockets >= b.sockets && dir != real {
				maskDir(dir)
				return fs.SkipDir // the rest of the directory is masked with it
			}
			sockets++
			out = append(out, mount{"null", p})
			return nil
		})
	}
	return dropMasked(out, dirMasked)
}

// dropMasked leaves out the socket masks inside directories masked whole
// (bwrap would mount /dev/null into a tmpfs that hides it anyway, or fail
// to find the path).
func dropMasked(ms []mount, dirs map[string]bool) []mount {
	if len(dirs) == 0 {
		return ms
	}
	return slices.DeleteFunc(ms, func(m mount) bool {
		if m.kind != "null" {
			return false
		}
		for d := filepath.Dir(m.path); d != "/" && d != "."; d = filepath.Dir(d) {
			if dirs[d] {
				return true
			}
		}
		return false
	})
}
