package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// maxWordAlternatives caps the words one brace expansion may produce. A
// bigger expansion is cut and reported as a concern, so `{1..99999999}` can
// neither exhaust memory nor hide a word past the cut.
const maxWordAlternatives = 64

// word is one shell word after static resolution: quotes removed, escapes
// processed, brace expansion done. Expansions whose value is only known at
// run time ($x, $(cmd), $((n))) are kept as written in text.
type word struct {
	// text is the word as the policy shows and matches it.
	text string
	// alt is the best static guess of the run-time value: variables
	// assigned literally earlier in the same command and substitutions
	// with a statically known output are filled in, anything unknown
	// expands to nothing. Used only to look for hard denials.
	alt string
	// path is text with a leading ~ and simple $HOME expanded, for path
	// checks; pathOK says every expansion in it was resolved.
	path   string
	pathOK bool
	// globAt is the offset in path of the first unquoted glob
	// metacharacter, or -1.
	globAt int
	// literal says the word has no parameter, command, arithmetic or
	// process expansion.
	literal bool
	// glob says the word has an unquoted glob metacharacter.
	glob bool
	// quoted says part of the word was quoted (an empty quoted word is
	// still an argument; an empty unquoted expansion vanishes).
	quoted bool
	// braced says the word came from a brace expansion.
	braced bool
	// download says a command substitution in the word runs a downloader.
	download bool
}

// dynamic reports whether the word's value is not known statically.
func (w word) dynamic() bool { return !w.literal || w.glob || w.braced }

// litWord returns a literal word, for arguments the analyzer makes up
// (the default `echo` of xargs, find's start point).
func litWord(s string) word {
	return word{text: s, alt: s, path: s, pathOK: true, globAt: -1, literal: true}
}

func (w word) concat(o word) word {
	r := word{
		text:     w.text + o.text,
		alt:      w.alt + o.alt,
		path:     w.path + o.path,
		pathOK:   w.pathOK && o.pathOK,
		globAt:   w.globAt,
		literal:  w.literal && o.literal,
		glob:     w.glob || o.glob,
		quoted:   w.quoted || o.quoted,
		braced:   w.braced || o.braced,
		download: w.download || o.download,
	}
	if r.globAt < 0 && o.globAt >= 0 {
		r.globAt = len(w.path) + o.globAt
	}
	return r
}

func texts(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}

// expandWord resolves one syntax word into the words it becomes after
// brace expansion (usually exactly one).
func (a *analyzer) expandWord(w *syntax.Word, fr frame) []word {
	braced := syntax.SplitBraces(w)
	out := a.expandParts(w.Parts, fr, true)
	if !braced {
		return out
	}
	kept := out[:0]
	for _, x := range out {
		x.braced = true
		// An empty unquoted field produced by brace expansion is
		// removed by the shell: `{sudo,} ls` runs `sudo ls`.
		if x.text == "" && !x.quoted {
			continue
		}
		kept = append(kept, x)
	}
	return kept
}

// singleWord resolves a word where the shell does no field splitting or
// brace expansion (redirect targets, assignment values, here-strings).
func (a *analyzer) singleWord(w *syntax.Word, fr frame) word {
	if w == nil {
		return litWord("")
	}
	out := a.expandParts(w.Parts, fr, true)
	if len(out) == 0 {
		return litWord("")
	}
	return out[0]
}

func (a *analyzer) expandParts(parts []syntax.WordPart, fr frame, first bool) []word {
	alts := []word{{pathOK: true, globAt: -1, literal: true}}
	for i, p := range parts {
		next := a.part(p, fr, first && i == 0)
		if len(next) == 1 {
			for j := range alts {
				alts[j] = alts[j].concat(next[0])
			}
			continue
		}
		var grown []word
		for _, x := range alts {
			for _, y := range next {
				if len(grown) == maxWordAlternatives {
					a.concern("too-complex", "a brace expansion produces more words than rein analyzes")
					break
				}
				grown = append(grown, x.concat(y))
			}
		}
		alts = grown
	}
	return alts
}

func (a *analyzer) part(p syntax.WordPart, fr frame, first bool) []word {
	switch p := p.(type) {
	case *syntax.Lit:
		return []word{a.unquotedLit(p.Value, first)}
	case *syntax.SglQuoted:
		v := p.Value
		if p.Dollar {
			v = decodeANSIC(v)
		}
		return []word{{text: v, alt: v, path: v, pathOK: true, globAt: -1, literal: true, quoted: true}}
	case *syntax.DblQuoted:
		w := word{pathOK: true, globAt: -1, literal: true, quoted: true}
		for _, inner := range p.Parts {
			if lit, ok := inner.(*syntax.Lit); ok {
				v := unescapeDouble(lit.Value)
				w = w.concat(word{text: v, alt: v, path: v, pathOK: true, globAt: -1, literal: true})
				continue
			}
			for _, x := range a.part(inner, fr, false) {
				x.glob, x.globAt = false, -1
				w = w.concat(x)
				break
			}
		}
		return []word{w}
	case *syntax.ParamExp:
		w := a.paramWord(p, fr)
		a.dynamic(wspath.Quote(w.text) + " is only known at run time, which makes the command unknowable to rein; spell the value out")
		return []word{w}
	case *syntax.CmdSubst:
		// In a stage fed by a download, the substitution may read it
		// ($(cat)): its output counts as downloaded.
		dl := a.stmtList(p.Stmts, fr.nested()) || fr.taint
		src := fr.slice(p)
		a.dynamic("the output of " + wspath.Quote(src) + " is only known at run time; run it on its own and spell the result out")
		out, _ := staticOutput(p)
		return []word{{text: src, alt: out, globAt: -1, download: dl}}
	case *syntax.ProcSubst:
		inner := fr.nested()
		if p.Op == syntax.CmdOut {
			// >(sh) reads what the command writes, which may be a
			// download: it counts as fed one.
			inner.taint, inner.pipeIn, inner.stdinCode, inner.stdinFile = true, true, nil, false
		}
		dl := a.stmtList(p.Stmts, inner) || fr.taint
		a.dynamic("process substitution " + wspath.Quote(fr.slice(p)) + " connects commands through file descriptors rein cannot follow; use a temporary file")
		return []word{{text: fr.slice(p), alt: "/dev/fd/63", globAt: -1, download: dl}}
	case *syntax.ArithmExp:
		dl := a.scanNested(p, fr)
		a.dynamic("arithmetic " + wspath.Quote(fr.slice(p)) + " is evaluated at run time and runs code through array subscripts; spell the value out")
		return []word{{text: fr.slice(p), globAt: -1, download: dl}}
	case *syntax.ExtGlob:
		src := fr.slice(p)
		return []word{{text: src, alt: src, path: src, pathOK: true, globAt: 0, literal: true, glob: true}}
	case *syntax.BraceExp:
		return a.braceAlternatives(p, fr)
	default:
		src := fr.slice(p)
		return []word{{text: src, globAt: -1}}
	}
}

// unquotedLit processes an unquoted literal: backslash escapes, a leading
// tilde, and glob metacharacters.
func (a *analyzer) unquotedLit(raw string, first bool) word {
	var b strings.Builder
	w := word{pathOK: true, globAt: -1, literal: true}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' {
			if i+1 < len(raw) {
				i++
				if raw[i] != '\n' {
					b.WriteByte(raw[i])
				}
			}
			continue
		}
		if (c == '*' || c == '?' || c == '[') && !w.glob {
			w.glob = true
			w.globAt = b.Len()
		}
		b.WriteByte(c)
	}
	w.text = b.String()
	w.alt, w.path = w.text, w.text
	if first && strings.HasPrefix(raw, "~") {
		prefix, rest, _ := strings.Cut(w.text, "/")
		if rest != "" || strings.Contains(w.text, "/") {
			rest = "/" + rest
		}
		switch prefix {
		case "~":
			w.path = a.home + rest
		default: // ~user, ~+ ($PWD), ~- ($OLDPWD): known only at run time
			w.pathOK = false
			a.dynamic(wspath.Quote(prefix) + " expands to a directory only known at run time; write the path out")
		}
		if w.globAt >= 0 {
			w.globAt += len(w.path) - len(w.text)
		}
	}
	return w
}

func (a *analyzer) paramWord(p *syntax.ParamExp, fr frame) word {
	dl := a.scanNested(p, fr)
	w := word{text: fr.slice(p), globAt: -1, download: dl}
	if p.Param == nil {
		return w
	}
	name := p.Param.Value
	if a.dlVars[name] {
		w.download = true
	}
	if !simpleParam(p) {
		// ${X:-sh}, ${X-sh}, ${X:=sh}, ${X:+sh}: the word is one value
		// the expansion may take, the one to check for hard denials.
		if p.Exp != nil && p.Exp.Op != syntax.ErrorUnset && p.Exp.Op != syntax.ErrorUnsetOrNull {
			if v, ok := a.vars[name]; ok && v != "" && p.Exp.Op != syntax.AlternateUnset && p.Exp.Op != syntax.AlternateUnsetOrNull {
				w.alt = v
			} else if p.Exp.Word != nil {
				if lit, ok := literalText(p.Exp.Word); ok {
					w.alt = lit
				}
			}
		}
		return w
	}
	if name == "HOME" {
		w.path, w.pathOK, w.alt = a.home, true, a.home
		return w
	}
	if name == "PWD" && len(a.cwds) == 1 && !a.cwdUnknown {
		w.path, w.pathOK, w.alt = a.cwds[0], true, a.cwds[0]
		return w
	}
	if v, ok := a.vars[name]; ok {
		w.alt = v
	}
	return w
}

// simpleParam reports whether a parameter expansion is a plain $name or
// ${name} with no operator.
func simpleParam(p *syntax.ParamExp) bool {
	return !p.Excl && !p.Length && !p.Width && !p.IsSet && p.Index == nil &&
		p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0 &&
		p.NestedParam == nil && p.Flags == nil && len(p.Modifiers) == 0
}

// braceAlternatives expands one brace expression, {a,b} or {x..y[..n]}.
func (a *analyzer) braceAlternatives(b *syntax.BraceExp, fr frame) []word {
	if b.Sequence {
		return a.braceSequence(b)
	}
	var out []word
	for _, el := range b.Elems {
		for _, x := range a.expandParts(el.Parts, fr, false) {
			if len(out) == maxWordAlternatives {
				a.concern("too-complex", "a brace expansion produces more words than rein analyzes")
				return out
			}
			out = append(out, x)
		}
	}
	return out
}

func (a *analyzer) braceSequence(b *syntax.BraceExp) []word {
	lits := make([]string, len(b.Elems))
	for i, el := range b.Elems {
		lits[i] = el.Lit()
	}
	if len(lits) < 2 {
		return []word{litWord("{" + strings.Join(lits, "..") + "}")}
	}
	step := 1
	if len(lits) == 3 {
		if n, err := strconv.Atoi(lits[2]); err == nil && n != 0 {
			step = max(n, -n)
		}
	}
	var vals []string
	from, err1 := strconv.Atoi(lits[0])
	to, err2 := strconv.Atoi(lits[1])
	switch {
	case err1 == nil && err2 == nil:
		for i, n := 0, from; i < maxWordAlternatives; i, n = i+1, n+sign(to-from)*step {
			vals = append(vals, strconv.Itoa(n))
			if (to >= from && n+step > to) || (to < from && n-step < to) {
				break
			}
		}
	case len(lits[0]) == 1 && len(lits[1]) == 1:
		from, to := int(lits[0][0]), int(lits[1][0])
		for i, n := 0, from; i < maxWordAlternatives; i, n = i+1, n+sign(to-from)*step {
			vals = append(vals, string(rune(n)))
			if (to >= from && n+step > to) || (to < from && n-step < to) {
				break
			}
		}
	default:
		return []word{litWord("{" + strings.Join(lits, "..") + "}")}
	}
	if len(vals) == maxWordAlternatives {
		a.concern("too-complex", "a brace expansion produces more words than rein analyzes")
	}
	out := make([]word, len(vals))
	for i, v := range vals {
		out[i] = litWord(v)
	}
	return out
}

func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}

// staticOutput returns the output of a command substitution whose value is
// known statically: $(echo lit…) and $(printf lit).
func staticOutput(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 {
		return "", false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return "", false
	}
	args := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, ok := literalText(w)
		if !ok {
			return "", false
		}
		args = append(args, s)
	}
	switch args[0] {
	case "echo":
		rest := args[1:]
		if len(rest) > 0 && rest[0] == "-n" {
			rest = rest[1:]
		}
		return strings.Join(rest, " "), true
	case "printf":
		if len(args) == 2 && !strings.ContainsAny(args[1], `%\`) {
			return strings.TrimRight(args[1], "\n"), true
		}
	case "which", "command", "type", "whence":
		// $(which sh), $(command -v sudo): the program's path, whose
		// base name is what runs.
		if len(args) >= 2 && !strings.HasPrefix(args[len(args)-1], "-") {
			return args[len(args)-1], true
		}
	}
	return "", false
}

// literalText returns the value of a word made only of literal and quoted
// parts.
func literalText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[{~") {
				return "", false
			}
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(decodeANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble processes backslashes inside double quotes, where only
// $ ` " \ and newline are special.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiCEscapes are the escapes of $'…' that stand for one byte.
var ansiCEscapes = map[byte]byte{
	'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
	'\\': '\\', '\'': '\'', '"': '"', '?': '?',
}

// ansiCHexWidth is how many hex digits \x, \u and \U take at most.
var ansiCHexWidth = map[byte]int{'x': 2, 'u': 4, 'U': 8}

// decodeANSIC decodes the body of a $'…' string as bash does.
func decodeANSIC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i = ansiCEscape(&b, s, i+1)
	}
	return b.String()
}

// ansiCEscape decodes the escape whose letter is s[i] into b and returns
// the index of its last byte.
func ansiCEscape(b *strings.Builder, s string, i int) int {
	e := s[i]
	if out, ok := ansiCEscapes[e]; ok {
		b.WriteByte(out)
		return i
	}
	switch {
	case e == 'c':
		if i+1 < len(s) {
			i++
			b.WriteByte(s[i] & 0x1f)
		}
		return i
	case ansiCHexWidth[e] > 0:
		n, used := hexPrefix(s[i+1:], ansiCHexWidth[e])
		if used == 0 {
			b.WriteByte('\\')
			b.WriteByte(e)
			return i
		}
		if e == 'x' {
			b.WriteByte(byte(n))
		} else if utf8.ValidRune(rune(n)) {
			b.WriteRune(rune(n))
		}
		return i + used
	case e >= '0' && e <= '7':
		n, used := 0, 0
		for used < 3 && i+used < len(s) && s[i+used] >= '0' && s[i+used] <= '7' {
			n = n*8 + int(s[i+used]-'0')
			used++
		}
		b.WriteByte(byte(n))
		return i + used - 1
	}
	b.WriteByte('\\')
	b.WriteByte(e)
	return i
}

func hexPrefix(s string, width int) (n, used int) {
	for used < width && used < len(s) {
		d := s[used]
		var v int
		switch {
		case d >= '0' && d <= '9':
			v = int(d - '0')
		case d >= 'a' && d <= 'f':
			v = int(d-'a') + 10
		case d >= 'A' && d <= 'F':
			v = int(d-'A') + 10
		default:
			return n, used
		}
		n = n*16 + v
		used++
	}
	return n, used
}
