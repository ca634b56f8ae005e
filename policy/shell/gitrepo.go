package shell

import (
	"os"
	"path"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// The repository's own configuration is part of what a git command
// means: a remote with mirror = true or a + push refspec makes a plain
// `git push` a force push, and an alias there can hide one. Writing
// .git/config asks, so an approved write (or a repository handed to rein
// that way) must not turn the next push into a force push: the config is
// read at decision time, like symlinks are.

// maxGitConfigBytes bounds the configuration file rein reads.
const maxGitConfigBytes = 256 << 10

// gitEntry is one key = value of a git configuration file; key is
// section[.subsection].name with section and name lower-cased.
type gitEntry struct {
	key, value string
}

// parseGitConfig parses git's configuration syntax far enough to find
// keys and values: [section], [section "sub"], [section.sub], key =
// value, a bare key (true), comments, quotes and line continuations. ok
// is false for text it cannot follow (an unterminated quote or header),
// which a caller must treat as a configuration it cannot pin.
func parseGitConfig(text string) (entries []gitEntry, ok bool) {
	section := ""
	lines := strings.Split(strings.ReplaceAll(text, "\\\n", ""), "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				return entries, false
			}
			section = gitSection(l[1:end])
			l = strings.TrimSpace(l[end+1:])
			if l == "" || l[0] == '#' || l[0] == ';' {
				continue
			}
		}
		name, value, hasValue := strings.Cut(l, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !hasValue {
			value = "true"
		}
		v, vok := gitValue(value)
		if !vok {
			return entries, false
		}
		entries = append(entries, gitEntry{key: section + "." + name, value: v})
		if len(entries) > 4096 {
			return entries, false
		}
	}
	return entries, true
}

// gitSection normalises a section header's inside: `remote "origin"` is
// remote.origin, `Remote.Origin` is remote.origin (the old form is
// case-insensitive).
func gitSection(h string) string {
	name, sub, quoted := strings.Cut(strings.TrimSpace(h), " ")
	if quoted {
		sub = strings.Trim(strings.TrimSpace(sub), `"`)
		return strings.ToLower(name) + "." + strings.ReplaceAll(sub, `\"`, `"`)
	}
	return strings.ToLower(name)
}

// gitValue removes quotes, escapes and a trailing comment from a value.
func gitValue(raw string) (string, bool) {
	var b strings.Builder
	inQuote := false
	raw = strings.TrimSpace(raw)
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(raw[i])
			}
		case !inQuote && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String()), true
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String()), !inQuote
}

// repoGitDirs returns the git directories a git command starting in dirs
// uses (the nearest .git up to the workspace root; for a .git file its
// gitdir and, for a worktree, the common directory).
func (a *analyzer) repoGitDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		for cur, n := path.Clean(d), 0; wspath.Within(cur, a.ws) && n < 64; cur, n = path.Dir(cur), n+1 {
			p := path.Join(cur, ".git")
			fi, err := os.Lstat(p)
			if err != nil {
				if cur == a.ws {
					break
				}
				continue
			}
			dir := p
			if !fi.IsDir() {
				dir = gitdirTarget(p, fi)
			}
			if dir != "" && !slices.Contains(out, dir) {
				out = append(out, dir)
				if b, err := os.ReadFile(path.Join(dir, "commondir")); err == nil && len(b) < 4096 {
					common := strings.TrimSpace(string(b))
					if !path.IsAbs(common) {
						common = path.Join(dir, common)
					}
					out = append(out, path.Clean(common))
				}
			}
			break
		}
	}
	return out
}

// repoConfig returns the entries of the repository configuration files a
// git command starting in dirs reads; ok is false when one cannot be
// followed.
//
// The user's global configuration counts too when it lies in the
// workspace (a workspace at $HOME), where an approved write can change it.
func (a *analyzer) repoConfig(dirs []string) (entries []gitEntry, ok bool) {
	ok = true
	for _, g := range []string{path.Join(a.home, ".gitconfig"), path.Join(a.home, ".config", "git", "config")} {
		if wspath.Within(g, a.ws) {
			e, eok := a.readGitConfig(g, 0)
			entries = append(entries, e...)
			ok = ok && eok
		}
	}
	for _, gd := range a.repoGitDirs(dirs) {
		for _, name := range []string{"config", "config.worktree"} {
			e, eok := a.readGitConfig(path.Join(gd, name), 0)
			entries = append(entries, e...)
			ok = ok && eok
		}
	}
	return entries, ok
}

// readGitConfig reads one configuration file and the files it includes
// (include.path, includeIf.*.path, whatever the condition): an include
// the model may have written (in the workspace or a temporary directory)
// or one nested too deep is configuration rein cannot pin (ok false). A
// missing file is empty, as for git.
func (a *analyzer) readGitConfig(file string, depth int) (entries []gitEntry, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, true
	}
	if len(b) > maxGitConfigBytes || depth > 4 {
		return nil, false
	}
	entries, ok = parseGitConfig(string(b))
	for _, e := range slices.Clone(entries) {
		if e.key != "include.path" && !(strings.HasPrefix(e.key, "includeif.") && strings.HasSuffix(e.key, ".path")) {
			continue
		}
		inc := e.value
		switch {
		case strings.HasPrefix(inc, "~/"):
			inc = path.Join(a.home, inc[2:])
		case !path.IsAbs(inc):
			inc = path.Join(path.Dir(file), inc)
		}
		if a.modelWritable(path.Clean(inc)) {
			return entries, false
		}
		more, mok := a.readGitConfig(path.Clean(inc), depth+1)
		entries = append(entries, more...)
		ok = ok && mok
	}
	return entries, ok
}

// checkRepoConfig denies a push that the repository's configuration makes
// force or mirror, or whose configuration rein cannot follow (an include
// of another file, text it cannot parse), and checks an alias the
// configuration defines for the subcommand like an alias given with -c.
func (a *analyzer) checkRepoConfig(sub string, dirs []string, pushing bool, fr frame) {
	entries, ok := a.repoConfig(dirs)
	if pushing && !ok {
		a.hard("force-push", "git push under a repository configuration rein cannot follow (unparsable, or including a file the command may have written) is a possible force push; it is never allowed")
		return
	}
	for _, e := range entries {
		switch {
		case pushing && forcingConfig(e.key, litWord(e.value), false):
			a.hard("force-push", "the repository's configuration ("+e.key+" = "+e.value+") makes git push a force or mirror push; it is never allowed")
			return
		case !pushing && e.key == "alias."+strings.ToLower(sub):
			if a.guessing >= 4 {
				a.tooComplex("the repository's git aliases chain deeper than rein follows")
				return
			}
			a.aliasValue(e.key, litWord(e.value), fr, "git alias "+sub)
		}
	}
}
