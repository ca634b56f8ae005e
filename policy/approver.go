package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy/shell"
)

// Auto returns an approver that turns every Ask into Allow (--approve
// auto). Hard denials never reach an approver, and a Deny given to it is
// returned unchanged.
func Auto() Approver { return autoApprover{} }

type autoApprover struct{}

// Approve implements Approver.
func (autoApprover) Approve(_ context.Context, c Call, d Decision) (Decision, error) {
	if d.Action != Ask {
		return d, nil
	}
	why := strings.TrimPrefix(d.Reason, c.Spec.Name+" needs approval: ")
	return Decision{
		Action: Allow,
		Reason: c.Spec.Name + " was approved automatically (--approve auto) although " + why,
		Rule:   "approver:auto",
	}, nil
}

// Never returns an approver that turns every Ask into Deny, with a reason
// that says how to allow the call (--approve never, and the default
// without a terminal).
func Never() Approver { return neverApprover{} }

type neverApprover struct{}

// Approve implements Approver.
func (neverApprover) Approve(_ context.Context, c Call, d Decision) (Decision, error) {
	if d.Action != Ask {
		return d, nil
	}
	why := strings.TrimPrefix(d.Reason, c.Spec.Name+" needs approval: ")
	table := "[[policy.tools]]"
	if c.Spec.Effects.Exec && c.Spec.Effects.CommandArg != "" {
		table = "[[policy.commands]]"
	}
	return Decision{
		Action: Deny,
		Reason: fmt.Sprintf("%s needs approval (%s); rein is running without a terminal — allow it with a %s rule or --approve auto",
			c.Spec.Name, why, table),
		Rule: "approver:never",
	}, nil
}

// ForTerminal picks the approver for --approve MODE: "ask" (or "")
// prompts on the terminal when there is one and otherwise behaves as
// "never"; "never" denies what needs approval; "auto" allows it.
func ForTerminal(isTTY bool, mode string, opts ConsoleOptions) (Approver, error) {
	switch mode {
	case "", "ask":
		if isTTY {
			return Console(os.Stdin, os.Stderr, opts), nil
		}
		return Never(), nil
	case "never":
		return Never(), nil
	case "auto":
		return Auto(), nil
	}
	return nil, fmt.Errorf("unknown --approve mode %q: use ask, never or auto", mode)
}

// sessionMemory remembers the call shapes approved "for this session": the
// exact argv of each simple command of an exec tool, or the exact
// arguments of any other tool.
type sessionMemory struct {
	mu       sync.Mutex
	commands map[string]bool
	calls    map[string]bool
}

func newSessionMemory() *sessionMemory {
	return &sessionMemory{commands: map[string]bool{}, calls: map[string]bool{}}
}

// shape is what the session remembers of a call.
type shape struct {
	// commands are tool+argv keys, one per simple command; set only
	// when the command analyses cleanly.
	commands []string
	// call is the tool name and canonical arguments.
	call string
	// argvs are the simple commands, for writing rules.
	argvs [][]string
}

func callShape(c Call, opts shell.Options) shape {
	s := shape{call: c.Spec.Name + "\x00" + canonicalJSON(c.Args)}
	eff := c.Spec.Effects
	if !eff.Exec || eff.CommandArg == "" {
		return s
	}
	args, err := parseArgs(c.Args)
	if err != nil {
		return s
	}
	cmds, bad := args.strings(eff.CommandArg)
	if bad || len(cmds) != 1 {
		return s
	}
	an := shell.Analyze(cmds[0], opts)
	if len(an.Concerns()) > 0 || len(an.Hard()) > 0 || len(an.Commands) == 0 {
		return s
	}
	for _, cmd := range an.Commands {
		s.commands = append(s.commands, c.Spec.Name+"\x00"+strings.Join(cmd.Norm, "\x00"))
		s.argvs = append(s.argvs, cmd.Norm)
	}
	return s
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}

func (m *sessionMemory) remember(s shape) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[s.call] = true
	for _, k := range s.commands {
		m.commands[k] = true
	}
}

func (m *sessionMemory) allows(s shape) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls[s.call] {
		return true
	}
	if len(s.commands) == 0 {
		return false
	}
	for _, k := range s.commands {
		if !m.commands[k] {
			return false
		}
	}
	return true
}

// shellJoin quotes argv as a shell command line that parses back to it.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil { // a NUL byte: no shell word holds one; quote it anyway
			q = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}

func jsonObject(key, value string) (json.RawMessage, error) {
	return json.Marshal(map[string]string{key: value})
}
