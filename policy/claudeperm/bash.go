package claudeperm

import (
	"regexp"
	"slices"
	"strings"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/shell"
)

// literalWord is a command word rein compares as written: no quoting,
// expansion, glob or shell operator, so the word the rule names is the
// word the shell passes.
var literalWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,^-]+$`)

// addBash translates a Bash(…) specifier into a command rule, decided by
// rein per simple command after parsing the shell: Bash(go test:*)
// allows `go test ./...` and never the `rm` of `go test; rm -rf /`,
// whose every command must be allowed on its own.
//
//	Bash(npm run build)   exactly that command
//	Bash(go test:*)       go test, with any arguments (Claude Code's old form)
//	Bash(go test *)       the same (a single trailing " *")
//
// Other wildcards (Bash(git * main), Bash(ls*)) and shell syntax inside a
// rule have no exact counterpart: a deny or ask rule then covers the
// command of its literal leading words (every Bash command when there are
// none), which is broader, and an allow rule is left out; both with a
// warning.
func (t *Translation) addBash(action, spec, reason string, warn func(string, ...any)) {
	words, exact, ok := bashPattern(spec)
	if ok {
		c := t.config(action)
		c.Commands = append(c.Commands, policy.CommandRule{Prefix: words, Exact: exact, Action: action, Reason: reason})
		if action == "deny" && !exact {
			t.hardDeny(words, reason)
		} else if wrapper(words) {
			warn("rein decides the command %s runs, not %s itself; the rule applies to nothing", words[0], words[0])
		}
		return
	}
	if action == "allow" {
		warn("rein reads Bash(command), Bash(prefix:*) and Bash(prefix *) of plain words; other wildcards or shell syntax are not allowed; ignored")
		return
	}
	lead := literalLead(spec)
	if len(lead) == 0 {
		warn("no exact counterpart in rein; applied to every Bash command")
		t.addTools(action, []string{"run_command"}, reason)
		return
	}
	warn("no exact counterpart in rein; applied to every command starting %q", strings.Join(lead, " "))
	c := t.config(action)
	c.Commands = append(c.Commands, policy.CommandRule{Prefix: lead, Action: action, Reason: reason})
	if action == "deny" {
		t.hardDeny(lead, reason)
	}
}

// hardDeny adds a prefix deny as a hard denial too. A command rule
// matches the command a wrapper runs (`timeout 5 rm x` is decided as
// `rm x`), so Bash(timeout:*) would never match; a hard denial matches
// every level, wrappers included, and every value a dynamic word could
// take. Claude Code's deny is never lifted by an allow or an answer
// either.
func (t *Translation) hardDeny(prefix []string, reason string) {
	t.Tighten.HardDeny = append(t.Tighten.HardDeny, policy.HardDenyRule{Prefix: prefix, Reason: reason})
}

// bashPattern reads the forms rein represents exactly: the words, and
// whether the command must be exactly them.
func bashPattern(spec string) (words []string, exact, ok bool) {
	body, exact := spec, true
	if b, cut := strings.CutSuffix(spec, ":*"); cut {
		body, exact = b, false
	} else if b, cut := strings.CutSuffix(spec, " *"); cut {
		body, exact = b, false
	}
	words = strings.Fields(body)
	if len(words) == 0 {
		return nil, false, false
	}
	for _, w := range words {
		if !literalWord.MatchString(w) {
			return nil, false, false
		}
	}
	return words, exact, true
}

// literalLead returns the leading words of spec that are literal; a word
// with a wildcard or shell syntax, and everything after it, is dropped
// (so `ls*` gives nothing: it names lsof as well as ls).
func literalLead(spec string) []string {
	spec = strings.TrimSuffix(spec, ":*")
	var lead []string
	for _, w := range strings.Fields(spec) {
		if !literalWord.MatchString(w) {
			break
		}
		lead = append(lead, w)
	}
	return lead
}

// dropCovered applies DropCovered within one file.
func (t *Translation) dropCovered() { t.Allow.Commands = DropCovered(t.Allow.Commands, t.Tighten) }

// DropCovered leaves out the allow command rules that an ask or deny rule
// of tighten covers (tighten of the same settings files). Claude Code
// decides deny, then ask, then allow, whatever the rules' lengths; rein's
// most specific rule would let `git push:*` allowed win over `git:*`
// denied in one layer, so the allow goes. An ask or deny of every Bash
// command leaves no command allowed.
func DropCovered(allow []policy.CommandRule, tighten policy.Config) []policy.CommandRule {
	for _, tr := range tighten.Tools {
		if tr.Name == "run_command" {
			return nil
		}
	}
	return slices.DeleteFunc(allow, func(a policy.CommandRule) bool {
		for _, d := range tighten.Commands {
			if covers(d, a) {
				return true
			}
		}
		return false
	})
}

// covers reports whether every command rule a matches, d matches too.
func covers(d, a policy.CommandRule) bool {
	if len(d.Prefix) > len(a.Prefix) || d.Exact && (!a.Exact || len(d.Prefix) != len(a.Prefix)) {
		return false
	}
	return slices.Equal(d.Prefix, a.Prefix[:len(d.Prefix)])
}

// wrapper reports whether rein unwraps the command the words start,
// deciding the command it runs instead (timeout, env, nice, bash -c…).
func wrapper(words []string) bool {
	// The arguments a wrapper may want before its command: a duration
	// (timeout), -c (shells), none (env, nice, nohup).
	for _, rest := range []string{" true", " 5 true", " -c true"} {
		an := shell.Analyze(strings.Join(words, " ")+rest, shell.Options{})
		if len(an.Commands) > 0 && len(an.Commands[0].Via) > 0 {
			return true
		}
	}
	return false
}
