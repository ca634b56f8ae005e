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

// sourceKind says how a file is opened and what it may import.
type sourceKind int

const (
	kindUser      sourceKind = iota // the user's own file found by name: any path
	kindWorkspace                   // through the workspace's os.Root
	kindHome                        // through the home's os.Root
)

// source is one file to read.
type source struct {
	kind    sourceKind
	display string      // the path in the header
	abs     string      // its lexical absolute path: relative imports start here
	name    string      // its name inside its root (workspace and home kinds)
	info    fs.FileInfo // to recognise a file reached twice
	// noImports: the file's @path mentions are not imports (other
	// agents' files but GEMINI.md); mdc: a Cursor rule, whose front
	// matter decides whether it applies and is not part of the text.
	noImports, mdc bool
}

// loader reads one set of instructions.
type loader struct {
	ws, home             *os.Root
	wsPath, homePath     string // absolute
	wsEscape, homeEscape error  // os.Root's (unexported) escape error, to recognise it
	maxBytes             int
	b                    strings.Builder
	out                  Instructions
	errs                 []error
	seen                 []fs.FileInfo
	stack                []source // the import chain being followed
	pending              int      // files found by name still to come
	full                 bool     // the cap was reached: read nothing more
}

func newLoader(src InstructionSources) (*loader, error) {
	l := &loader{maxBytes: src.MaxBytes}
	if l.maxBytes <= 0 {
		l.maxBytes = DefaultInstructionsBytes
	}
	if src.WorkspaceRoot != "" {
		root, err := os.OpenRoot(src.WorkspaceRoot)
		if err != nil {
			return nil, fmt.Errorf("instructions: cannot open the workspace %s to read %s files: %w; check -C/--workspace", src.WorkspaceRoot, InstructionsFile, err)
		}
		l.ws, l.wsEscape = root, escapeError(root)
		l.wsPath, _ = filepath.Abs(src.WorkspaceRoot)
	}
	if src.Home != "" {
		l.homePath, _ = filepath.Abs(src.Home)
		// Without a readable home, @~/ imports are refused one by one.
		if root, err := os.OpenRoot(src.Home); err == nil {
			l.home, l.homeEscape = root, escapeError(root)
		}
	}
	return l, nil
}

func (l *loader) close() {
	if l.ws != nil {
		l.ws.Close()
	}
	if l.home != nil {
		l.home.Close()
	}
}

// escapeError returns the error root gives for a path leading out of it:
// it is not exported, and a path that escapes lexically yields the same.
func escapeError(root *os.Root) error {
	var pe *fs.PathError
	if _, err := root.Stat(".."); err != nil && errors.As(err, &pe) {
		return pe.Err
	}
	return nil
}

// include reads s (imported by importedBy, depth hops from a file found by
// name) and then, depth first, the files it imports.
func (l *loader) include(s source, importedBy string, depth int) {
	if l.full || l.seenFile(s.info) {
		return
	}
	if len(l.seen) >= MaxInstructionFiles {
		l.errs = append(l.errs, fmt.Errorf("instructions: %s not loaded: more than %d instruction files", s.display, MaxInstructionFiles))
		l.full = true
		return
	}
	l.seen = append(l.seen, s.info)
	content, ok := l.appendFile(s, importedBy)
	if !ok || l.full {
		return
	}
	if s.noImports {
		return
	}
	imports := scanImports(content)
	if depth >= MaxImportDepth {
		l.depthLimit(s, imports)
		return
	}
	l.stack = append(l.stack, s)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	for _, imp := range imports {
		t, ok := l.resolve(s, imp)
		if !ok {
			continue
		}
		if l.onStack(t.info) {
			l.errs = append(l.errs, fmt.Errorf("instructions: refused @%s in %s: %w: it closes a cycle (%s → %s)",
				quoteIfOdd(imp), s.display, ErrImportRefused, l.chain(), t.display))
			continue
		}
		l.include(t, s.display, depth+1)
	}
}

// depthLimit warns that the imports of s, which is MaxImportDepth hops
// deep, are not followed — when one of them names a file: a mention
// (@alice), a file read already or a refused path is no news here.
func (l *loader) depthLimit(s source, imports []string) {
	n := len(l.errs)
	found := false
	for _, imp := range imports {
		if t, ok := l.resolve(s, imp); ok && !l.seenFile(t.info) {
			found = true
		}
	}
	l.errs = l.errs[:n]
	if found {
		l.errs = append(l.errs, fmt.Errorf("instructions: the imports of %s were not followed: %w: they would be more than %d hops deep (%s → %s)",
			s.display, ErrImportRefused, MaxImportDepth, l.chain(), s.display))
	}
}

// appendFile reads s into the text under its header, cut at the cap. It
// returns what it read; ok is false when nothing was added.
func (l *loader) appendFile(s source, importedBy string) (string, bool) {
	header := "# Instructions from " + s.display
	if importedBy != "" {
		header += " (imported by " + importedBy + ")"
	}
	header += "\n\n"
	sep := ""
	if l.b.Len() > 0 {
		sep = "\n\n"
	}
	room := l.maxBytes - l.b.Len() - len(sep) - len(header)
	content, err := l.readText(s, room)
	if err != nil {
		l.errs = append(l.errs, err)
		return "", false
	}
	if strings.TrimSpace(content) == "" {
		return "", false
	}
	if len(content) <= room {
		l.b.WriteString(sep + header + content)
		l.out.Text = l.b.String()
		l.out.Files = append(l.out.Files, LoadedFile{Path: s.display, ImportedBy: importedBy})
		return content, true
	}
	// This file crosses the cap: cut it, say so, and stop.
	l.full, l.out.Truncated, l.out.NotLoaded = true, true, l.pending
	mark := truncationMarker(l.maxBytes, l.pending)
	room -= len(mark)
	added := false
	if room > 0 {
		l.b.WriteString(sep + header + cutRunes(content, room))
		l.out.Files = append(l.out.Files, LoadedFile{Path: s.display, ImportedBy: importedBy, Cut: true})
		added = true
	}
	if l.b.Len()+len(mark) <= l.maxBytes {
		l.b.WriteString(mark)
	}
	l.out.Text = l.b.String()
	return "", added
}

func truncationMarker(maxBytes, left int) string {
	m := "\n[rein: instructions truncated to " + strconv.Itoa(maxBytes) + " bytes"
	if left > 0 {
		m += "; " + strconv.Itoa(left) + " more instruction files not loaded"
	}
	return m + "]"
}

// read reads at most limit bytes of s as valid UTF-8 text, refusing
// anything that is not a regular file by the time it is opened.
func (l *loader) read(s source, limit int) (string, error) {
	var (
		fh  *os.File
		err error
	)
	switch s.kind {
	case kindWorkspace:
		fh, err = l.ws.Open(s.name)
	case kindHome:
		fh, err = l.home.Open(s.name)
	default:
		fh, err = os.Open(s.abs)
	}
	if err != nil {
		return "", fmt.Errorf("instructions: cannot read %s: %w", s.display, err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("instructions: cannot read %s: it is no longer a regular file", s.display)
	}
	data, err := io.ReadAll(io.LimitReader(fh, int64(limit)))
	if err != nil {
		return "", fmt.Errorf("instructions: cannot read %s: %w", s.display, err)
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	return strings.ToValidUTF8(text, "\uFFFD"), nil
}

// seenFile reports whether fi was read already (two names for one file,
// or a file imported twice).
func (l *loader) seenFile(fi fs.FileInfo) bool {
	for _, s := range l.seen {
		if os.SameFile(s, fi) {
			return true
		}
	}
	return false
}

func (l *loader) onStack(fi fs.FileInfo) bool {
	for _, s := range l.stack {
		if os.SameFile(s.info, fi) {
			return true
		}
	}
	return false
}

// chain shows the import chain being followed: a → b → c.
func (l *loader) chain() string {
	var parts []string
	for _, s := range l.stack {
		parts = append(parts, s.display)
	}
	return strings.Join(parts, " → ")
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
