package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/reinharness/rein/internal/textclip"
)

// FilePatch is one file's section of a unified diff.
type FilePatch struct {
	// OldPath and NewPath are workspace-relative with git's a/ and b/
	// prefixes removed; "" stands for /dev/null (a created or deleted
	// file).
	OldPath, NewPath string
	// OldMode and NewMode are the permission bits from git's mode lines
	// (0 when the patch does not say).
	OldMode, NewMode iofs.FileMode
	// IsNew, IsDelete, IsRename and IsCopy classify the change.
	IsNew, IsDelete, IsRename, IsCopy bool
	// Binary marks a binary patch, which apply_patch refuses.
	Binary bool
	// Hunks are the content changes, in file order.
	Hunks []Hunk
}

// Hunk is one "@@" section.
type Hunk struct {
	// OldStart and NewStart are 1-based as in the header; OldLines and
	// NewLines are counted from the body (models often miscount headers).
	OldStart, OldLines, NewStart, NewLines int
	// Positioned is false for a bare "@@" header without line numbers:
	// the hunk is then located by its content alone.
	Positioned bool
	// Header is the original "@@ … @@" line, for messages.
	Header string
	// Lines is the body: context, removed and added lines in order.
	Lines []HunkLine
}

// HunkLine is one body line of a hunk.
type HunkLine struct {
	// Op is ' ' (context), '-' (removed) or '+' (added).
	Op byte
	// Text is the line without its newline.
	Text string
	// NoNewline marks the last line of a file that does not end in a
	// newline ("\ No newline at end of file" followed it).
	NoNewline bool
}

// Paths returns every workspace path the patch reads or writes.
func (fp FilePatch) Paths() []string {
	var out []string
	if fp.OldPath != "" {
		out = append(out, fp.OldPath)
	}
	if fp.NewPath != "" && fp.NewPath != fp.OldPath {
		out = append(out, fp.NewPath)
	}
	return out
}

// ErrNoPatch reports input that holds no file patch at all.
var ErrNoPatch = errors.New("no file changes found in the patch: expected unified diff sections starting with \"diff --git\" or \"--- a/file\" and \"+++ b/file\"")

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// ParsePatch parses a unified diff as git diff, diff -u and models write
// it: several files, git's extended headers (new/deleted file mode, mode
// changes, rename and copy from/to, similarity index, index), quoted
// paths, "\ No newline at end of file", and text before, between and after
// the file sections (a commit message, a format-patch signature). Hunk
// header line counts are checked against the body but not trusted: the
// body decides. A bare "@@" header is accepted and located by content.
func ParsePatch(patch string) ([]FilePatch, error) {
	p := &patchParser{lines: strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if len(p.files) == 0 {
		return nil, ErrNoPatch
	}
	out := make([]FilePatch, len(p.files))
	for i, f := range p.files {
		if err := f.check(); err != nil {
			return nil, err
		}
		out[i] = f.FilePatch
	}
	return out, nil
}

type filePatch struct {
	FilePatch
	gitOld, gitNew string // names from the "diff --git" line
	sawNames       bool   // ---/+++ seen
	git            bool
}

type patchParser struct {
	lines []string
	i     int
	files []*filePatch
	cur   *filePatch
}

func (p *patchParser) parse() error {
	inGitHeader := false
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		switch {
		case strings.HasPrefix(line, "diff --git "):
			p.cur = &filePatch{git: true}
			p.files = append(p.files, p.cur)
			p.cur.gitOld, p.cur.gitNew = parseGitNames(strings.TrimPrefix(line, "diff --git "))
			inGitHeader = true
			p.i++
		case strings.HasPrefix(line, "--- ") && p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i+1], "+++ "):
			if p.cur == nil || !inGitHeader || p.cur.sawNames {
				p.cur = &filePatch{}
				p.files = append(p.files, p.cur)
			}
			p.cur.OldPath = parsePatchName(strings.TrimPrefix(line, "--- "))
			p.cur.NewPath = parsePatchName(strings.TrimPrefix(p.lines[p.i+1], "+++ "))
			p.cur.sawNames = true
			inGitHeader = false
			p.i += 2
		case strings.HasPrefix(line, "@@"):
			if p.cur == nil || (!p.cur.sawNames && !p.cur.git) {
				return fmt.Errorf("patch line %d: hunk %q has no file header before it (add \"--- a/file\" and \"+++ b/file\" lines)", p.i+1, textclip.Clip(line, 60))
			}
			inGitHeader = false
			if err := p.hunk(); err != nil {
				return err
			}
		case inGitHeader:
			if !p.cur.extendedHeader(line) {
				inGitHeader = false
			}
			if strings.HasPrefix(line, "GIT binary patch") {
				p.skipBinary()
				continue
			}
			p.i++
		default:
			p.i++ // text outside file sections: a message, a signature
		}
	}
	return nil
}

// extendedHeader applies one git extended header line; it reports false
// for a line that is not one.
func (f *filePatch) extendedHeader(line string) bool {
	cut := func(prefix string) (string, bool) { return strings.CutPrefix(line, prefix) }
	if v, ok := cut("new file mode "); ok {
		f.IsNew, f.NewMode = true, parseMode(v)
	} else if v, ok := cut("deleted file mode "); ok {
		f.IsDelete, f.OldMode = true, parseMode(v)
	} else if v, ok := cut("old mode "); ok {
		f.OldMode = parseMode(v)
	} else if v, ok := cut("new mode "); ok {
		f.NewMode = parseMode(v)
	} else if v, ok := cut("rename from "); ok {
		f.IsRename, f.OldPath = true, unquoteName(v)
	} else if v, ok := cut("rename to "); ok {
		f.IsRename, f.NewPath = true, unquoteName(v)
	} else if v, ok := cut("copy from "); ok {
		f.IsCopy, f.OldPath = true, unquoteName(v)
	} else if v, ok := cut("copy to "); ok {
		f.IsCopy, f.NewPath = true, unquoteName(v)
	} else if strings.HasPrefix(line, "Binary files ") || strings.HasPrefix(line, "GIT binary patch") {
		f.Binary = true
	} else if !strings.HasPrefix(line, "similarity index ") && !strings.HasPrefix(line, "dissimilarity index ") &&
		!strings.HasPrefix(line, "index ") {
		return false
	}
	return true
}

// skipBinary skips a "GIT binary patch" body, which ends at a blank line
// after its second (reverse) block.
func (p *patchParser) skipBinary() {
	p.i++
	blanks := 0
	for p.i < len(p.lines) && blanks < 2 {
		if p.lines[p.i] == "" {
			blanks++
		} else if strings.HasPrefix(p.lines[p.i], "diff --git ") {
			return
		}
		p.i++
	}
}

func parseMode(s string) iofs.FileMode {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 8, 32)
	if err != nil {
		return 0
	}
	return iofs.FileMode(v).Perm()
}

// check finishes a file patch: resolves names and validates the shape.
func (f *filePatch) check() error {
	if !f.sawNames && !f.IsRename && !f.IsCopy {
		f.OldPath, f.NewPath = f.gitOld, f.gitNew
		if f.IsNew {
			f.OldPath = ""
		}
		if f.IsDelete {
			f.NewPath = ""
		}
	}
	// Names from rename/copy lines never carry prefixes; all others may.
	if f.sawNames || (!f.IsRename && !f.IsCopy) {
		stripGitPrefixes(&f.FilePatch)
	}
	if f.OldPath == "" && f.NewPath == "" {
		return errors.New("a file section names no file (both sides are /dev/null)")
	}
	if f.OldPath == "" {
		f.IsNew = true
	}
	if f.NewPath == "" {
		f.IsDelete = true
	}
	if f.IsNew && f.IsDelete {
		return fmt.Errorf("%s: a file section cannot both create and delete the file", f.name())
	}
	if len(f.Hunks) == 0 && !f.IsNew && !f.IsDelete && !f.IsRename && !f.IsCopy && !f.Binary &&
		(f.NewMode == 0 || f.NewMode == f.OldMode) {
		return fmt.Errorf("%s: the file section has no hunks (no @@ lines)", f.name())
	}
	return nil
}

func (f *filePatch) name() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// stripGitPrefixes removes git's a/ and b/ prefixes when both sides carry
// them (git diff without --no-prefix), so that a patch made with
// --no-prefix or by diff -u keeps a real directory named a/.
func stripGitPrefixes(f *FilePatch) {
	oldOK := f.OldPath == "" || strings.HasPrefix(f.OldPath, "a/")
	newOK := f.NewPath == "" || strings.HasPrefix(f.NewPath, "b/")
	if !oldOK || !newOK {
		return
	}
	f.OldPath = strings.TrimPrefix(f.OldPath, "a/")
	f.NewPath = strings.TrimPrefix(f.NewPath, "b/")
}

// parsePatchName reads a ---/+++ name: quoted or bare, with diff's
// tab-separated timestamp dropped; /dev/null becomes "".
func parsePatchName(s string) string {
	if strings.HasPrefix(s, `"`) {
		if name, _, ok := cutQuoted(s); ok {
			return devNull(name)
		}
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return devNull(strings.TrimRight(s, " "))
}

func devNull(s string) string {
	if s == "/dev/null" {
		return ""
	}
	return s
}

func unquoteName(s string) string {
	if name, _, ok := cutQuoted(s); ok {
		return name
	}
	return s
}

// cutQuoted parses a C-style quoted name (git quotes names with special
// characters, octal-escaping bytes) at the start of s.
func cutQuoted(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			name, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", s, false
			}
			return name, strings.TrimPrefix(s[i+1:], " "), true
		}
	}
	return "", s, false
}

// parseGitNames splits the names of a "diff --git a/x b/x" line. Names
// with spaces are ambiguous there; the ---/+++ or rename lines, when
// present, take precedence.
func parseGitNames(s string) (string, string) {
	if a, rest, ok := cutQuoted(s); ok {
		if b, _, ok := cutQuoted(rest); ok {
			return a, b
		}
		return a, rest
	}
	// Same name on both sides (the usual case): split in the middle.
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if s[n/2] == ' ' && strings.TrimPrefix(a, "a/") == strings.TrimPrefix(b, "b/") {
			return a, b
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, s
}
