package approve

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/policy/shell"
)

// ForTerminal picks the approver for --approve MODE: "ask" (or "")
// prompts on the terminal when there is one and otherwise behaves as
// "never"; "never" denies what needs approval; "auto" allows it.
func ForTerminal(isTTY bool, mode string, opts ConsoleOptions) (policy.Approver, error) {
	switch mode {
	case "", "ask":
		if isTTY {
			return Console(os.Stdin, os.Stderr, opts), nil
		}
		return policy.Never(), nil
	case "never":
		return policy.Never(), nil
	case "auto":
		return policy.Auto(), nil
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

func callShape(c policy.Call, opts shell.Options) shape {
	s := shape{call: c.Spec.Name + "\x00" + canonicalJSON(c.Args)}
	eff := c.Spec.Effects
	if !eff.Exec || eff.CommandArg == "" {
		return s
	}
	cmds, bad := policy.CommandLines(c)
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
