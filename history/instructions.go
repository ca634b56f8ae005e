package history

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// InstructionsFile is the name of the instruction files LoadInstructions
// reads, the convention shared by coding agents.
const InstructionsFile = "AGENTS.md"

// FallbackInstructionsFile is read in a workspace directory that has no
// InstructionsFile: Claude Code's name for the same thing, so a
// repository written for it instructs rein too. A directory with both
// gives only AGENTS.md, which is the one meant for any agent.
const FallbackInstructionsFile = "CLAUDE.md"

// DefaultInstructionsBytes caps the loaded instructions when
// LoadInstructions is given no cap.
const DefaultInstructionsBytes = 32 << 10

// ErrOutsideWorkspace reports an instruction file in the workspace that is
// a symlink (or lies under one) leading out of the workspace. It is
// refused: a repository must not be able to make the agent read, and
// follow, a file of the user's choosing elsewhere on the machine.
var ErrOutsideWorkspace = errors.New("instruction file leads outside the workspace")

// instructionFile is one file to load: where it is shown as coming from
// and how to open it.
type instructionFile struct {
	display string // path in the header and the returned list
	info    fs.FileInfo
	open    func() (*os.File, error)
}

// LoadInstructions reads the instruction files for a run, to be passed as
// agent.Config.Instructions: the user's own userConfigDir/AGENTS.md first,
// then the AGENTS.md (or, where there is none, the CLAUDE.md) of every
// directory from workspaceRoot down to workDir, the nearer ones later so
// that they read as refinements. Each
// file is headed with its path (workspace files relative to the root).
// files lists what was included, in order.
//
// The whole text is capped at maxBytes (DefaultInstructionsBytes when
// maxBytes <= 0); the file that crosses the cap is cut at a character
// boundary and a marker says so and how many files were left out.
//
// Workspace files are read through an os.Root of workspaceRoot, so a
// symlinked AGENTS.md (or directory) that leads outside the workspace is
// refused with ErrOutsideWorkspace; symlinks within it are followed. The
// user's file is the user's own and may be a symlink anywhere. Missing
// files, directories named AGENTS.md and other non-regular files are
// skipped. An empty userConfigDir or workspaceRoot skips that source; a
// workDir outside the root (or "") loads only the root's file.
//
// The text is usable even when err is not nil: err then joins one error
// per file that was refused or could not be read, so a caller can warn
// and go on with the rest. Only a workspace root that cannot be opened
// fails the load as a whole.
func LoadInstructions(workspaceRoot, workDir, userConfigDir string, maxBytes int) (text string, files []string, err error) {
	if maxBytes <= 0 {
		maxBytes = DefaultInstructionsBytes
	}
	var errs []error
	var list []instructionFile
	if userConfigDir != "" {
		f, err := userInstructions(userConfigDir)
		switch {
		case err != nil:
			errs = append(errs, err)
		case f != nil:
			list = append(list, *f)
		}
	}
	if workspaceRoot != "" {
		root, err := os.OpenRoot(workspaceRoot)
		if err != nil {
			return "", nil, fmt.Errorf("memory: cannot open the workspace %s to read %s files: %w; check -C/--workspace", workspaceRoot, InstructionsFile, err)
		}
		defer root.Close()
		ws, werrs := workspaceInstructions(root, workspaceRoot, workDir)
		errs = append(errs, werrs...)
		for _, f := range ws {
			if !sameAsListed(list, f.info) {
				list = append(list, f)
			}
		}
	}
	text, files, rerrs := assemble(list, maxBytes)
	return text, files, errors.Join(append(errs, rerrs...)...)
}

// userInstructions finds dir/AGENTS.md; nil when there is none.
func userInstructions(dir string) (*instructionFile, error) {
	path := filepath.Join(dir, InstructionsFile)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("memory: cannot read the user instructions %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return nil, nil
	}
	return &instructionFile{display: path, info: fi, open: func() (*os.File, error) { return os.Open(path) }}, nil
}

// workspaceInstructions finds the AGENTS.md files from the root down to
// workDir through root.
func workspaceInstructions(root *os.Root, rootPath, workDir string) ([]instructionFile, []error) {
	// The error os.Root gives for a path that escapes it is not exported;
	// a path that escapes lexically yields the same sentinel.
	var escapes error
	if _, err := root.Stat(".."); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			escapes = pe.Err
		}
	}
	var list []instructionFile
	var errs []error
	for _, dir := range dirsDown(rootPath, workDir) {
		for _, base := range []string{InstructionsFile, FallbackInstructionsFile} {
			f, found, err := statInstructions(root, rootPath, filepath.Join(dir, base), escapes)
			if err != nil {
				errs = append(errs, err)
			}
			if found {
				list = append(list, *f)
			}
			if found || err != nil {
				break // a refused AGENTS.md is not replaced by CLAUDE.md
			}
		}
	}
	return list, errs
}

// statInstructions looks at one candidate file through root. found is
// false when it is missing or not a regular file; err reports a refused or
// unreadable one.
func statInstructions(root *os.Root, rootPath, name string, escapes error) (*instructionFile, bool, error) {
	fi, err := root.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil && escapes != nil && errors.Is(err, escapes):
		return nil, false, fmt.Errorf("memory: refused %s: %w (a symlink points out of %s); remove the link or copy the file into the workspace",
			quoteIfOdd(filepath.ToSlash(name)), ErrOutsideWorkspace, quoteIfOdd(rootPath))
	case err != nil:
		return nil, false, fmt.Errorf("memory: cannot read %s in the workspace: %w", quoteIfOdd(filepath.ToSlash(name)), err)
	case !fi.Mode().IsRegular():
		return nil, false, nil
	}
	return &instructionFile{display: filepath.ToSlash(name), info: fi, open: func() (*os.File, error) { return root.Open(name) }}, true, nil
}

// dirsDown returns the directories from the root (".") down to workDir,
// relative to the root. A workDir outside the root gives just the root.
func dirsDown(rootPath, workDir string) []string {
	dirs := []string{"."}
	if workDir == "" {
		return dirs
	}
	rel, ok := within(rootPath, workDir)
	if !ok {
		// Compare resolved paths too: the root or the working directory
		// may be spelled through a symlink (/tmp vs /private/tmp).
		r, err1 := filepath.EvalSymlinks(rootPath)
		w, err2 := filepath.EvalSymlinks(workDir)
		if err1 != nil || err2 != nil {
			return dirs
		}
		if rel, ok = within(r, w); !ok {
			return dirs
		}
	}
	if rel == "." {
		return dirs
	}
	cur := ""
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		dirs = append(dirs, cur)
	}
	return dirs
}

// within returns dir relative to root when dir lies within it.
func within(root, dir string) (string, bool) {
	r, err1 := filepath.Abs(root)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(r, d)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// sameAsListed reports whether fi is a file already in list (the user's
// config directory inside the workspace, or two paths to one file).
func sameAsListed(list []instructionFile, fi fs.FileInfo) bool {
	for _, f := range list {
		if os.SameFile(f.info, fi) {
			return true
		}
	}
	return false
}

// assemble reads the files in order into one text of at most maxBytes.
func assemble(list []instructionFile, maxBytes int) (string, []string, []error) {
	var b strings.Builder
	var files []string
	var errs []error
	for i, f := range list {
		header := "# Instructions from " + quoteIfOdd(f.display) + "\n\n"
		sep := ""
		if b.Len() > 0 {
			sep = "\n\n"
		}
		room := maxBytes - b.Len() - len(sep) - len(header)
		content, err := readCapped(f, max(room, 0)+1)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if strings.TrimSpace(content) == "" {
			continue
		}
		if len(content) <= room {
			b.WriteString(sep)
			b.WriteString(header)
			b.WriteString(content)
			files = append(files, f.display)
			continue
		}
		// This file crosses the cap: cut it and say so.
		mark := truncationMarker(maxBytes, len(list)-i-1)
		room -= len(mark)
		if room > 0 {
			b.WriteString(sep)
			b.WriteString(header)
			b.WriteString(cutRunes(content, room))
			files = append(files, f.display)
		}
		if b.Len()+len(mark) <= maxBytes {
			b.WriteString(mark)
		}
		break
	}
	return b.String(), files, errs
}

func truncationMarker(maxBytes, left int) string {
	m := "\n[rein: instructions truncated to " + strconv.Itoa(maxBytes) + " bytes"
	if left > 0 {
		m += "; " + strconv.Itoa(left) + " more " + InstructionsFile + " files not loaded"
	}
	return m + "]"
}

// readCapped reads at most limit bytes of f as valid UTF-8 text, refusing
// anything that is not a regular file by the time it is opened.
func readCapped(f instructionFile, limit int) (string, error) {
	fh, err := f.open()
	if err != nil {
		return "", fmt.Errorf("memory: cannot read %s: %w", f.display, err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("memory: cannot read %s: it is no longer a regular file", f.display)
	}
	data, err := io.ReadAll(io.LimitReader(fh, int64(limit)))
	if err != nil {
		return "", fmt.Errorf("memory: cannot read %s: %w", f.display, err)
	}
	s := strings.TrimPrefix(string(data), "\uFEFF")
	return strings.ToValidUTF8(s, "\uFFFD"), nil
}

// quoteIfOdd quotes a path with control characters, so a directory name
// cannot forge lines in the instructions.
func quoteIfOdd(p string) string {
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return strconv.Quote(p)
		}
	}
	return p
}
