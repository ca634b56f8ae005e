package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/tui"
	"github.com/reinharness/rein/mcp"
)

// builtinCommands are chat's own slash commands, for Tab completion.
var builtinCommands = []string{
	"/help", "/diff", "/undo", "/compact", "/clear", "/usage", "/cost", "/status",
	"/model", "/expand", "/resume", "/init", "/permissions", "/mcp", "/prompt", "/skills", "/mode", "/memory", "/exit",
}

// chatCommandNames are the slash commands Tab completes: the built-in
// ones and the workspace's custom commands.
func (a *App) chatCommandNames(wsDir string) []string {
	names := slices.Clone(builtinCommands)
	for _, n := range a.loadCommands(wsDir).Names() {
		names = append(names, "/"+n)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// openHistory opens the workspace's input history in the state
// directory; without one (or when it cannot be read) the history lasts
// for the session only.
func (a *App) openHistory(flags *commonFlags, wsDir string) *tui.History {
	path := historyPath(host.StateDir(flags.stateDirFlag(), a.Getenv), wsDir)
	h, err := tui.OpenHistory(path)
	if err != nil {
		h, _ = tui.OpenHistory("")
	}
	return h
}

// closeTUIFront ends the chat UI and then, on the real stderr (the UI
// has given the terminal back), says what went wrong on the way: the
// UI's own failure and an input history that could not be stored.
func (a *App) closeTUIFront(front *tuiFront, hist *tui.History) {
	if err := front.close(); err != nil {
		fmt.Fprintf(a.Stderr, "rein: the chat UI failed: %s\n", termsafe.Line(err.Error()))
	}
	if err := hist.Err(); err != nil {
		fmt.Fprintf(a.Stderr, "rein: warning: the input history was not saved: %s\n", termsafe.Line(err.Error()))
	}
}

// maxCompletions bounds the paths one Tab lists.
const maxCompletions = 200

// workspacePaths completes @path prefixes to entries of the workspace:
// relative paths only, never through "..", hidden entries only when the
// prefix names them.
func workspacePaths(wsDir string) func(string) []string {
	root := host.CanonicalDir(wsDir)
	return func(prefix string) []string {
		if filepath.IsAbs(prefix) || slices.Contains(strings.Split(prefix, "/"), "..") {
			return nil
		}
		dir, base := filepath.Split(prefix)
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range entries {
			n := e.Name()
			if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
				continue
			}
			if e.IsDir() {
				n += "/"
			}
			out = append(out, dir+n)
			if len(out) == maxCompletions {
				break
			}
		}
		return out
	}
}

// newChanSource is a line source fed by a channel (the terminal UI's
// messages) rather than a reader.
func newChanSource(ch <-chan inputLine) *lineSource {
	s := &lineSource{ch: ch}
	s.once.Do(func() {})
	return s
}

// turnEnded ends the turn's activity display and refreshes the status.
func (s *chatSession) turnEnded() {
	s.front.send(tui.TurnMsg{Running: false})
	s.pushStatus()
}

// pushStatus updates the UI's status line; a no-op in line mode.
func (s *chatSession) pushStatus() {
	if s.front == nil {
		return
	}
	st := tui.Status{
		Model: s.currentModel(), Preset: s.modeName(), Session: s.conv.ID(),
		Tokens: fmt.Sprintf("%s in / %s out", humanTokens(s.usage.InputTokens), humanTokens(s.usage.OutputTokens)),
		Cost:   s.cost(),
	}
	if s.lastInput > 0 {
		if w := s.contextWindow(500 * time.Millisecond); w > 0 {
			st.Context = contextGauge(s.lastInput, w)
		}
	}
	st.MCP = s.mcpSummary()
	s.front.send(tui.StatusMsg(st))
}

// cost is the session's cost at the configured prices, "" when they are
// not known.
func (s *chatSession) cost() string {
	in, out := s.cfg.Model.InputPrice, s.cfg.Model.OutputPrice
	if in == 0 && out == 0 {
		return ""
	}
	c := (float64(s.usage.InputTokens)*in + float64(s.usage.OutputTokens)*out) / 1e6
	return fmt.Sprintf("$%.4f", c)
}

// mcpSummary is "N up, M failed" for the status line; it does not wait
// for servers still connecting.
func (s *chatSession) mcpSummary() string {
	if s.mcp == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	up, failed := 0, 0
	for _, st := range s.mcp.m.Status(ctx) {
		switch shownState(st) {
		case mcp.StateConnected:
			up++
		case mcp.StateFailed:
			failed++
		}
	}
	if failed == 0 {
		return fmt.Sprintf("%d up", up)
	}
	return fmt.Sprintf("%d up, %d failed", up, failed)
}

// humanTokens formats a token count compactly (12.3k).
func humanTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// costCommand is /cost.
func (s *chatSession) costCommand() {
	c := s.cost()
	if c == "" {
		fmt.Fprintf(s.app.Stderr, "(no prices configured: set [model] input_price and output_price, per million tokens; %d input, %d output tokens so far)\n", s.usage.InputTokens, s.usage.OutputTokens)
		return
	}
	fmt.Fprintf(s.app.Stderr, "session cost: %s (%d input, %d output tokens at %g / %g per million)\n",
		c, s.usage.InputTokens, s.usage.OutputTokens, s.cfg.Model.InputPrice, s.cfg.Model.OutputPrice)
}

// statusCommand is /status.
func (s *chatSession) statusCommand() {
	w := s.app.Stderr
	fmt.Fprintf(w, "model %s at %s, preset %s\n", s.currentModel(), s.ex.endpoint, s.modeName())
	if name, by := s.cfg.Profile(); name != "" {
		fmt.Fprintf(w, "profile %s (selected by %s; 'rein config show --profile %s' lists its values)\n", name, sourceText(by), name)
	}
	fmt.Fprintf(w, "session %s in %s, %s\n", s.conv.ID(), s.ws.Dir(), plural(s.turns, "turn"))
	fmt.Fprintln(w, s.contextLine())
	if m := s.mcpSummary(); m != "" {
		fmt.Fprintf(w, "MCP servers: %s (/mcp for details)\n", m)
	}
	s.showInstructions()
}

// permissionsCommand is /permissions [rm N].
func (s *chatSession) permissionsCommand(arg string) {
	w := s.app.Stderr
	if rest, ok := strings.CutPrefix(arg, "rm "); ok {
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil {
			fmt.Fprintln(w, "rein: /permissions rm takes the number of a grant, as /permissions lists them")
			return
		}
		p, err := s.perms.Remove(s.ws.Dir(), n)
		if err != nil {
			fmt.Fprintf(w, "rein: %s\n", termsafe.Line(err.Error()))
			return
		}
		fmt.Fprintf(w, "revoked %s (from the next session on; this one keeps its session approvals)\n", termsafe.Line(p.Describe()))
		return
	}
	if arg != "" {
		fmt.Fprintln(w, "rein: /permissions takes nothing or rm N")
		return
	}
	ps, err := s.perms.List(s.ws.Dir())
	if err != nil {
		fmt.Fprintf(w, "rein: %s\n", termsafe.Line(err.Error()))
		return
	}
	if len(ps) == 0 {
		fmt.Fprintln(w, `(nothing allowed "always for this project" here)`)
		return
	}
	for i, p := range ps {
		fmt.Fprintf(w, "%d. %s (%s)\n", i+1, termsafe.Line(p.Describe()), p.When())
	}
}
