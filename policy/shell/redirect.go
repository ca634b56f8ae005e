package shell

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// redirects records a statement's redirections and returns the frame its
// command runs in (stdin may now come from a file or a here-document).
func (a *analyzer) redirects(rs []*syntax.Redirect, fr frame) frame {
	for _, r := range rs {
		fr = a.redirect(r, fr)
	}
	return fr
}

// redirect records one redirection and returns the frame after it.
func (a *analyzer) redirect(r *syntax.Redirect, fr frame) frame {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		a.concern("dynamic-redirect", "the command redirects to a file descriptor chosen at run time")
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		body := a.heredoc(r, fr)
		fr.pipeIn, fr.taint, fr.stdinCode, fr.stdinFile = false, body.download, &body, false
		a.record(r, word{text: r.Word.Lit(), pathOK: false, globAt: -1, literal: true}, false)
		return fr
	case syntax.WordHdoc:
		w := a.singleWord(r.Word, fr)
		body := w.concat(litWord("\n"))
		fr.pipeIn, fr.taint, fr.stdinCode, fr.stdinFile = false, w.download, &body, false
		return fr
	}
	w := a.singleWord(r.Word, fr)
	if w.pathOK && devNet(w.path) {
		a.netFD = true // exec 3<>/dev/tcp/h/p
	}
	if r.Op == syntax.DplIn && (isFD(w.text) && w.text != "0" && a.netFD || !w.literal && a.downloads > 0) {
		fr.taint = true // sh <&3 after exec 3</dev/tcp/…
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
		if r.Op != syntax.DplIn || !isFD(w.text) {
			fr = a.inputFrom(w, fr)
		}
	}
	write := r.Op != syntax.RdrIn && r.Op != syntax.DplIn
	if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && isFD(w.text) {
		return fr // 2>&1, <&0, >&-: duplicates a descriptor, no file
	}
	a.record(r, w, write)
	return fr
}

// inputFrom is the frame of a command whose standard input is the file w.
func (a *analyzer) inputFrom(w word, fr frame) frame {
	net := w.pathOK && devNet(w.path)
	if net {
		a.downloads++ // bash reads the network: sh < /dev/tcp/h/p
		a.fetched++
		a.netFD = true
	}
	fr.pipeIn, fr.taint, fr.stdinCode, fr.stdinFile = false, w.download || net || a.downloadedFile(w) || !w.pathOK && (fr.taint || a.downloads > 0), nil, true
	return fr
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (a *analyzer) record(r *syntax.Redirect, w word, write bool) {
	if a.guessing > 0 {
		return
	}
	rd := Redirect{Op: r.Op.String(), Target: w.text, Write: write, Dynamic: w.dynamic(), Path: w.path, PathOK: w.pathOK, Glob: w.glob,
		Cwds: slices.Clone(a.cwds), CwdUnknown: a.cwdUnknown, AfterLink: a.linkedBy}
	a.res.Redirects = append(a.res.Redirects, rd)
	if !write {
		return
	}
	if dev := a.deviceTarget(w); dev != "" {
		a.hard("raw-device", "writing to the device "+wspath.Quote(dev)+" is never allowed")
		return
	}
	a.checkWriteTarget(w)
}

// heredoc resolves a here-document body: literal when the delimiter is
// quoted, otherwise with expansions like a double-quoted string.
func (a *analyzer) heredoc(r *syntax.Redirect, fr frame) word {
	if r.Hdoc == nil {
		return litWord("")
	}
	quoted := false
	for _, p := range r.Word.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			quoted = true
		} else if strings.Contains(p.(*syntax.Lit).Value, `\`) {
			quoted = true
		}
	}
	if quoted {
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if lit, ok := p.(*syntax.Lit); ok {
				b.WriteString(lit.Value)
			} else {
				b.WriteString(fr.slice(p))
			}
		}
		return litWord(b.String())
	}
	w := word{pathOK: true, globAt: -1, literal: true, quoted: true}
	for _, p := range r.Hdoc.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			w = w.concat(litWord(unescapeDouble(lit.Value)))
			continue
		}
		for _, x := range a.part(p, fr, false) {
			w = w.concat(x)
			break
		}
	}
	return w
}

// scanText looks for privilege escalation in text rein could not parse:
// bash would still run the statements before a syntax error, and a
// concern alone could be approved.
func (a *analyzer) scanText(src string) {
	clean := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(src)
	for _, tok := range strings.FieldsFunc(clean, func(r rune) bool {
		return strings.ContainsRune(" \t\r\n;&|()<>{}`$!", r)
	}) {
		base := strings.ToLower(filepath.Base(tok))
		if privilegeCommands[base] {
			a.hard("privilege", "privilege escalation ("+base+") is never allowed")
		}
		if isMkfs(base) {
			a.hard("mkfs", "creating a file system ("+base+") is never allowed")
		}
	}
}
