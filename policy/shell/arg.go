package shell

// Arg is one word of a command as the policy checks it for paths.
type Arg struct {
	// Text is the word as the policy shows and matches it (run-time
	// expansions kept as written).
	Text string
	// Path is Text with a leading ~ and simple $HOME expanded; PathOK
	// says every expansion in it was resolved.
	Path   string
	PathOK bool
	// Literal says the word has no parameter, command, arithmetic or
	// process expansion.
	Literal bool
	// Glob says the word has an unquoted glob metacharacter; Braced that
	// it came from a brace expansion.
	Glob   bool
	Braced bool
}

func args(ws []word) []Arg {
	out := make([]Arg, len(ws))
	for i, w := range ws {
		out[i] = Arg{Text: w.text, Path: w.path, PathOK: w.pathOK, Literal: w.literal, Glob: w.glob, Braced: w.braced}
	}
	return out
}

// Normalize returns the argv rules match on for a plain argv: an absolute
// command path reduced to its base name, git's global options removed.
func Normalize(argv []string) []string {
	ws := make([]word, len(argv))
	for i, a := range argv {
		ws[i] = litWord(a)
	}
	return normalize(ws)
}

// LinkKind says whether the command makes links ("link": ln, cp -s/-l)
// or moves directory entries ("move": mv, rsync, cp, install), or
// neither (""): a link to the workspace is a second name for every path.
func (c Command) LinkKind() string {
	if len(c.Args) == 0 {
		return ""
	}
	return linkKind(c.Args)
}
