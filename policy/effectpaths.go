package policy

import (
	"encoding/json"
	"fmt"

	"github.com/reinharness/rein/tool"
)

// declaredPaths returns the paths a call touches according to its tool's
// Effects.Paths (nil when the tool declares none). A failing or panicking
// extractor is an error: the call's files are then unknown, and the
// caller makes it ask rather than let it pass unchecked.
func declaredPaths(spec tool.Spec, args json.RawMessage) (paths []string, err error) {
	if spec.Effects.Paths == nil {
		return nil, nil
	}
	defer func() {
		if v := recover(); v != nil {
			paths, err = nil, fmt.Errorf("the tool's path extraction failed (%v)", v)
		}
	}()
	paths, err = spec.Effects.Paths(args)
	if err != nil {
		return nil, fmt.Errorf("%s", firstLine(err.Error()))
	}
	return paths, nil
}

// GitControlPaths are the built-in path rules that make writing git's
// hooks and its config ask under every preset: both let a change run code
// later, outside any tool call the policy sees (a hook runs at the next
// commit; core.hooksPath, core.fsmonitor, core.sshCommand or an alias in
// .git/config run at the next git command). Nested repositories count too.
// Path rules combine strictest-first, so a user's allow rule does not lift
// them; a user who wants such writes approves them when asked.
func GitControlPaths() []PathRule {
	const reason = "writing git hooks or git's config lets code run later, outside the policy's view"
	return []PathRule{
		{Pattern: "**/.git/hooks/**", Access: "write", Action: "ask", Reason: reason},
		{Pattern: "**/.git/config", Access: "write", Action: "ask", Reason: reason},
	}
}
