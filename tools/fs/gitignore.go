package fs

import (
	"path"
	"regexp"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool // "!pattern" re-includes
	dirOnly bool // "pattern/" matches directories only
	// anchored patterns (a slash other than a trailing one) match the
	// path relative to the .gitignore's directory; others match the
	// base name at any depth.
	anchored bool
}

// ignoreFile is the parsed rules of one .gitignore, for paths under base
// ("" for the workspace root).
type ignoreFile struct {
	base  string
	rules []ignoreRule
}

// parseGitignore parses .gitignore content as git does: blank lines and
// "#" comments are skipped, trailing unescaped spaces trimmed, "!" negates,
// a trailing "/" restricts to directories, a leading or middle "/"
// anchors the pattern, and "*", "?", "[...]" and "**" are globs. Lines
// that do not compile are skipped, as git skips what it cannot parse.
func parseGitignore(base, content string) *ignoreFile {
	f := &ignoreFile{base: base}
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimUnescapedTrailingSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		re, err := regexp.Compile("^" + globToRegexp(line) + "$")
		if err != nil {
			continue
		}
		r.re = re
		f.rules = append(f.rules, r)
	}
	return f
}

func trimUnescapedTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globToRegexp translates a gitignore glob into a regular expression.
func globToRegexp(g string) string {
	var sb strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/") && (i == 0 || g[i-1] == '/'):
			sb.WriteString("(?:.*/)?") // any leading directories, or none
			i += 2
		case strings.HasPrefix(g[i:], "**") && i+2 == len(g) && (i == 0 || g[i-1] == '/'):
			sb.WriteString(".*") // everything inside
			i++
		case c == '*':
			sb.WriteString("[^/]*")
		case c == '?':
			sb.WriteString("[^/]")
		case c == '[':
			if cls, n, ok := bracketClass(g[i:]); ok {
				sb.WriteString(cls)
				i += n - 1
			} else {
				sb.WriteString(`\[`)
			}
		case c == '\\' && i+1 < len(g):
			i++
			sb.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return sb.String()
}

// bracketClass converts a "[...]" class at the start of g, returning the
// regexp class, the bytes consumed and whether the class was terminated.
func bracketClass(g string) (string, int, bool) {
	i := 1
	var sb strings.Builder
	sb.WriteString("[")
	if i < len(g) && (g[i] == '!' || g[i] == '^') {
		sb.WriteString("^")
		i++
	}
	first := true
	for i < len(g) {
		c := g[i]
		if c == ']' && !first {
			sb.WriteString("]")
			return sb.String(), i + 1, true
		}
		first = false
		switch c {
		case '\\':
			if i+1 < len(g) {
				i++
				sb.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		case '[', ']', '^':
			sb.WriteString(`\` + string(c))
		default:
			sb.WriteByte(c)
		}
		i++
	}
	return "", 0, false
}

// match reports whether rel (relative to the workspace) is decided by this
// file: matched says some rule matched, ignored is the last matching
// rule's verdict.
func (f *ignoreFile) match(rel string, isDir bool) (ignored, matched bool) {
	sub := rel
	if f.base != "" {
		if !strings.HasPrefix(rel, f.base+"/") {
			return false, false
		}
		sub = rel[len(f.base)+1:]
	}
	name := path.Base(sub)
	for _, r := range f.rules {
		if r.dirOnly && !isDir {
			continue
		}
		target := name
		if r.anchored {
			target = sub
		}
		if r.re.MatchString(target) {
			ignored, matched = !r.negate, true
		}
	}
	return ignored, matched
}

// ignorer answers "is this path gitignored?" for a walk, loading each
// directory's .gitignore (and the repository's .git/info/exclude) once.
type ignorer struct {
	read  func(rel string) (string, bool) // reads a workspace file, false if absent
	files map[string]*ignoreFile          // by directory; nil when it has none
}

func newIgnorer(read func(rel string) (string, bool)) *ignorer {
	return &ignorer{read: read, files: map[string]*ignoreFile{}}
}

// dirFile returns the rules of dir's .gitignore (dir "" is the root).
func (ig *ignorer) dirFile(dir string) *ignoreFile {
	if f, ok := ig.files[dir]; ok {
		return f
	}
	var f *ignoreFile
	name := path.Join(dir, ".gitignore")
	if content, ok := ig.read(name); ok {
		f = parseGitignore(dir, content)
	}
	if dir == "" {
		if content, ok := ig.read(".git/info/exclude"); ok {
			ex := parseGitignore("", content)
			if f == nil {
				f = ex
			} else {
				// info/exclude has lower precedence: its rules come first.
				f.rules = append(ex.rules, f.rules...)
			}
		}
	}
	ig.files[dir] = f
	return f
}

// Ignored reports whether rel is ignored, considering every .gitignore
// from the root down to rel's directory, deeper files overriding
// shallower ones, and an ignored parent directory ignoring everything
// below it (git cannot re-include a file whose directory is excluded).
func (ig *ignorer) Ignored(rel string, isDir bool) bool {
	if rel == "." || rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if ig.decide(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return ig.decide(rel, isDir)
}

// decide applies the .gitignore files of rel's ancestors to rel itself.
func (ig *ignorer) decide(rel string, isDir bool) bool {
	ignored := false
	dir := ""
	parts := strings.Split(rel, "/")
	for i := 0; i < len(parts); i++ {
		if f := ig.dirFile(dir); f != nil {
			if v, ok := f.match(rel, isDir); ok {
				ignored = v
			}
		}
		dir = path.Join(dir, parts[i])
	}
	return ignored
}
