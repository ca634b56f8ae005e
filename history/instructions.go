package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The names of the instruction files looked for in each directory from
// the workspace root down to the working directory, in the order they
// are read there: AGENTS.md, the convention shared by coding agents,
// first; then Claude Code's CLAUDE.md and .claude/CLAUDE.md; then
// CLAUDE.local.md, the user's own notes for the project, last, so that
// the most personal word comes after the shared ones.
const (
	InstructionsFile       = "AGENTS.md"
	ClaudeInstructionsFile = "CLAUDE.md"
	LocalInstructionsFile  = "CLAUDE.local.md"
)

// dirInstructionNames are the names read in each directory, in order.
var dirInstructionNames = []string{
	InstructionsFile,
	ClaudeInstructionsFile,
	filepath.Join(".claude", ClaudeInstructionsFile),
	LocalInstructionsFile,
}

// DefaultInstructionsBytes caps the loaded instructions, imports
// included, when no cap is given.
const DefaultInstructionsBytes = 32 << 10

// MaxInstructionFiles bounds how many files (imports included) one load
// reads, whatever their size.
const MaxInstructionFiles = 64

// ErrOutsideWorkspace reports an instruction file in the workspace that is
// a symlink (or lies under one) leading out of the workspace. It is
// refused: a repository must not be able to make the agent read, and
// follow, a file of the user's choosing elsewhere on the machine.
var ErrOutsideWorkspace = errors.New("instruction file leads outside the workspace")

// ErrImportRefused reports an @path import that was not followed: it
// leads outside the workspace and the home directory (or, from a
// repository's file, outside ~/.claude), it closes a cycle, it is nested
// deeper than MaxImportDepth, or it is not a regular file.
var ErrImportRefused = errors.New("instruction import refused")

// InstructionSources says where LoadInstructionsFrom looks.
type InstructionSources struct {
	// WorkspaceRoot is the root of the workspace (the git root); its files
	// are read through an os.Root of it. "" skips the workspace.
	WorkspaceRoot string
	// WorkDir is the working directory: directories from the root down
	// to it are searched. Outside the root (or ""), only the root is.
	WorkDir string
	// Home is the user's home directory: ~/.claude/CLAUDE.md is the first
	// file, and @~/ imports resolve in it. "" skips both.
	Home string
	// UserConfigDir is rein's own configuration directory; its AGENTS.md
	// follows ~/.claude/CLAUDE.md. "" skips it.
	UserConfigDir string
	// MaxBytes caps the text (DefaultInstructionsBytes when <= 0).
	MaxBytes int
	// Others also reads, at the workspace root, the files other agents'
	// users keep for the whole project (others.go), after the root's
	// AGENTS.md and CLAUDE.md files and before CLAUDE.local.md.
	Others bool
}

// LoadedFile is one file whose text went into the instructions.
type LoadedFile struct {
	// Path is the file as its header names it: relative to the workspace
	// root for the workspace's files, ~/… for the home's, else absolute.
	Path string
	// ImportedBy is the Path of the file whose @path import brought it
	// in; "" for a file found by its name.
	ImportedBy string
	// Cut is set on the file the cap cut short.
	Cut bool
}

// Instructions is the result of a load.
type Instructions struct {
	// Text is the instructions, each file headed with its path.
	Text string
	// Files lists the files in Text, in order.
	Files []LoadedFile
	// NotLoaded counts the files found by name that the cap left out
	// (the imports of those are not counted).
	NotLoaded int
	// Truncated is set when the cap cut the text.
	Truncated bool
}

// Paths returns the Path of every loaded file, in order.
func (in *Instructions) Paths() []string {
	var out []string
	for _, f := range in.Files {
		out = append(out, f.Path)
	}
	return out
}

// LoadInstructions is LoadInstructionsFrom with no home directory: the
// user's userConfigDir/AGENTS.md, then the workspace's files from
// workspaceRoot down to workDir. files lists the loaded paths.
func LoadInstructions(workspaceRoot, workDir, userConfigDir string, maxBytes int) (text string, files []string, err error) {
	in, err := LoadInstructionsFrom(InstructionSources{
		WorkspaceRoot: workspaceRoot, WorkDir: workDir, UserConfigDir: userConfigDir, MaxBytes: maxBytes,
	})
	return in.Text, in.Paths(), err
}

// LoadInstructionsFrom reads the instruction files for a run, to be
// passed as agent.Config.Instructions (which no context strategy drops):
//
//  1. the user's ~/.claude/CLAUDE.md, then rein's UserConfigDir/AGENTS.md;
//  2. in every directory from the workspace root down to WorkDir, nearer
//     ones later so that they read as refinements: AGENTS.md, CLAUDE.md,
//     .claude/CLAUDE.md, CLAUDE.local.md.
//
// Each file is followed by the files its @path imports name (see
// scanImports), depth first, up to MaxImportDepth hops. A file reached
// twice (two names for one file, or imported by two files) is read once,
// at its first place.
//
// Workspace files are read through an os.Root of the root, so a symlink
// that leads out is refused with ErrOutsideWorkspace; symlinks within it
// are followed. The user's two files found by name are the user's own and
// may be symlinks anywhere. Imports are confined: into the workspace, or
// into the home directory (through an os.Root of it), where a workspace
// file may import only under ~/.claude, since a repository must not pull
// the user's other files into the model's context. Anything else is
// refused with ErrImportRefused, as is any file whose path, written or
// resolved, is named like a credential store (policy.CredentialComponent:
// .env, id_ed25519, .aws, …). Missing files are skipped, as are
// non-regular files found by name (a directory called AGENTS.md).
//
// The text is capped at MaxBytes and at MaxInstructionFiles files: the
// file that crosses the cap is cut at a character boundary, and a marker
// says so. The result is usable even when err is not nil: err then joins
// one error per file refused or unreadable, so a caller can warn and go
// on. Only a workspace root that cannot be opened fails the whole load.
func LoadInstructionsFrom(src InstructionSources) (*Instructions, error) {
	l, err := newLoader(src)
	if err != nil {
		return &Instructions{}, err
	}
	defer l.close()
	var found []source
	if src.Home != "" {
		if s, ok := l.userFile(filepath.Join(src.Home, ".claude", ClaudeInstructionsFile)); ok {
			found = append(found, s)
		}
	}
	if src.UserConfigDir != "" {
		if s, ok := l.userFile(filepath.Join(src.UserConfigDir, InstructionsFile)); ok {
			found = append(found, s)
		}
	}
	if l.ws != nil {
		for _, dir := range dirsDown(src.WorkspaceRoot, src.WorkDir) {
			for _, base := range dirInstructionNames {
				if dir == "." && base == LocalInstructionsFile && src.Others {
					found = append(found, l.otherFiles()...)
				}
				if s, ok := l.workspaceFile(filepath.Join(dir, base)); ok {
					found = append(found, s)
				}
			}
		}
	}
	for i, s := range found {
		l.pending = len(found) - i - 1
		l.include(s, "", 0)
	}
	return &l.out, errors.Join(l.errs...)
}

// userFile finds one of the user's own files by its absolute path.
func (l *loader) userFile(path string) (source, bool) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return source{}, false
	case err != nil:
		l.errs = append(l.errs, fmt.Errorf("instructions: cannot read the user instructions %s: %w", quoteIfOdd(path), err))
		return source{}, false
	case !fi.Mode().IsRegular():
		return source{}, false
	}
	return source{kind: kindUser, display: displayHome(l.homePath, path), abs: path, info: fi}, true
}

// workspaceFile finds a file by its name relative to the workspace root.
// Missing and non-regular files are skipped; a refused one is reported.
func (l *loader) workspaceFile(name string) (source, bool) {
	fi, err := l.ws.Stat(name)
	display := quoteIfOdd(filepath.ToSlash(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return source{}, false
	case err != nil && l.wsEscape != nil && errors.Is(err, l.wsEscape):
		l.errs = append(l.errs, fmt.Errorf("instructions: refused %s: %w (a symlink points out of %s); remove the link or copy the file into the workspace",
			display, ErrOutsideWorkspace, quoteIfOdd(l.wsPath)))
		return source{}, false
	case err != nil:
		l.errs = append(l.errs, fmt.Errorf("instructions: cannot read %s in the workspace: %w", display, err))
		return source{}, false
	case !fi.Mode().IsRegular():
		return source{}, false
	}
	if c := credentialName(l.wsPath, name); c != "" {
		l.errs = append(l.errs, fmt.Errorf("instructions: refused %s: it leads to a file named like a credential store (%s)", display, quoteIfOdd(c)))
		return source{}, false
	}
	return source{kind: kindWorkspace, display: display, abs: filepath.Join(l.wsPath, name), name: name, info: fi}, true
}

// displayHome shows a path under home as ~/…, others as they are.
func displayHome(home, path string) string {
	if home != "" {
		if rel, ok := within(home, path); ok && rel != "." {
			return quoteIfOdd("~/" + filepath.ToSlash(rel))
		}
	}
	return quoteIfOdd(path)
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
	if root == "" {
		return "", false
	}
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
