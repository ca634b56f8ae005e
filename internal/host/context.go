package host

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/history"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/session"
)

// Context strategies selectable with [context] strategy.
const (
	strategySummarize = "summarize"
	strategyWindow    = "window"
	strategyFull      = "full"
)

// contextSettings is the [context] table:
//
//	[context]
//	strategy = "summarize"   # summarize (default) | window | full
//	threshold = 0.8          # summarize when the history fills this much of the window
//	keep_recent = 10         # messages kept verbatim after a summary
//	max_messages = 0         # window: also cap the number of messages (0: no cap)
//
// Later layers override earlier ones key by key.
type contextSettings struct {
	Strategy    string  `toml:"strategy"`
	Threshold   float64 `toml:"threshold"`
	KeepRecent  int     `toml:"keep_recent"`
	MaxMessages int     `toml:"max_messages"`
}

// LoadContextSettings merges the [context] layers.
func LoadContextSettings(cfg *config.Config) (contextSettings, error) {
	out := contextSettings{Strategy: strategySummarize}
	for _, sec := range cfg.Sections("context") {
		var s contextSettings
		if err := sec.Decode(&s); err != nil {
			return out, err
		}
		switch s.Strategy {
		case "", strategySummarize, strategyWindow, strategyFull:
		default:
			return out, sec.Errorf([]string{"strategy"}, "unknown context strategy %q: use summarize, window or full", s.Strategy)
		}
		if s.Threshold < 0 || s.Threshold > 1 {
			return out, sec.Errorf([]string{"threshold"}, "threshold %v is outside (0, 1]: it is the fraction of the context window at which rein summarizes", s.Threshold)
		}
		if s.KeepRecent < 0 || s.MaxMessages < 0 {
			return out, sec.Errorf(nil, "keep_recent and max_messages must not be negative")
		}
		if s.Strategy != "" {
			out.Strategy = s.Strategy
		}
		if s.Threshold != 0 {
			out.Threshold = s.Threshold
		}
		if s.KeepRecent != 0 {
			out.KeepRecent = s.KeepRecent
		}
		if s.MaxMessages != 0 {
			out.MaxMessages = s.MaxMessages
		}
	}
	return out, nil
}

// NewContextStrategy builds the configured strategy. It returns the
// Summarize strategy separately (nil for the others): chat's /compact and
// a resume's restored summaries need it.
func NewContextStrategy(s contextSettings, p model.Provider, modelName string) (agent.ContextStrategy, *history.Summarize) {
	switch s.Strategy {
	case strategyFull:
		return history.Full{}, nil
	case strategyWindow:
		return history.Window{MaxMessages: s.MaxMessages}, nil
	}
	sum := &history.Summarize{Provider: p, Model: modelName, Threshold: s.Threshold, KeepRecent: s.KeepRecent}
	return sum, sum
}

// LoadInstructions reads the instruction files that apply to this run
// (history.LoadInstructionsFrom): the user's ~/.claude/CLAUDE.md and
// rein's own AGENTS.md, then the workspace's from its root down to the
// current directory (when that is inside the workspace), with their
// @path imports. A file that cannot be read or is refused is reported as
// a warning, as is the cap cutting the text; the others still apply.
func (e Env) LoadInstructions(workspace string, others bool) *history.Instructions {
	workDir := workspace
	if wd, err := e.getwd(); err == nil {
		if rel, err := filepath.Rel(workspace, wd); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			workDir = wd
		}
	}
	userDir := ""
	if p := config.UserConfigPath(e.Getenv); p != "" {
		userDir = filepath.Dir(p)
	}
	in, err := history.LoadInstructionsFrom(history.InstructionSources{
		WorkspaceRoot: workspace, WorkDir: workDir, Home: HomeDir(e.Getenv), UserConfigDir: userDir, Others: others,
	})
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap() // one warning per file
	}
	for _, err := range errs {
		if err != nil {
			fmt.Fprintf(e.Stderr, "rein: warning: %s\n", termsafe.Line(textclip.FirstLine(err.Error())))
		}
	}
	if in.Truncated {
		fmt.Fprintf(e.Stderr, "rein: warning: the instructions were cut at %d bytes (%d more files not loaded); shorten them or move detail into files the agent can read on demand\n",
			history.DefaultInstructionsBytes, in.NotLoaded)
	}
	return in
}

// InstructionsLine lists the loaded instruction files for the banner and
// /status, imports marked; "" when there are none.
func InstructionsLine(files []history.LoadedFile) string {
	if len(files) == 0 {
		return ""
	}
	var parts []string
	for _, f := range files {
		p := f.Path
		if f.ImportedBy != "" {
			p = "@" + p
		}
		if f.Cut {
			p += " (cut)"
		}
		parts = append(parts, p)
	}
	return "instructions: " + strings.Join(parts, ", ")
}

// RestoreSummaries gives a resumed conversation's summaries back to the
// Summarize strategy, so the next call sends the same history it would
// have sent before rein stopped, without summarizing again.
func RestoreSummaries(res *session.Resumed, sum *history.Summarize, conv *agent.Conversation) {
	if sum == nil || res == nil {
		return
	}
	for i := range res.Snapshot.Summaries {
		sum.Restore(conv.ID(), &res.Snapshot.Summaries[i])
	}
}
