package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/command"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
)

// builtinChatCommands are the slash commands of `rein chat` itself; a
// custom command of the same name is not loaded (the built-in wins).
var builtinChatCommands = []string{"help", "exit", "quit", "clear", "compact", "diff", "undo", "mcp", "prompt", "usage", "skills"}

// commandLabel names a command's allowed-tools in the denial reasons the
// model sees.
const commandLabel = "the command's allowed-tools"

// claudeModelAliases are the model names Claude Code's commands use for
// its own models; they mean nothing to another server, so rein keeps the
// session's model for them.
var claudeModelAliases = map[string]bool{"haiku": true, "sonnet": true, "opus": true, "inherit": true, "opusplan": true}

// loadCommands discovers the custom commands of the user and of the
// workspace, printing one warning per problem.
func (a *App) loadCommands(wsDir string) *command.Set {
	set, warnings := command.Load(command.Dirs(a.userConfigDir(), wsDir), builtinChatCommands)
	for _, w := range warnings {
		fmt.Fprintf(a.Stderr, "rein: warning: %s\n", termsafe.Line(textclip.FirstLine(w)))
	}
	return set
}

// findCommand returns the command called name, or a usage error that
// suggests the closest name.
func findCommand(set *command.Set, name string) (*command.Command, error) {
	name = strings.TrimPrefix(name, "/")
	if c, ok := set.Get(name); ok {
		return c, nil
	}
	if set.Len() == 0 {
		return nil, usagef("unknown command %q: no custom commands are defined (put .md files in ~/.config/rein/commands, .rein/commands or .claude/commands)", name)
	}
	return nil, usagef("unknown command %q%s; defined: %s", name, config.Suggest(name, set.Names()), strings.Join(set.Names(), ", "))
}

// expandCommand fills in c's arguments and reports on w what rein left as
// text (the !`…` and @file of Claude Code).
func expandCommand(w io.Writer, c *command.Command, args string) (string, error) {
	e, err := c.Expand(args)
	if err != nil {
		return "", usagef("/%s: %v", c.Name, err)
	}
	for _, n := range e.Notes {
		fmt.Fprintf(w, "rein: note: /%s: %s\n", c.Name, n)
	}
	return e.Prompt, nil
}

// commandOptions are the run options of command c, given the names of the
// tools the run has: its allowed-tools narrow them (never widen), its
// model replaces the session's. Warnings go to w.
func commandOptions(w io.Writer, c *command.Command, tools []string) agent.RunOptions {
	var opts agent.RunOptions
	if c.Model != "" && !claudeModelAliases[c.Model] {
		opts.Model = c.Model
	}
	if c.AllowedTools == nil {
		return opts
	}
	r, warnings := command.NewRestriction(c.AllowedTools, tools, commandLabel)
	for _, msg := range warnings {
		fmt.Fprintf(w, "rein: warning: %s: %s\n", termsafe.Line(c.Path), termsafe.Line(msg))
	}
	opts.AllowedTools, opts.Narrow, opts.Restriction = r.Tools, r, commandLabel
	return opts
}

// commandHelp lists the custom commands for /help.
func commandHelp(set *command.Set) string {
	if set.Len() == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Custom commands:\n")
	for _, c := range set.Commands() {
		line := "  /" + c.Name
		if c.ArgumentHint != "" {
			line += " " + c.ArgumentHint
		}
		desc := c.Description
		if desc == "" {
			desc = firstLine(c.Body)
		}
		fmt.Fprintf(&b, "%s  %s (%s)\n", termsafe.Line(line), termsafe.Line(clipText(desc, 100)), c.Layer)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(strings.TrimLeft(line, "# "))
}

// splitSlash splits "/name args" into name and args.
func splitSlash(line string) (name, args string) {
	line = strings.TrimPrefix(line, "/")
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		return line[:i], strings.TrimSpace(line[i+1:])
	}
	return line, ""
}
