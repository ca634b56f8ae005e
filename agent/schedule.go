package agent

// Effect-aware scheduling of one turn's tool calls.
//
// The model asks for several calls at once and means them in order: a
// write_file followed by a read_file of the same file expects to read what
// it wrote. Running every call concurrently would let the read see the old
// content, so the calls are ordered where their declared effects
// (tool.Spec.Effects, and the arguments they apply to) conflict, and run
// concurrently everywhere else. The rules:
//
//   - A call's paths are the string values of its PathArgs fields and what
//     Effects.Paths returns for its arguments, cleaned, with backslashes as
//     slashes. An empty or missing path field, "." and anything outside
//     the workspace ("..", a field that is not a string) mean the whole
//     workspace, as does a file tool that declares no way to know its
//     paths or whose Paths fails. Two paths overlap when they are equal or
//     one is an ancestor of the other, compared case-insensitively (some
//     file systems are); an absolute and a relative path always overlap,
//     because the agent does not know the workspace root. Symbolic links
//     are not followed (the agent does no I/O to schedule).
//   - A write (WritesFiles) conflicts with any other call that reads or
//     writes an overlapping path. Two reads never conflict.
//   - Exclusive calls — tools that execute processes (Exec, run_command),
//     external tools (MCP) without a readOnly hint, and tools whose spec
//     cannot be read — conflict with every other call except pure ones. A
//     readOnly-hinted external tool counts as a read of every path.
//   - Pure calls (no file, exec, network or external effect: a
//     calculator) conflict with nothing. A network-only tool touches no
//     file, so it conflicts only with exclusive calls.
//
// Calls are grouped into levels: level(i) = 1 + the highest level of an
// earlier call that i conflicts with (0 when none). Each level runs through
// the FanOut seam, at most MaxParallel at once, and the levels run in
// order, so a durable engine that replaces FanOut keeps the ordering. Once
// the run's context is done no later level starts; its calls get the usual
// interrupted result. Results keep call order whatever the levels.

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/reinharness/rein/tool"
)

// accessKind classifies a call for the scheduler, from the least to the
// most constraining.
type accessKind uint8

const (
	accessPure      accessKind = iota // touches nothing outside the call
	accessFiles                       // reads or writes the paths listed
	accessExclusive                   // may do anything: runs alone
)

// wholeWorkspace is the normalised path that overlaps every other.
const wholeWorkspace = "."

// access is what one call may touch.
type access struct {
	kind   accessKind
	writes bool     // accessFiles: the call writes its paths
	paths  []string // accessFiles: normalised, lower-cased
}

// callAccess derives a call's access from its tool's declared effects and
// its arguments. ok is false when the spec could not be read.
func callAccess(spec tool.Spec, ok bool, args json.RawMessage) access {
	e := spec.Effects
	switch {
	case !ok || e.Exec:
		return access{kind: accessExclusive}
	case e.External:
		if h := spec.Annotations.ReadOnlyHint; h != nil && *h {
			return access{kind: accessFiles, paths: []string{wholeWorkspace}}
		}
		return access{kind: accessExclusive}
	case !e.ReadsFiles && !e.WritesFiles && !e.Network:
		return access{kind: accessPure}
	case !e.ReadsFiles && !e.WritesFiles:
		// A network-only tool touches no path, so it conflicts only with
		// exclusive calls.
		return access{kind: accessFiles}
	}
	return access{kind: accessFiles, writes: e.WritesFiles, paths: callPaths(e, args)}
}

// callPaths lists the normalised paths a file tool's call touches, or the
// whole workspace when they cannot be known.
func callPaths(e tool.Effects, args json.RawMessage) []string {
	all := []string{wholeWorkspace}
	if len(e.PathArgs) == 0 && e.Paths == nil {
		return all
	}
	var out []string
	if len(e.PathArgs) > 0 {
		var fields map[string]json.RawMessage
		if json.Unmarshal(args, &fields) != nil {
			return all
		}
		for _, name := range e.PathArgs {
			raw, found := fields[name]
			var s string
			if !found || json.Unmarshal(raw, &s) != nil {
				// Missing means the tool's default, which for rein's
				// tools is the workspace root; a non-string value is
				// refused by validation, but the schedule must not bet
				// on that.
				return all
			}
			out = append(out, normalisePath(s))
		}
	}
	if e.Paths != nil {
		ps, err := safePaths(e.Paths, args)
		if err != nil {
			return all
		}
		for _, p := range ps {
			out = append(out, normalisePath(p))
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// errPathsPanicked stands for a Paths function that panicked.
type errPathsPanicked struct{}

func (errPathsPanicked) Error() string { return "the Paths function panicked" }

// safePaths calls an Effects.Paths function, turning a panic into an error
// (and so into "every path"): a broken declaration must make the schedule
// more careful, never crash the run.
func safePaths(f func(json.RawMessage) ([]string, error), args json.RawMessage) (ps []string, err error) {
	defer func() {
		if recover() != nil {
			ps, err = nil, errPathsPanicked{}
		}
	}()
	return f(args)
}

// normalisePath cleans a path as a model wrote it into the form overlap
// compares: slashes, no "." or ".." elements, lower case. A path that
// leaves the workspace is the whole workspace: it may be reached back
// through.
func normalisePath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return wholeWorkspace
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if p == ".." || strings.HasPrefix(p, "../") {
		return wholeWorkspace
	}
	return strings.ToLower(p)
}

// overlap reports whether two normalised paths may name the same file or
// one may contain the other.
func overlap(p, q string) bool {
	if p == wholeWorkspace || q == wholeWorkspace || p == q {
		return true
	}
	if path.IsAbs(p) != path.IsAbs(q) {
		return true
	}
	if len(p) > len(q) {
		p, q = q, p
	}
	return strings.HasPrefix(q, p) && (q[len(p)] == '/' || p == "/")
}

// conflict reports whether two calls must not run at the same time.
func conflict(a, b *access) bool {
	switch {
	case a.kind == accessPure || b.kind == accessPure:
		return false
	case a.kind == accessExclusive || b.kind == accessExclusive:
		return true
	case !a.writes && !b.writes:
		return false
	}
	for _, p := range a.paths {
		for _, q := range b.paths {
			if overlap(p, q) {
				return true
			}
		}
	}
	return false
}

// scheduleLevels assigns each call its level and returns the calls grouped
// by level, in call order within a level. A batch without conflicts is one
// level: the common case costs one pass.
func scheduleLevels(acc []access) [][]int {
	level := make([]int, len(acc))
	top := 0
	for i := range acc {
		for j := range i {
			if level[j]+1 > level[i] && conflict(&acc[i], &acc[j]) {
				level[i] = level[j] + 1
			}
		}
		top = max(top, level[i])
	}
	groups := make([][]int, top+1)
	if top == 0 {
		groups[0] = make([]int, len(acc))
		for i := range acc {
			groups[0][i] = i
		}
		return groups
	}
	for i, l := range level {
		groups[l] = append(groups[l], i)
	}
	return groups
}
