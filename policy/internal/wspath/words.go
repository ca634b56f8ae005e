package wspath

import (
	"path/filepath"
	"slices"
	"strings"
)

// Within reports whether p is dir or inside it.
func Within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// Candidates are the paths an argument may name: itself, the value
// of --opt=value or key=value (dd of=F), what follows a short option
// (-fFILE, -oFILE), and what follows a colon (HEAD:secrets/key,
// host:path). Checking a few strings too many costs little; missing the
// one a program opens is a bypass.
func Candidates(t string) []string {
	var out []string
	switch {
	case t == "-" || t == "--":
	case strings.HasPrefix(t, "--"):
		if _, value, ok := strings.Cut(t, "="); ok && value != "" {
			out = append(out, value)
		}
	case strings.HasPrefix(t, "-"):
		// -fFILE, -xfFILE, -czfFILE; a short cluster of letters (-la,
		// -rf) names no file.
		if len(t) <= 4 && isLetters(t[1:]) {
			break
		}
		for k := 2; k < len(t) && k <= 4; k++ {
			out = append(out, t[k:])
		}
	default:
		out = append(out, t)
		if _, value, ok := strings.Cut(t, "="); ok && value != "" {
			out = append(out, value)
		}
	}
	for _, p := range slices.Clone(out) {
		if i := strings.LastIndexByte(p, ':'); i >= 0 && i+1 < len(p) {
			out = append(out, p[i+1:])
		}
	}
	return out
}

func isLetters(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Quote shows a word or path in a reason, compactly: both the
// analyzer's findings and the engine's reasons quote them this way.
func Quote(s string) string {
	const maxLen = 80
	if r := []rune(s); len(r) > maxLen {
		s = string(r[:maxLen]) + "…"
	}
	return "`" + s + "`"
}

// Sentinels stand in for an unknown home or workspace, so `rm -rf ~` is
// still recognised as removing the home directory.
const (
	UnknownHome      = "/.rein-unknown-home"
	UnknownWorkspace = "/.rein-unknown-workspace"
)

// CleanOr returns p cleaned, or def when p is empty or relative.
func CleanOr(p, def string) string {
	if p == "" || !filepath.IsAbs(p) {
		return def
	}
	return filepath.Clean(p)
}
