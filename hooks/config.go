package hooks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/textclip"
)

// DefaultTimeout is how long a hook may run when its configuration gives
// no timeout, as in Claude Code.
const DefaultTimeout = 60 * time.Second

// MaxTimeout bounds a configured timeout, so that a typo (timeout =
// 60000, in milliseconds) cannot hold a run for weeks.
const MaxTimeout = time.Hour

// events are the hook events rein runs, in Claude Code's names.
var events = []agent.SteerEvent{
	agent.SteerSessionStart, agent.SteerUserPromptSubmit, agent.SteerPreToolUse,
	agent.SteerPostToolUse, agent.SteerNotification, agent.SteerStop,
	agent.SteerSubagentStop, agent.SteerPreCompact, agent.SteerSessionEnd,
}

// Events returns the hook events rein runs, in Claude Code's names and
// rein's order: a copy, so no importer can change what configuration
// accepts.
func Events() []agent.SteerEvent { return slices.Clone(events) }

// knownEvent reports whether name is one of events.
func knownEvent(name string) bool {
	return slices.Contains(events, agent.SteerEvent(name))
}

// Layer says where a matcher group was configured, which decides what its
// verdicts may do: only a user-layer allow lifts a policy Ask.
type Layer string

// Layers.
const (
	// LayerUser is the user's own configuration (~/.config/rein/config.toml
	// or --config).
	LayerUser Layer = "user"
	// LayerProject is the workspace's: .rein/config.toml and
	// .claude/settings.json / settings.local.json. It comes with the
	// repository and runs nothing until the user trusts it.
	LayerProject Layer = "project"
)

// Command is one hook: a shell command line run with bash -c.
type Command struct {
	Command string
	// Timeout is when the command and everything it started are killed.
	Timeout time.Duration
	// Unconfined is set for a hook of the user's own configuration that
	// opted out of the sandbox (sandbox = false). The caller checks that
	// everything it runs lies outside the workspace before honouring it;
	// a project layer's hooks never carry it.
	Unconfined bool
	// Network, when set, is the hook's own network setting (user layer
	// only); nil takes the session's.
	Network *bool
}

// Group is one matcher group: the hooks of one event that run when its
// matcher matches.
type Group struct {
	Event agent.SteerEvent
	// Matcher is the configured pattern: "" or "*" matches everything; a
	// plain list of names ("Edit|Write") matches those names exactly;
	// anything else is a regular expression searched in the name, as
	// Claude Code does.
	Matcher string
	Hooks   []Command
	Layer   Layer
	// Source names the file the group came from, for messages.
	Source string

	names []string       // the exact names of a plain matcher
	re    *regexp.Regexp // the regular expression otherwise
}

// Config is every configured matcher group, in configuration order
// (user layers first).
type Config struct {
	Groups []Group
}

// Len returns the number of hooks (commands) in c.
func (c Config) Len() int {
	n := 0
	for _, g := range c.Groups {
		n += len(g.Hooks)
	}
	return n
}

// Layer returns the groups of c from layer l.
func (c Config) Layer(l Layer) Config {
	var out Config
	for _, g := range c.Groups {
		if g.Layer == l {
			out.Groups = append(out.Groups, g)
		}
	}
	return out
}

// Add appends the groups of other.
func (c *Config) Add(other Config) { c.Groups = append(c.Groups, other.Groups...) }

// plainMatcher matches matchers Claude Code compares as names, not as
// regular expressions.
var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// compile prepares g's matcher; an invalid regular expression is an error.
func (g *Group) compile() error {
	m := strings.TrimSpace(g.Matcher)
	switch {
	case m == "" || m == "*":
		return nil
	case plainMatcher.MatchString(m):
		g.names = strings.Split(m, "|")
		return nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return fmt.Errorf("matcher %q is not a regular expression: %v", g.Matcher, err)
	}
	g.re = re
	return nil
}

// Matches reports whether the group applies to a point whose subject
// (the tool, the session's source, …) goes by any of names.
func (g *Group) Matches(names ...string) bool {
	if g.names == nil && g.re == nil {
		return true
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if slices.Contains(g.names, n) || (g.re != nil && g.re.MatchString(n)) {
			return true
		}
	}
	return false
}

// GroupSpec is a matcher group as configured, in either form: rein's TOML
//
//	[[hooks.PreToolUse]]
//	matcher = "Bash"
//	hooks = [{ type = "command", command = "~/bin/check.sh", timeout = 10 }]
//
// or an element of an event's array in Claude Code's settings.json.
type GroupSpec struct {
	Matcher string     `toml:"matcher" json:"matcher"`
	Hooks   []HookSpec `toml:"hooks" json:"hooks"`
}

// HookSpec is one hook as configured. Type must be "command" (other types
// Claude Code knows, such as "prompt" or "http", are skipped with a
// warning); Timeout is in seconds.
//
// Sandbox and Network are rein's own keys, honoured only in the user's
// configuration: sandbox = false runs the hook outside the sandbox (only
// when nothing it runs lies in the workspace), network = true or false
// overrides the session's network setting for it. A project layer that
// sets them is warned about and they are ignored: a repository may not
// widen its own hooks' sandbox.
type HookSpec struct {
	Type    string  `toml:"type" json:"type"`
	Command string  `toml:"command" json:"command"`
	Timeout float64 `toml:"timeout" json:"timeout"`
	Sandbox *bool   `toml:"sandbox" json:"-"`
	Network *bool   `toml:"network" json:"-"`
}

// Build turns one layer's configured groups, keyed by event name, into a
// Config. It never fails: what cannot run (an unknown event, a hook type
// other than command, an empty command, an invalid matcher) is left out
// with a warning naming source.
func Build(layer Layer, source string, events map[string][]GroupSpec) (Config, []string) {
	var cfg Config
	var warnings []string
	warn := func(format string, args ...any) {
		warnings = append(warnings, source+": "+fmt.Sprintf(format, args...))
	}
	names := make([]string, 0, len(events))
	for name := range events {
		names = append(names, name)
	}
	// Events in rein's order, unknown ones after, so output is stable.
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := eventRank(a), eventRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		if !knownEvent(name) {
			warn("hooks for unknown event %q ignored (rein runs %s)", clip(name), eventList())
			continue
		}
		for i, spec := range events[name] {
			g, ws := buildGroup(agent.SteerEvent(name), i, spec, layer)
			for _, w := range ws {
				warn("%s", w)
			}
			if len(g.Hooks) == 0 {
				continue
			}
			g.Layer, g.Source = layer, source
			cfg.Groups = append(cfg.Groups, g)
		}
	}
	return cfg, warnings
}

func buildGroup(event agent.SteerEvent, i int, spec GroupSpec, layer Layer) (Group, []string) {
	var warnings []string
	where := fmt.Sprintf("%s[%d]", event, i)
	g := Group{Event: event, Matcher: spec.Matcher}
	if err := g.compile(); err != nil {
		return Group{}, []string{fmt.Sprintf("%s: %v; its hooks are ignored", where, clipErr(err))}
	}
	for j, h := range spec.Hooks {
		at := fmt.Sprintf("%s.hooks[%d]", where, j)
		switch {
		case h.Type != "command" && h.Type != "":
			warnings = append(warnings, fmt.Sprintf("%s: hook type %q ignored (rein runs only type \"command\")", at, clip(h.Type)))
			continue
		case strings.TrimSpace(h.Command) == "":
			warnings = append(warnings, fmt.Sprintf("%s: empty command ignored", at))
			continue
		case strings.ContainsRune(h.Command, 0):
			warnings = append(warnings, fmt.Sprintf("%s: command contains a NUL byte; ignored", at))
			continue
		}
		timeout := DefaultTimeout
		switch {
		case h.Timeout < 0 || h.Timeout != h.Timeout:
			warnings = append(warnings, fmt.Sprintf("%s: timeout %v is not a number of seconds; using %s", at, h.Timeout, DefaultTimeout))
		case h.Timeout > MaxTimeout.Seconds():
			warnings = append(warnings, fmt.Sprintf("%s: timeout %vs is more than %s; using %s", at, h.Timeout, MaxTimeout, MaxTimeout))
			timeout = MaxTimeout
		case h.Timeout > 0:
			timeout = max(time.Duration(h.Timeout*float64(time.Second)), time.Millisecond)
		}
		c := Command{Command: h.Command, Timeout: timeout}
		switch {
		case layer != LayerUser && (h.Sandbox != nil || h.Network != nil):
			warnings = append(warnings, fmt.Sprintf("%s: sandbox and network ignored: only your own config may change a hook's sandbox", at))
		default:
			c.Unconfined = h.Sandbox != nil && !*h.Sandbox
			c.Network = h.Network
		}
		g.Hooks = append(g.Hooks, c)
	}
	return g, warnings
}

func eventRank(name string) int {
	if i := slices.Index(events, agent.SteerEvent(name)); i >= 0 {
		return i
	}
	return len(events)
}

func eventList() string {
	s := make([]string, len(events))
	for i, e := range events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

// clip shortens configuration text quoted in a warning.
func clip(s string) string { return textclip.Clip(s, 80) }

func clipErr(err error) string { return clip(err.Error()) }
