package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/command"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/skill"
	"github.com/reinharness/rein/tool"
	toolsfs "github.com/reinharness/rein/tools/fs"
)

// skillLabel names a skill's allowed-tools in the denial reasons the
// model sees.
const skillLabel = "the skill's allowed-tools"

// userConfigDir is the folder of the user's config.toml (~/.config/rein),
// "" when there is none.
func (a *App) userConfigDir() string {
	if p := config.UserConfigPath(a.Getenv); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// discoverSkills finds the user's and the workspace's skills; project
// skills are confined to the workspace.
func (a *App) discoverSkills(wsDir string) *skill.Catalog {
	return skill.Discover(skill.DefaultSources(a.userConfigDir(), host.CanonicalDir(wsDir))...)
}

// warnSkills prints each problem of discovery as one warning line.
func (a *App) warnSkills(c *skill.Catalog) {
	for _, p := range c.Problems() {
		fmt.Fprintf(a.Stderr, "rein: warning: skill: %s\n", p.String())
	}
}

// skillMount serves skill://NAME/PATH to read_file, through skill.Open:
// confined to the skill's folder ("..", absolute paths and links leading
// out are refused), regular files only, read-only.
func skillMount(c *skill.Catalog) toolsfs.Mount {
	return toolsfs.Mount{Prefix: skill.PathScheme, Open: func(p string) (*os.File, error) {
		name, rel, _ := skill.ParsePath(p)
		s, ok := c.Get(name)
		if !ok {
			return nil, fmt.Errorf("no skill is called %q%s", clipText(name, 64), config.Suggest(name, c.Names()))
		}
		return skill.Open(s, rel)
	}}
}

// findSkill returns the skill called name or a usage error suggesting the
// closest name.
func findSkill(c *skill.Catalog, name string) (*skill.Skill, error) {
	if s, ok := c.Get(name); ok {
		return s, nil
	}
	if len(c.Names()) == 0 {
		return nil, usagef("unknown skill %q: no skills are installed (skill folders go in ~/.config/rein/skills, .agents/skills, .claude/skills or .rein/skills)", name)
	}
	return nil, usagef("unknown skill %q%s; installed: %s", name, config.Suggest(name, c.Names()), strings.Join(c.Names(), ", "))
}

// skillOptions are the run options of a turn with s activated explicitly:
// the system prompt gains the "# Skill: NAME" section (and its context
// section), the MCP servers the skill binds are started (servers) and
// their tools join the run's, and the skill's allowed-tools narrow the
// tools (never widen; its servers' tools stay). release stops the
// servers; call it when the turn is over.
func skillOptions(ctx context.Context, w io.Writer, s *skill.Skill, system string, tools *tool.Set, servers skillServersFunc) (opts agent.RunOptions, release func(), err error) {
	// A registry over the run's tools with this one skill active: the
	// library's way of adding a skill's tools to a run.
	reg := skill.NewRegistry(tools, skill.RegistryOptions{Servers: servers})
	act, err := reg.Activate(ctx, s)
	if err != nil {
		return agent.RunOptions{}, nil, err
	}
	opts = agent.RunOptions{System: strings.TrimRight(system, "\n") + "\n\n" + act.Prompt}
	if act.Context != "" {
		opts.System += "\n" + act.Context
	}
	if len(act.Tools) > 0 {
		if opts.Tools, err = reg.Tools(); err != nil {
			reg.Close()
			return agent.RunOptions{}, nil, err
		}
	}
	if s.AllowedTools != nil {
		r, warnings := command.NewRestriction(s.AllowedTools, tools.Names(), skillLabel)
		for _, msg := range warnings {
			fmt.Fprintf(w, "rein: warning: skill %s: %s\n", s.Name, termsafe.Line(msg))
		}
		opts.AllowedTools, opts.Narrow, opts.Restriction = r.Tools, r, skillLabel
		for _, t := range act.Tools {
			opts.AllowedTools = append(opts.AllowedTools, t.Spec().Name)
		}
	}
	return opts, reg.Close, nil
}

// NewSkillsCommand returns `rein skills` with its subcommand list.
func NewSkillsCommand(a *App) *cobra.Command {
	a.defaults()
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List the installed skills",
		Long: `Skills are folders of instructions and files for particular tasks, in the
Agent Skills format (SKILL.md) or rein's skill.json. rein reads them from
~/.config/rein/skills, then the workspace's .agents/skills, .claude/skills and
.rein/skills (a later one shadows an earlier one of the same name).

The model sees each skill's name and description, loads one with the skill
tool and reads its files with read_file at skill://NAME/PATH. In chat,
/NAME [ARGS] activates one for the next turn; rein run --skill NAME does so
for a run.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.skillsListCommand())
	return cmd
}

func (a *App) skillsListCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show each skill: name, source, description, and the problems found",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.format != formatText && f.format != formatJSON {
				return usagef("--output-format %q: rein skills list prints text or json", f.format)
			}
			_, ws, err := a.load(&f.common)
			if err != nil {
				return a.fail(err, nil)
			}
			if f.format == formatJSON {
				return a.printJSON(skillsJSON(a.discoverSkills(ws)))
			}
			listSkills(termsafe.NewWriter(a.Stdout), a.discoverSkills(ws))
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

// skillsList is the JSON form of `rein skills list` (public contract).
type skillsList struct {
	Skills   []skillView   `json:"skills"`
	Problems []problemView `json:"problems"`
}

type problemView struct {
	Path    string `json:"path"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Skipped bool   `json:"skipped"`
}

type skillView struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"` // the layer: user or project
	Dir         string `json:"dir"`
	File        string `json:"file"`
}

// skillsJSON is the catalog as `rein skills list --output-format json`
// prints it: every skill, then every problem found.
func skillsJSON(c *skill.Catalog) skillsList {
	out := skillsList{Skills: []skillView{}, Problems: []problemView{}}
	for _, s := range c.Skills() {
		out.Skills = append(out.Skills, skillView{Name: s.Name, Description: s.Description, Source: s.Layer.String(), Dir: s.Dir, File: s.File})
	}
	for _, p := range c.Problems() {
		out.Problems = append(out.Problems, problemView{Path: p.Path, Field: p.Field, Message: p.Message, Skipped: p.Skipped})
	}
	return out
}

// listSkills prints the catalog, one skill per line in aligned columns,
// then its problems.
func listSkills(w io.Writer, c *skill.Catalog) {
	skills := c.Skills()
	if len(skills) == 0 {
		fmt.Fprintln(w, "no skills are installed")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(skills) > 0 {
		fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
	}
	for _, s := range skills {
		desc := strings.Join(strings.Fields(s.Description), " ")
		fmt.Fprintf(tw, "%s\t%s %s\t%s\n", termsafe.Line(s.Name), s.Layer, termsafe.Line(s.Dir), termsafe.Line(clipText(desc, 160)))
	}
	tw.Flush()
	if probs := c.Problems(); len(probs) > 0 {
		fmt.Fprintf(w, "\n%s:\n", plural(len(probs), "problem"))
		for _, p := range probs {
			fmt.Fprintf(w, "  %s\n", p.String())
		}
	}
}

// skillHelp lists the skills for chat's /skills.
func skillHelp(c *skill.Catalog) string {
	skills := c.Skills()
	if len(skills) == 0 {
		return "(no skills are installed)"
	}
	var b strings.Builder
	b.WriteString("Skills (/NAME [ARGS] activates one for the next turn):\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "  /%s  %s (%s)\n", termsafe.Line(s.Name), termsafe.Line(clipText(strings.Join(strings.Fields(s.Description), " "), 100)), s.Layer)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// isSkill reports whether line names a skill (/NAME [ARGS]).
func (s *chatSession) isSkill(line string) bool {
	name, _ := splitSlash(line)
	_, ok := s.skills.Get(name)
	return ok
}

// skillCommand activates the skill of /NAME [ARGS] explicitly: with ARGS
// they are the message of a turn run with the skill active; without, the
// skill is active for the next message.
func (s *chatSession) skillCommand(ctx context.Context, line string) (bool, int) {
	name, args := splitSlash(line)
	sk, _ := s.skills.Get(name)
	if args == "" {
		s.pending = sk
		fmt.Fprintf(s.app.Stderr, "(skill %s is active for your next message)\n", sk.Name)
		return false, 0
	}
	s.pending = nil
	return s.turn(ctx, args, s.skillTurn(sk))
}

// skillTurn returns the options of a turn with sk active; a skill that
// cannot be activated fails the turn with its reason.
func (s *chatSession) skillTurn(sk *skill.Skill) turnOptions {
	return func(ctx context.Context) (agent.RunOptions, func(), error) {
		return skillOptions(ctx, s.app.Stderr, sk, s.system, s.tools, s.skillServers)
	}
}

// warnSkillClashes warns about skills /NAME cannot activate because a
// built-in or custom command has the name; the model can still load them.
func (s *chatSession) warnSkillClashes() {
	for _, name := range s.skills.Names() {
		by := ""
		switch _, cmd := s.commands.Get(name); {
		case slices.Contains(builtinChatCommands, name):
			by = "the built-in command"
		case cmd:
			by = "the custom command"
		default:
			continue
		}
		fmt.Fprintf(s.app.Stderr, "rein: warning: skill %s: /%s runs %s of that name; the model can still load the skill\n", name, name, by)
	}
}

// takePending returns the options of the skill activated for this
// message, if any, and clears it.
func (s *chatSession) takePending() turnOptions {
	sk := s.pending
	if sk == nil {
		return nil
	}
	s.pending = nil
	return s.skillTurn(sk)
}
