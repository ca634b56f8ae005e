package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Bounds on what trusting a server pins.
const (
	// MaxPinnedFiles bounds the workspace paths one server's trust pins;
	// further arguments are not pinned (the record says so).
	MaxPinnedFiles = 64
	// MaxPinnedFileBytes bounds the bytes hashed of one file. A larger
	// file is pinned by the hash of its first MaxPinnedFileBytes, its size
	// and its modification time (Pin.Partial).
	MaxPinnedFileBytes = 16 << 20
	// MaxPinnedBytes bounds the bytes hashed for one server; files past
	// the budget are pinned partially like large ones.
	MaxPinnedBytes = 64 << 20
)

// Pin kinds.
const (
	PinFile       = "file"       // a regular file inside the workspace, hashed
	PinAbsent     = "absent"     // nothing there (yet)
	PinOther      = "other"      // a directory or special file: not hashed
	PinOutside    = "outside"    // a symlink leading out of the workspace: not hashed
	PinUnreadable = "unreadable" // a file rein could not read
)

// Pin is the state, when trusted, of one workspace path a stdio server
// runs or names: its command when that lies in the workspace, every
// argument (or --flag=value value) that names a path in the workspace, a
// Python -m module's files, and the words of a shell's -c script.
type Pin struct {
	// Path is workspace-relative and slash-separated, as the
	// configuration names it (before symlinks).
	Path string `json:"path"`
	Kind string `json:"kind"`
	// Target is where a symlink at Path leads: workspace-relative inside
	// the workspace, absolute outside.
	Target string `json:"target,omitempty"`
	// SHA256 and Size describe a PinFile's contents.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
	// Partial is set when only the first bytes were hashed (see
	// MaxPinnedFileBytes); ModTime (Unix nanoseconds) is compared too.
	Partial bool  `json:"partial,omitempty"`
	ModTime int64 `json:"mtime,omitempty"`
}

// same reports whether p and q record the same state.
func (p Pin) same(q Pin) bool { return p == q }

// PinFiles returns the states of the workspace paths sc runs or names (at
// most MaxPinnedFiles, sorted by path) and whether more were left out.
// HTTP servers and commands outside the workspace pin nothing. Arguments
// are resolved against the server's directory (its cwd, relative to the
// workspace) and the workspace; symlinks are followed, and only targets
// inside the workspace are hashed.
func PinFiles(sc ServerConfig, workspace string) (pins []Pin, truncated bool) {
	if sc.Command == "" || workspace == "" {
		return nil, false
	}
	ws := canonicalDir(workspace)
	cands, truncated := pinCandidates(sc, ws)
	budget := int64(MaxPinnedBytes)
	for _, c := range cands {
		if p, ok := pinPath(ws, c, &budget); ok {
			pins = append(pins, p)
		}
	}
	slices.SortFunc(pins, func(a, b Pin) int { return strings.Compare(a.Path, b.Path) })
	return pins, truncated
}

// pinCandidates lists the absolute paths (lexically clean) that sc's
// command line names, deduplicated, at most MaxPinnedFiles.
func pinCandidates(sc ServerConfig, ws string) ([]string, bool) {
	cwd := ws
	if sc.Cwd != "" {
		if filepath.IsAbs(sc.Cwd) {
			cwd = filepath.Clean(sc.Cwd)
		} else {
			cwd = filepath.Join(ws, sc.Cwd)
		}
	}
	var out []string
	seen := map[string]bool{}
	truncated := false
	add := func(rel string) {
		bases := []string{cwd}
		if cwd != ws {
			bases = append(bases, ws)
		}
		if filepath.IsAbs(rel) {
			bases = []string{""}
		}
		for _, base := range bases {
			p := filepath.Clean(filepath.Join(base, rel))
			if seen[p] {
				continue
			}
			seen[p] = true
			if len(out) == MaxPinnedFiles {
				truncated = true
				return
			}
			out = append(out, p)
		}
	}
	// The command: a path is run relative to the server's directory (as
	// os/exec does); a bare name is looked up in PATH, which may lead into
	// the workspace too.
	if strings.ContainsRune(sc.Command, filepath.Separator) {
		if usablePath(sc.Command) {
			add(sc.Command)
		}
	} else if p, err := exec.LookPath(sc.Command); err == nil && filepath.IsAbs(p) {
		add(p)
	}
	python := pythonRE.MatchString(filepath.Base(sc.Command))
	shell := shellRE.MatchString(filepath.Base(sc.Command))
	for i := 0; i < len(sc.Args); i++ {
		a := sc.Args[i]
		if shell && a == "-c" && i+1 < len(sc.Args) {
			// sh -c 'node srv.js': the words of the script, roughly.
			i++
			for _, w := range strings.FieldsFunc(sc.Args[i], func(r rune) bool {
				return strings.ContainsRune(" \t\n;&|()<>'\"`", r)
			}) {
				if !strings.HasPrefix(w, "-") && !strings.Contains(w, "$") && usablePath(w) {
					add(w)
				}
			}
			continue
		}
		if python && (a == "-m" || (strings.HasPrefix(a, "-m") && !strings.HasPrefix(a, "--"))) {
			mod := strings.TrimPrefix(a, "-m")
			if mod == "" && i+1 < len(sc.Args) {
				i++
				mod = sc.Args[i]
			}
			if mod != "" && usablePath(mod) {
				base := strings.ReplaceAll(mod, ".", "/")
				add(base + ".py")
				add(base + "/__main__.py")
				add(base + "/__init__.py")
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			_, v, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			a = v
		}
		if usablePath(a) {
			add(a)
		}
	}
	return out, truncated
}

// pythonRE matches the names of Python interpreters (python, python3,
// python3.12, pypy3).
var pythonRE = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// shellRE matches the names of shells whose -c runs a script.
var shellRE = regexp.MustCompile(`^(sh|bash|dash|zsh|ksh|mksh|ash)$`)

// usablePath reports whether an argument could name a file: not empty,
// no NUL or newline, not a URL.
func usablePath(a string) bool {
	return a != "" && !strings.ContainsAny(a, "\x00\n") && !strings.Contains(a, "://")
}

// pinPath records the state of the candidate p, or reports false when p
// has nothing to do with the workspace.
func pinPath(ws, p string, budget *int64) (Pin, bool) {
	lexical := within(ws, p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if !lexical {
			return Pin{}, false
		}
		kind := PinOther // a loop, a component that is not a directory…
		if errors.Is(err, fs.ErrNotExist) {
			kind = PinAbsent
		}
		return Pin{Path: relSlash(ws, p), Kind: kind}, true
	}
	if !within(ws, real) {
		if !lexical {
			return Pin{}, false
		}
		return Pin{Path: relSlash(ws, p), Kind: PinOutside, Target: real}, true
	}
	pin := Pin{Path: relSlash(ws, real)}
	if lexical {
		pin.Path = relSlash(ws, p)
		if real != p {
			pin.Target = relSlash(ws, real)
		}
	}
	hashFile(&pin, real, budget)
	return pin, true
}

// hashFile fills in pin's kind and contents from the file at real.
func hashFile(pin *Pin, real string, budget *int64) {
	pin.Kind = PinOther
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	f, err := os.Open(real)
	if err != nil {
		pin.Kind = PinUnreadable
		return
	}
	defer f.Close()
	limit := min(int64(MaxPinnedFileBytes), max(*budget, 0))
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit))
	*budget -= n
	if err != nil {
		pin.Kind = PinUnreadable
		return
	}
	pin.Kind = PinFile
	pin.SHA256 = hex.EncodeToString(h.Sum(nil))
	pin.Size = fi.Size()
	if fi.Size() > n {
		pin.Partial = true
		pin.ModTime = fi.ModTime().UnixNano()
	}
}

// canonicalDir returns dir absolute with its symlinks resolved, or clean
// when it cannot be resolved.
func canonicalDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// within reports whether p (clean, absolute) is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// diffPins returns the paths whose state differs between was and now.
func diffPins(was, now []Pin) []string {
	old := make(map[string]Pin, len(was))
	for _, p := range was {
		old[p.Path] = p
	}
	var changed []string
	for _, p := range now {
		q, ok := old[p.Path]
		delete(old, p.Path)
		if !ok || !q.same(p) {
			changed = append(changed, p.Path)
		}
	}
	for path := range old {
		changed = append(changed, path)
	}
	slices.Sort(changed)
	return changed
}

// filePins returns the absolute paths of pins' hashed files: each as named
// and, for a symlink, its target.
// PinnedPaths returns the absolute paths of the regular files pins name
// in workspace ws (a symlink's target too): what a write must ask about
// and the sandbox must keep read-only.
func PinnedPaths(ws string, pins []Pin) []string { return filePins(ws, pins) }

func filePins(ws string, pins []Pin) []string {
	var out []string
	for _, p := range pins {
		if p.Kind != PinFile {
			continue
		}
		out = append(out, filepath.Join(ws, filepath.FromSlash(p.Path)))
		if p.Target != "" {
			out = append(out, filepath.Join(ws, filepath.FromSlash(p.Target)))
		}
	}
	return out
}
