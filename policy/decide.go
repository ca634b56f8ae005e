package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
	"github.com/reinharness/rein/policy/shell"
	"github.com/reinharness/rein/tool"
)

// decide is Decide with an optional trace of the steps taken.
func (e *Engine) decide(c Call, steps *[]Step) Decision {
	tr := tracer{steps: steps}
	spec := c.Spec
	eff := spec.Effects
	args, argsErr := parseArgs(c.Args)
	execCmd := eff.Exec && eff.CommandArg != ""

	var commands []string
	var analyses []*shell.Analysis
	if execCmd {
		var bad bool
		commands, bad = args.strings(eff.CommandArg)
		if bad {
			argsErr = fmt.Errorf("argument %q is not a string", eff.CommandArg)
		}
		analyses = e.analyze(commands, e.analyzeOptions(args, eff), &tr)
		if d, ok := e.hardDecision(spec.Name, analyses); ok {
			tr.add("hard-deny", d.Reason, Deny, d.Rule)
			return d
		}
	}

	base, project := e.toolVerdicts(spec, &tr)
	if base.explicit && base.action == Deny {
		return decision(spec.Name, base)
	}
	paths := pathArgs(spec, args)
	declared, pathsErr := declaredPaths(spec, c.Args)
	paths = append(paths, declared...)
	var v verdict
	if execCmd {
		v = e.commandsVerdict(spec, commands, analyses, base, &tr)
		for _, p := range paths {
			v = stricter(v, e.tightenPath(p, eff.ReadsFiles || !eff.WritesFiles, eff.WritesFiles, "argument "+wspath.Quote(p), &tr))
		}
	} else {
		v = e.pathsVerdict(spec, paths, base, &tr)
	}
	if argsErr != nil && (execCmd || len(eff.PathArgs) > 0) {
		v = stricter(v, tr.add("arguments", argsErr.Error(), Ask, "analysis:arguments").verdict("rein cannot check the arguments: "+argsErr.Error()))
	}
	if pathsErr != nil {
		v = stricter(v, tr.add("paths", pathsErr.Error(), Ask, "analysis:paths").verdict("rein cannot tell which files the call touches: "+pathsErr.Error()))
	}
	if eff.Network && eff.URLArg != "" {
		v = e.networkVerdict(spec, args, base, v, &tr)
	}
	// A destructive hint is an outside server's claim about its own tool,
	// so it only ever tightens an external tool. rein's own tools are
	// decided by the Effects they declare (their annotations describe
	// them to MCP clients when rein serves them).
	if h := spec.Annotations.DestructiveHint; h != nil && *h && eff.External {
		if r := bestTool(e.pool, spec.Name); r == nil || r.action != Allow || hasGlob(r.name) {
			v = stricter(v, tr.add("destructive", "the tool declares itself destructive", Ask, "annotation:destructive").
				verdict("the tool declares itself destructive; only a rule naming it exactly allows it without asking"))
		}
	}
	return decision(spec.Name, stricter(v, project))
}

// analyzeOptions are the engine's analysis options for a call: the
// command starts in the call's directory argument, if it has one.
func (e *Engine) analyzeOptions(args callArgs, eff tool.Effects) shell.Options {
	opts := e.opts
	if eff.DirArg != "" {
		if dirs, _ := args.strings(eff.DirArg); len(dirs) == 1 && dirs[0] != "" {
			opts.Dir = path.Clean(wspath.AbsUnder(e.opts.Workspace, dirs[0]))
		}
	}
	return opts
}

// analyze analyzes each command line of a call, tracing what it found.
func (e *Engine) analyze(commands []string, opts shell.Options, tr *tracer) []*shell.Analysis {
	var analyses []*shell.Analysis
	for _, cmd := range commands {
		an := shell.Analyze(cmd, opts)
		analyses = append(analyses, an)
		if tr.on() {
			tr.add("analysis", fmt.Sprintf("%d commands, %d findings in %s", len(an.Commands), len(an.Findings), wspath.Quote(cmd)), Allow, "")
		}
	}
	return analyses
}

// tracer records steps when Explain asked for them.
type tracer struct{ steps *[]Step }

// on reports whether steps are recorded, so costly details are only
// formatted for Explain.
func (t *tracer) on() bool { return t.steps != nil }

func (t *tracer) add(stage, detail string, a Action, rule string) step {
	if t.steps != nil {
		*t.steps = append(*t.steps, Step{Stage: stage, Detail: detail, Action: a, Rule: rule})
	}
	return step{action: a, rule: rule}
}

type step struct {
	action Action
	rule   string
}

func (s step) verdict(reason string) verdict {
	return verdict{action: s.action, rule: s.rule, reason: reason}
}

// decision turns a verdict into the Decision the model and user see.
func decision(name string, v verdict) Decision {
	var reason string
	switch v.action {
	case Allow:
		reason = name + " is allowed: " + v.reason
	case Ask:
		reason = name + " needs approval: " + v.reason
	default:
		reason = name + " is denied: " + v.reason
	}
	return Decision{Action: v.action, Reason: reason, Rule: v.rule}
}

// hardDecision returns the hard denial of the analysed commands, if any.
func (e *Engine) hardDecision(name string, analyses []*shell.Analysis) (Decision, bool) {
	for _, an := range analyses {
		for _, f := range an.Hard() {
			return Decision{
				Action: Deny, Hard: true, Rule: "hard-deny:" + f.ID,
				Reason: name + " is denied: " + f.Reason + " (a hard denial: no rule or approval lifts it)",
			}, true
		}
	}
	if len(e.hard) == 0 {
		return Decision{}, false
	}
	for _, an := range analyses {
		for _, inv := range an.Invocations {
			argv := shell.Normalize(inv)
			for _, h := range e.hard {
				if prefixMatches(h.prefix, false, argv) {
					return Decision{
						Action: Deny, Hard: true, Rule: "hard-deny:config " + strings.Join(h.prefix, " "),
						Reason: name + " is denied: " + h.reason + " (a hard denial: no rule or approval lifts it)",
					}, true
				}
			}
		}
	}
	return Decision{}, false
}

// toolVerdicts returns the verdict for the tool as a whole (the most
// specific built-in/user rule, else the preset) and the project's
// tightening (Allow when the project has no rule for it).
func (e *Engine) toolVerdicts(spec tool.Spec, tr *tracer) (base, project verdict) {
	if r := bestTool(e.pool, spec.Name); r != nil {
		base = r.verdict(fmt.Sprintf("%s rule for %s", r.layer, spec.Name))
	} else {
		base = e.preset.verdictFor(spec)
	}
	tr.add("tool", base.reason, base.action, base.rule)
	project = verdict{action: Allow}
	if r := strictest(e.tighten, toolRule, func(r *rule) bool { return r.matchesTool(spec.Name) }); r != nil {
		project = r.verdict(fmt.Sprintf("the project's rule for %s", spec.Name))
		tr.add("project", project.reason, project.action, project.rule)
	}
	return base, project
}

// commandsVerdict decides the commands of an exec tool: the strictest
// over every simple command, each decided by its most specific rule or
// else the tool's verdict, then concerns, redirects and path rules.
func (e *Engine) commandsVerdict(spec tool.Spec, commands []string, analyses []*shell.Analysis, base verdict, tr *tracer) verdict {
	if len(commands) == 0 {
		return stricter(base, tr.add("command", "no command given", Ask, "analysis:arguments").
			verdict(fmt.Sprintf("rein finds no command in argument %q", spec.Effects.CommandArg)))
	}
	if ro, ok := e.readOnlyBase(commands, analyses, base, tr); ok {
		base = ro
	}
	v := verdict{action: Allow}
	ran := false
	for _, an := range analyses {
		for _, f := range an.Concerns() {
			v = stricter(v, tr.add("concern", f.Reason, Ask, "analysis:"+f.ID).verdict(f.Reason))
			if f.ID == "unparsable" || f.ID == "too-complex" {
				// What rein could not see is decided like a command no
				// rule matches.
				ran = true
				v = stricter(v, base)
			}
		}
		for _, cmd := range an.Commands {
			ran = true
			v = stricter(v, e.commandVerdict(cmd, base, tr))
			v = stricter(v, e.wordPathsVerdict(cmd, tr))
		}
		for _, rd := range an.Redirects {
			v = stricter(v, e.redirectVerdict(rd, tr))
		}
	}
	if !ran && v.action == Allow {
		return base // nothing runs: the tool's own verdict
	}
	return v
}

// commandVerdict decides one simple command.
func (e *Engine) commandVerdict(cmd shell.Command, base verdict, tr *tracer) verdict {
	shown := wspath.Quote(strings.Join(cmd.Args, " "))
	var v verdict
	if r := bestCommand(e.pool, cmd.Norm); r != nil {
		v = r.verdict(fmt.Sprintf("%s rule %s %s", r.layer, r.action, r.target()))
	} else {
		v = base
		if base.action != Allow {
			v.reason = fmt.Sprintf("%s: %s", shown, base.reason)
		}
	}
	if r := strictest(e.tighten, commandRule, func(r *rule) bool { return prefixMatches(r.prefix, r.exact, cmd.Norm) }); r != nil {
		v = stricter(v, r.verdict(fmt.Sprintf("the project's rule %s %s", r.action, r.target())))
	}
	if cmd.RunsCode != "" && v.action == Allow {
		if r := bestCommand(e.pool, cmd.Norm); r == nil || r.layer == LayerBuiltin {
			v = stricter(v, verdict{action: Ask, rule: "analysis:runs-code", reason: cmd.RunsCode})
		}
	}
	tr.add("command", shown+": "+v.reason, v.action, v.rule)
	return v
}

// wordPathsVerdict applies the ask and deny path rules to the arguments
// of a command that look like paths, wherever the command runs and
// wherever symlinks lead: `cat .env` is reading .env whatever tool does
// it. The access of a command's argument is not known, so rules of every
// access apply.
func (e *Engine) wordPathsVerdict(cmd shell.Command, tr *tracer) verdict {
	v := verdict{action: Allow}
	linking := cmd.LinkKind()
	for i, w := range cmd.Words {
		if i == 0 || !w.PathOK || w.Text == "" {
			continue
		}
		what := "argument " + wspath.Quote(w.Text)
		for _, p := range wspath.Candidates(w.Path) {
			if cmd.AfterLink != "" && (!path.IsAbs(p) || wspath.Within(path.Clean(p), e.opts.Workspace)) {
				v = stricter(v, tr.add("path", what+" after "+cmd.AfterLink, Ask, "analysis:path").
					verdict(what+" comes after "+wspath.Quote(cmd.AfterLink)+", which may create links or files rein cannot see yet; run it as a command of its own"))
				continue
			}
			v = stricter(v, e.tightenWhere(p, w.Glob, cmd.Cwds, cmd.CwdUnknown, true, true, what, tr))
			if linking != "" {
				v = stricter(v, e.linkTarget(p, linking == "link", cmd.Cwds, what, tr))
			}
		}
	}
	return v
}

// linkTarget asks when an argument of a linking command is the workspace
// or an ancestor of it (a link to it is a second name for every path, which
// no rule sees), or a .git directory, linked or moved (its config and hooks
// would lose their protection).
func (e *Engine) linkTarget(p string, link bool, cwds []string, what string, tr *tracer) verdict {
	if len(cwds) == 0 {
		cwds = []string{e.opts.Workspace}
	}
	for _, dir := range cwds {
		abs := wspath.AbsUnder(dir, p)
		for _, form := range []string{path.Clean(abs), wspath.Resolve(e.opts.Workspace, abs)} {
			form = wspath.ProcAlias(form)
			rel := e.relPath(form)
			if link && wspath.Within(e.opts.Workspace, form) || rel == ".git" || strings.HasSuffix(rel, "/.git") {
				return tr.add("path", what+" links or moves "+wspath.Quote(rel), Ask, "analysis:link").
					verdict(what + " links or moves " + wspath.Quote(rel) + ", which holds the workspace or protected files; paths through such a link would escape the rules")
			}
		}
	}
	return verdict{action: Allow}
}

func (e *Engine) redirectVerdict(rd shell.Redirect, tr *tracer) verdict {
	if rd.Op == "<<" || rd.Op == "<<-" || !rd.PathOK {
		return verdict{action: Allow}
	}
	what := "redirect " + rd.Op + " " + wspath.Quote(rd.Target)
	if rd.AfterLink != "" && (!path.IsAbs(rd.Path) || wspath.Within(path.Clean(rd.Path), e.opts.Workspace)) {
		return tr.add("path", what+" after "+rd.AfterLink, Ask, "analysis:path").
			verdict(what + " comes after " + wspath.Quote(rd.AfterLink) + ", which may create links or files rein cannot see yet; run it as a command of its own")
	}
	v := e.tightenWhere(rd.Path, rd.Glob, rd.Cwds, rd.CwdUnknown, !rd.Write, rd.Write, what, tr)
	if !rd.Write || isDevNull(rd.Path) {
		return v
	}
	w := e.preset.writeVerdict()
	if w.action != Allow {
		w.reason = fmt.Sprintf("the command writes to %s: %s", wspath.Quote(rd.Target), w.reason)
		tr.add("redirect", w.reason, w.action, w.rule)
	}
	return stricter(v, w)
}

func isDevNull(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// tightenWhere applies the ask and deny path rules to a path of a
// command: resolved against every directory the command may run in, and,
// for a glob, against what it matches on disk. A relative path after a cd
// rein cannot follow asks.
func (e *Engine) tightenWhere(p string, glob bool, cwds []string, cwdUnknown, read, write bool, what string, tr *tracer) verdict {
	if !path.IsAbs(p) && cwdUnknown {
		return tr.add("path", what+" after a cd rein cannot follow", Ask, "analysis:path").
			verdict(what + " is relative to a directory rein cannot tell (a cd to a value only known at run time); use a path from the workspace root")
	}
	if len(cwds) == 0 {
		cwds = []string{e.opts.Workspace}
	}
	v := verdict{action: Allow}
	for _, dir := range cwds {
		abs := wspath.AbsUnder(dir, p)
		if wspath.ProcCwd(abs) {
			return tr.add("path", what+" through /proc", Ask, "analysis:path").
				verdict(what + " reaches a working directory through /proc, which rein cannot tell; use a path from the workspace root")
		}
		v = stricter(v, e.tightenAbs(abs, read, write, what, tr))
		if !glob {
			continue
		}
		matches, complete := wspath.ExpandGlob(e.opts.Workspace, abs)
		for _, m := range matches {
			v = stricter(v, e.tightenAbs(m, read, write, what+" (matching "+wspath.Quote(e.relPath(m))+")", tr))
		}
		if !complete && wspath.Within(path.Clean(abs), e.opts.Workspace) {
			v = stricter(v, tr.add("path", what+": too many matches to check", Ask, "analysis:path").
				verdict(what+" matches more files than rein checks against the path rules; name the files"))
		}
	}
	return v
}

// tightenPath applies the ask and deny path rules of every layer to one
// path (relative to the workspace, or absolute): commands may only be
// restricted by path rules, never allowed.
func (e *Engine) tightenPath(p string, read, write bool, what string, tr *tracer) verdict {
	return e.tightenAbs(wspath.AbsUnder(e.opts.Workspace, p), read, write, what, tr)
}

// tightenAbs is tightenPath for an absolute path, matched in every form
// it takes (as written, and resolved through symlinks).
func (e *Engine) tightenAbs(abs string, read, write bool, what string, tr *tracer) verdict {
	v := verdict{action: Allow}
	for _, rel := range e.pathForms(abs) {
		match := func(r *rule) bool { return r.action != Allow && r.matchesPath(rel, read, write) }
		for _, rules := range [][]*rule{e.pool, e.tighten} {
			if r := strictest(rules, pathRule, match); r != nil {
				v = stricter(v, r.verdict(fmt.Sprintf("%s matches path rule %s", what, r.target())))
			}
		}
	}
	if v.action != Allow {
		tr.add("path", v.reason, v.action, v.rule)
	}
	return v
}

// pathsVerdict decides a tool that is not a command runner: each path it
// touches (path arguments and tool.Effects.Paths) is decided by the
// strictest matching path rule, or else the tool's verdict. Path allow rules lift only the preset's default of a
// plain file tool, never an explicit tool rule or a network, exec or
// external tool.
func (e *Engine) pathsVerdict(spec tool.Spec, paths []string, base verdict, tr *tracer) verdict {
	eff := spec.Effects
	read, write := eff.ReadsFiles || !eff.WritesFiles, eff.WritesFiles
	liftable := !base.explicit && !eff.Exec && !eff.Network && !eff.External
	if len(paths) == 0 {
		return base
	}
	v := verdict{action: Allow}
	for _, p := range paths {
		forms := e.pathForms(wspath.AbsUnder(e.opts.Workspace, p))
		pv := base
		// An allow rule lifts the preset only when it matches every form
		// of the path: `ok/x` must not reach, through a symlink, a file
		// the rule does not name.
		var lift *rule
		liftAll := true
		for _, rel := range forms {
			r := strictest(e.pool, pathRule, func(r *rule) bool { return r.matchesPath(rel, read, write) })
			switch {
			case r == nil:
				liftAll = false
			case r.action != Allow:
				liftAll = false
				pv = stricter(pv, r.verdict(fmt.Sprintf("%s matches %s path rule %s", wspath.Quote(p), r.layer, r.target())))
			case lift == nil:
				lift = r
			}
		}
		if lift != nil && liftAll && liftable {
			pv = lift.verdict(fmt.Sprintf("%s matches %s path rule %s", wspath.Quote(p), lift.layer, lift.target()))
		}
		for _, rel := range forms {
			pv = stricter(pv, e.projectPath(rel, read, write, p))
		}
		tr.add("path", wspath.Quote(p)+": "+pv.reason, pv.action, pv.rule)
		v = stricter(v, pv)
	}
	return v
}

// pathArgs returns the values of a tool's path arguments.
func pathArgs(spec tool.Spec, args callArgs) []string {
	var paths []string
	for _, field := range spec.Effects.PathArgs {
		vals, _ := args.strings(field)
		paths = append(paths, vals...)
	}
	return paths
}

func (e *Engine) projectPath(rel string, read, write bool, shown string) verdict {
	r := strictest(e.tighten, pathRule, func(r *rule) bool { return r.matchesPath(rel, read, write) })
	if r == nil {
		return verdict{action: Allow}
	}
	return r.verdict(fmt.Sprintf("%s matches the project's path rule %s", wspath.Quote(shown), r.target()))
}
