package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// PathScheme prefixes the paths through which the model reads a skill's
// files with read_file: skill://<name>/<path inside the skill folder>.
// A scheme, rather than a workspace-like path, keeps a skill's files apart
// from the workspace's: no spelling of one reaches the other.
const PathScheme = "skill://"

// ErrOutside reports a path that would leave the skill folder: absolute,
// with "..", or through a symbolic link pointing out of it.
var ErrOutside = errors.New("path leaves the skill folder")

// ErrNotRegular reports a directory, device, FIFO or socket where a file
// was expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge reports a file over the size a read allows.
var ErrTooLarge = errors.New("file too large")

// Path returns the read_file path of rel (slash-separated, relative to the
// skill folder) in the skill called name.
func Path(name, rel string) string { return PathScheme + name + "/" + rel }

// ParsePath splits a path made by Path into the skill name and the path
// inside the skill. ok is false for any path not starting with PathScheme;
// rel is not checked (Open checks it).
func ParsePath(p string) (name, rel string, ok bool) {
	rest, ok := strings.CutPrefix(p, PathScheme)
	if !ok {
		return "", "", false
	}
	name, rel, _ = strings.Cut(rest, "/")
	return name, rel, true
}

// checkRel validates a model- or repository-supplied path inside a skill.
func checkRel(rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("%w: the path is empty; name a file listed by the skill tool", ErrOutside)
	}
	if strings.ContainsRune(rel, 0) || !utf8.ValidString(rel) {
		return "", fmt.Errorf("%w: the path is not valid text", ErrOutside)
	}
	clean := path.Clean(strings.ReplaceAll(rel, `\`, "/"))
	if !filepath.IsLocal(filepath.FromSlash(clean)) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%w: %q must be relative to the skill folder, without \"..\"", ErrOutside, clipLine(rel, 200))
	}
	return filepath.FromSlash(clean), nil
}

// openRoot opens the skill folder as an os.Root. A project skill's folder
// is opened through its workspace's root, so that a symbolic link on the
// way to it cannot lead out of the workspace either.
func openRoot(s *Skill) (*os.Root, error) {
	if s.Dir == "" {
		return nil, fmt.Errorf("skill %q has no folder", s.Name)
	}
	if s.confine == "" {
		return os.OpenRoot(s.Dir)
	}
	outer, err := os.OpenRoot(s.confine)
	if err != nil {
		return nil, err
	}
	defer outer.Close()
	return outer.OpenRoot(s.dirInConfine)
}

// Open opens the file rel (slash-separated, relative to the skill folder)
// for reading. It refuses absolute paths, "..", symbolic links leading out
// of the skill folder (os.Root enforces this at every step, so a link
// swapped in later is refused too) and anything but a regular file; a
// FIFO cannot block the open. The read_file wiring serves skill:// paths
// through it.
func Open(s *Skill, rel string) (*os.File, error) {
	clean, err := checkRel(rel)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", s.Name, err)
	}
	root, err := openRoot(s)
	if err != nil {
		return nil, fmt.Errorf("skill %s: opening its folder: %w", s.Name, err)
	}
	defer root.Close()
	return openRegular(root, clean, s.Name+"/"+filepath.ToSlash(clean))
}

// openRegular opens name inside root, refusing non-regular files. what
// names the file in errors.
func openRegular(root *os.Root, name, what string) (*os.File, error) {
	// O_NONBLOCK keeps a FIFO from blocking the open; it changes nothing
	// for the regular files we go on to read.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: %w", what, fs.ErrNotExist)
		}
		if escapes(root, name) {
			return nil, fmt.Errorf("%s: %w (a symbolic link points outside it)", what, ErrOutside)
		}
		return nil, fmt.Errorf("open %s: %w", what, unwrapPath(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", what, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", what, ErrNotRegular, typeWord(fi.Mode()))
	}
	return f, nil
}

// escapes reports whether name is a symbolic link (or passes through one)
// that leads out of root: Lstat of the last element succeeds inside the
// root while following it does not.
func escapes(root *os.Root, name string) bool {
	fi, err := root.Lstat(name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		_, err = root.Stat(name)
		return err != nil && !errors.Is(err, fs.ErrNotExist)
	}
	return err != nil && !errors.Is(err, fs.ErrNotExist)
}

// ReadFile reads the file rel of the skill whole, through Open, failing
// with ErrTooLarge past limit bytes (MaxSkillFileBytes when limit <= 0).
func ReadFile(s *Skill, rel string, limit int64) ([]byte, error) {
	f, err := Open(s, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllBounded(f, s.Name+"/"+rel, limit)
}

func readAllBounded(f *os.File, what string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxSkillFileBytes
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d KiB limit", what, ErrTooLarge, fi.Size(), limit>>10)
	}
	// One byte past the limit: a file that grew since Stat must not slip
	// through.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, unwrapPath(err))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: over the %d KiB limit", what, ErrTooLarge, limit>>10)
	}
	return b, nil
}

// unwrapPath drops a *fs.PathError's path (it may be absolute and long; the
// caller names the file itself).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func typeWord(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// isText reports whether b is UTF-8 text without NUL bytes.
func isText(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return false
		}
	}
	return utf8.Valid(b)
}
