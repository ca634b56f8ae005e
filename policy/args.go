package policy

import (
	"encoding/json"
	"errors"
	"path"
	"strings"

	"github.com/reinharness/rein/policy/internal/wspath"
)

// callArgs are the top-level fields of a call's JSON arguments.
type callArgs map[string]json.RawMessage

var errArgsNotObject = errors.New("the arguments are not a JSON object")

func parseArgs(raw json.RawMessage) (callArgs, error) {
	if len(raw) == 0 {
		return callArgs{}, nil
	}
	var m callArgs
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errArgsNotObject
	}
	return m, nil
}

// strings returns every string value of a field: a string, or the
// strings of an array. Keys are matched without regard to case, as
// encoding/json does when a tool decodes them into a struct, so "PATH"
// cannot slip a path past a rule on "path". bad says a value of the field
// is neither.
func (a callArgs) strings(field string) (vals []string, bad bool) {
	for k, raw := range a {
		if !strings.EqualFold(k, field) {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			vals = append(vals, s)
			continue
		}
		var list []string
		if json.Unmarshal(raw, &list) == nil {
			vals = append(vals, list...)
			continue
		}
		if string(raw) != "null" {
			bad = true
		}
	}
	return vals, bad
}

// CommandLines returns the command lines of a call to an exec tool: the
// values of its spec's Effects.CommandArg. bad says the arguments are not
// a JSON object or a value is not a string. A call to a tool that is not
// an exec tool with a command argument has none.
func CommandLines(c Call) (cmds []string, bad bool) {
	eff := c.Spec.Effects
	if !eff.Exec || eff.CommandArg == "" {
		return nil, false
	}
	args, err := parseArgs(c.Args)
	if err != nil {
		return nil, true
	}
	return args.strings(eff.CommandArg)
}

// relPath turns a path argument into the form path rules match: relative
// to the workspace when inside it, absolute otherwise.
func (e *Engine) relPath(p string) string {
	if p == "" {
		return "."
	}
	if !path.IsAbs(p) {
		return path.Clean(p)
	}
	p = path.Clean(p)
	switch {
	case p == e.opts.Workspace:
		return "."
	case strings.HasPrefix(p, e.opts.Workspace+"/"):
		return p[len(e.opts.Workspace)+1:]
	}
	return p
}

// pathForms returns the forms of an absolute path that rules are matched
// on: the path as written (cleaned) and the path it resolves to, each
// relative to the workspace when inside it, with /proc/self/root/… read as
// the path it aliases.
func (e *Engine) pathForms(abs string) []string {
	written := e.relPath(wspath.ProcAlias(path.Clean(abs)))
	resolved := e.relPath(wspath.ProcAlias(wspath.Resolve(e.opts.Workspace, abs)))
	if resolved == written {
		return []string{written}
	}
	return []string{written, resolved}
}
