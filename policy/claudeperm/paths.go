package claudeperm

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reinharness/rein/policy"
)

// addPath translates Read(…), Edit(…) and Write(…) into path rules.
// Claude Code reads the specifier as a gitignore pattern:
//
//	//abs/path   from the file-system root
//	~/path       from the home directory
//	/path        from the project's root
//	./path, path from the project's root (where rein runs)
//
// A pattern without a slash matches at any depth (*.env is **/*.env), and
// a pattern naming a directory covers what is inside it. rein's path rules
// are doublestar globs relative to the workspace (absolute outside it).
func (t *Translation) addPath(action, access, spec, reason string, env Env, warn func(string, ...any)) {
	patterns, why := pathPatterns(spec, env)
	if why != "" {
		warn("%s; ignored", why)
		return
	}
	c := t.config(action)
	for _, p := range patterns {
		c.Paths = append(c.Paths, policy.PathRule{Pattern: p, Access: access, Action: action, Reason: reason})
	}
}

// pathPatterns returns the doublestar patterns of a gitignore pattern, or
// why there are none.
func pathPatterns(spec string, env Env) ([]string, string) {
	if strings.ContainsRune(spec, 0) || strings.Contains(spec, "\\") {
		return nil, "a path pattern with a backslash or NUL is not one rein reads"
	}
	var p string
	switch {
	case strings.HasPrefix(spec, "//"):
		p = "/" + strings.TrimLeft(spec, "/")
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		if env.Home == "" {
			return nil, "the home directory is not known"
		}
		p = filepath.ToSlash(env.Home) + "/" + strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "/"):
		p = strings.TrimLeft(spec, "/")
	default:
		rel := strings.TrimPrefix(spec, "./")
		for strings.HasPrefix(rel, "./") {
			rel = strings.TrimPrefix(rel, "./")
		}
		// gitignore: a slash at the start or in the middle anchors the
		// pattern; without one it matches at any depth.
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") && !strings.HasPrefix(rel, "**") {
			rel = "**/" + rel
		}
		p = rel
	}
	dir := strings.HasSuffix(p, "/")
	p = strings.TrimRight(p, "/")
	if path.IsAbs(p) {
		p = path.Clean(p)
		if ws := filepath.ToSlash(env.Workspace); ws != "" {
			if p == ws {
				p, dir = "**", false
			} else if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(ws, "/")+"/"); ok {
				p = rest
			}
		}
	} else if p != "" {
		if cleaned := path.Clean(p); cleaned == ".." || strings.HasPrefix(cleaned, "../") {
			return nil, "a pattern leading out of the project is not one rein reads; use //absolute/path"
		}
	}
	if p == "" || p == "/" {
		p = "**"
		if spec == "/" || spec == "//" {
			// The whole file system, or the whole project.
			if strings.HasPrefix(spec, "//") {
				p = "/**"
			}
		}
	}
	if !doublestar.ValidatePattern(p) {
		return nil, "not a valid path pattern"
	}
	if dir {
		return []string{p + "/**"}, ""
	}
	if strings.HasSuffix(p, "/**") || p == "**" || p == "/**" {
		return []string{p}, ""
	}
	// The pattern may name a directory: what is inside it is covered too.
	return []string{p, p + "/**"}, ""
}
