package skill

import (
	"strings"

	"github.com/reinharness/rein/agent"
)

// RunOptions returns base with the active skills applied, for
// agent.Agent.RunWith: their "# Skill:" and "# Skill Context:" sections
// are appended to the run's system prompt (after base.AppendSystem), and
// the tool set they imply — the Registry's base with the skills' tools
// added, shadowed tools replaced and allowed-tools applied — becomes the
// run's tools, replacing base.Tools. base's AllowedTools, Narrow and
// policy still apply on top, so a skill never widens what the run may do.
//
// It is how a program activates skills on an Agent between runs without
// rebuilding it:
//
//	reg := skill.NewRegistry(tools, skill.RegistryOptions{})
//	reg.Activate(ctx, pdf)
//	opts, err := reg.RunOptions(agent.RunOptions{})
//	out, err := ag.RunWith(ctx, conv, "fill the form", opts) …
//	reg.Deactivate("pdf") // the next RunOptions restores the tools
//
// The options are a snapshot: activating or deactivating later does not
// change a run already started with them.
func (r *Registry) RunOptions(base agent.RunOptions) (agent.RunOptions, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set, err := r.toolsFor(r.active)
	if err != nil {
		return base, err
	}
	base.Tools = set
	var sections []string
	if base.AppendSystem != "" {
		sections = append(sections, base.AppendSystem)
	}
	for _, a := range r.active {
		sections = append(sections, strings.TrimRight(a.Prompt, "\n"))
		if a.Context != "" {
			sections = append(sections, strings.TrimRight(a.Context, "\n"))
		}
	}
	base.AppendSystem = strings.Join(sections, "\n\n")
	return base, nil
}
