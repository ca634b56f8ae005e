package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/reinharness/rein/internal/termsafe"
)

// Layers of commands.
const (
	LayerUser    = "user"
	LayerProject = "project"
)

// Limits on discovery.
const (
	// MaxCommands bounds the commands of one folder.
	MaxCommands = 1000
	// maxDepth bounds the folder nesting below a commands folder.
	maxDepth = 8
	// maxEntries bounds the directory entries walked in one folder tree.
	maxEntries = 20000
)

// Dir is one folder of command files.
type Dir struct {
	Path  string
	Layer string
	// Confine, when set, is a directory that Path and every file read
	// from it must resolve inside, symbolic links included: the
	// workspace, for project folders, so that a repository's
	// .claude/commands -> /home/me/notes link (or a link to one file
	// there) is refused with a warning. Path must lie inside it. User
	// folders leave it empty.
	Confine string
}

// Dirs returns the folders commands are read from, in precedence order
// (later ones shadow earlier ones): the user's configDir/commands (rein's
// ~/.config/rein), then the workspace's .rein/commands and .claude/commands.
// An empty configDir or workspace leaves its folders out.
func Dirs(configDir, workspace string) []Dir {
	var out []Dir
	if configDir != "" {
		out = append(out, Dir{Path: filepath.Join(configDir, "commands"), Layer: LayerUser})
	}
	if workspace != "" {
		out = append(out,
			Dir{Path: filepath.Join(workspace, ".rein", "commands"), Layer: LayerProject, Confine: workspace},
			Dir{Path: filepath.Join(workspace, ".claude", "commands"), Layer: LayerProject, Confine: workspace})
	}
	return out
}

// Set is the loaded commands, by name.
type Set struct {
	byName map[string]*Command
}

// Get returns the command called name.
func (s *Set) Get(name string) (*Command, bool) {
	if s == nil {
		return nil, false
	}
	c, ok := s.byName[name]
	return c, ok
}

// Names returns the command names, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	names := make([]string, 0, len(s.byName))
	for n := range s.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Commands returns the commands sorted by name.
func (s *Set) Commands() []*Command {
	var out []*Command
	for _, n := range s.Names() {
		out = append(out, s.byName[n])
	}
	return out
}

// Len returns the number of commands.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byName)
}

// Load reads the commands of dirs, later dirs shadowing earlier ones by
// name. Names in reserved (the built-in slash commands) are not loaded:
// the built-in wins. Every problem — a malformed file, a shadowed command,
// a reserved name, an unreadable folder — is one warning, and the file is
// skipped; a missing folder is no problem. Load never fails.
func Load(dirs []Dir, reserved []string) (*Set, []string) {
	s := &Set{byName: map[string]*Command{}}
	var warnings []string
	for _, d := range dirs {
		cmds, ws := loadDir(d)
		warnings = append(warnings, ws...)
		for _, c := range cmds {
			switch prev, dup := s.byName[c.Name]; {
			case slices.Contains(reserved, c.Name):
				warnings = append(warnings, fmt.Sprintf("%s: /%s is a built-in command, which takes precedence; rename the file to use it", c.Path, c.Name))
				continue
			case dup:
				warnings = append(warnings, fmt.Sprintf("%s: command /%s shadows the one in %s", c.Path, c.Name, prev.Path))
			}
			s.byName[c.Name] = c
		}
	}
	return s, warnings
}

// segment is what one folder or file name (without .md) may be: the
// names are typed after "/" and shown on terminals.
var segment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// loadDir reads one commands folder through os.Root: a user's folder
// as the root, so that no symlink reaches a file outside it, a project's
// through the workspace's root (Dir.Confine), so that neither the folder
// nor a file in it is read through a symlink leaving the workspace.
func loadDir(d Dir) ([]*Command, []string) {
	root, files, prefix, err := openDir(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: cannot read the commands folder: %v", termsafe.Line(d.Path), err)}
	}
	defer root.Close()
	defer files.Close()
	var (
		cmds     []*Command
		warnings []string
		entries  int
	)
	warn := func(rel, format string, args ...any) {
		warnings = append(warnings, termsafe.Line(filepath.Join(d.Path, filepath.FromSlash(rel)))+": "+fmt.Sprintf(format, args...))
	}
	err = fs.WalkDir(root.FS(), ".", func(rel string, e fs.DirEntry, err error) error {
		entries++
		switch {
		case entries > maxEntries:
			warn(".", "more than %d entries; the rest is not read", maxEntries)
			return fs.SkipAll
		case err != nil:
			warn(rel, "%v", err)
			return nil
		case rel == ".":
			return nil
		case e.IsDir():
			if strings.Count(rel, "/") >= maxDepth {
				warn(rel, "nested more than %d folders deep; not read", maxDepth)
				return fs.SkipDir
			}
			if strings.HasPrefix(e.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		case !strings.HasSuffix(e.Name(), ".md"):
			return nil
		case len(cmds) >= MaxCommands:
			warn(rel, "more than %d commands in %s; the rest is not read", MaxCommands, d.Path)
			return fs.SkipAll
		}
		c, problem := readCommand(files, prefix, d, rel)
		if problem != "" {
			warn(rel, "%s", problem)
			return nil
		}
		cmds = append(cmds, c)
		return nil
	})
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("%s: %v", d.Path, err))
	}
	return cmds, warnings
}

// readCommand reads the file rel of d, which is prefix/rel in root,
// returning a problem sentence when it is not a usable command.
func readCommand(root *os.Root, prefix string, d Dir, rel string) (*Command, string) {
	name, problem := nameOf(rel)
	if problem != "" {
		return nil, problem
	}
	inRoot := filepath.Join(prefix, filepath.FromSlash(rel))
	f, err := root.Open(inRoot)
	if err != nil {
		if escapes(root, inRoot) {
			return nil, "is a symbolic link leading outside the " + outsideWhat(d) + "; not read (copy the file in instead)"
		}
		return nil, fmt.Sprintf("cannot read it: %v", unwrapPath(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, "not a regular file"
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, fmt.Sprintf("cannot read it: %v", err)
	}
	if len(data) > MaxFile {
		return nil, fmt.Sprintf("larger than %d KiB; not a command", MaxFile>>10)
	}
	c, err := Parse(name, filepath.Join(d.Path, filepath.FromSlash(rel)), d.Layer, data)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			if fe.Field != "" {
				return nil, fmt.Sprintf("field %s: %v; skipped", fe.Field, fe.Err)
			}
			return nil, fmt.Sprintf("%v; skipped", fe.Err)
		}
		return nil, err.Error()
	}
	return c, ""
}

// MaxFile bounds a command file.
const MaxFile = 512 << 10

// nameOf turns "frontend/test.md" into "frontend:test".
func nameOf(rel string) (string, string) {
	parts := strings.Split(strings.TrimSuffix(rel, ".md"), "/")
	for _, p := range parts {
		if !segment.MatchString(p) {
			return "", fmt.Sprintf("%q cannot be part of a command name (letters, digits, '-', '_' and '.', up to 64); skipped", path.Base(p))
		}
	}
	return strings.Join(parts, ":"), ""
}

// unwrapPath drops the *fs.PathError wrapper, whose path is the relative
// one the warning already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openDir opens d's folder as a root: directly for a user folder, and
// through Confine for a project one, so that a folder that is (or lies
// under) a symlink leaving the workspace is refused (errOutside).
//
// files is the root its files are opened through (the workspace's for a
// project folder, so that a link to another file of the workspace is
// followed) and prefix the folder's path in it; the caller closes both.
func openDir(d Dir) (dir, files *os.Root, prefix string, err error) {
	if d.Confine == "" {
		dir, err = os.OpenRoot(d.Path)
		return dir, dir, ".", err
	}
	prefix, err = filepath.Rel(d.Confine, d.Path)
	if err != nil || !filepath.IsLocal(prefix) {
		return nil, nil, "", fmt.Errorf("%s is not inside %s", d.Path, d.Confine)
	}
	files, err = os.OpenRoot(d.Confine)
	if err != nil {
		return nil, nil, "", err
	}
	dir, err = files.OpenRoot(prefix)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && escapes(files, prefix) {
			err = errOutside
		}
		files.Close()
		return nil, nil, "", err
	}
	return dir, files, prefix, nil
}

// errOutside words a project folder that leads out of the workspace.
var errOutside = errors.New("it is a symbolic link (or lies under one) leading outside the workspace; not read (copy the commands into the workspace)")

// escapes reports whether rel is a symbolic link (or passes through
// one) that leads out of root: it is there when its last link is not
// followed, and following it fails other than for a missing target.
func escapes(root *os.Root, rel string) bool {
	fi, err := root.Lstat(rel)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		_, err = root.Stat(rel)
		return err != nil && !errors.Is(err, fs.ErrNotExist)
	}
	return err != nil && !errors.Is(err, fs.ErrNotExist)
}

// outsideWhat names what a symlink of d's must not leave.
func outsideWhat(d Dir) string {
	if d.Confine != "" {
		return "workspace"
	}
	return "commands folder"
}
