package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/reinharness/rein/config"
	toolsexec "github.com/reinharness/rein/tools/exec"
)

// loopFlags are the agent loop's limits a user sets for one run, and
// --append-system-prompt. Each limit is also an [agent] key (see
// docs/configuration.md); the flag is the topmost layer.
type loopFlags struct {
	repeatLimit    int
	maxDenials     int
	commandTimeout time.Duration
	// appendPrompt is --append-system-prompt: a file's path or literal
	// text added after the instructions (appendprompt.go).
	appendPrompt string
}

func (l *loopFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&l.repeatLimit, "repeat-limit", 0, fmt.Sprintf("stop when the same call gives the same result this many times in a row, 2 or more (default %d)", config.DefaultRepeatLimit))
	fs.IntVar(&l.maxDenials, "max-denials", 0, fmt.Sprintf("stop after this many denied calls in a row; 0 for no such stop (default %d)", config.DefaultMaxConsecutiveDenials))
	fs.DurationVar(&l.commandTimeout, "command-timeout", 0, fmt.Sprintf("run_command's time limit when the model gives none (default %s)", config.DefaultCommandTimeout))
	fs.StringVar(&l.appendPrompt, "append-system-prompt", "", "FILE or TEXT added after the instructions (rein's system prompt stays)")
}

// settings adds the flags the user gave to s.
func (l *loopFlags) settings(changed func(string) bool, s *config.Settings) {
	if changed("repeat-limit") {
		s.RepeatLimit = new(l.repeatLimit)
	}
	if changed("max-denials") {
		s.MaxConsecutiveDenials = new(l.maxDenials)
	}
	if changed("command-timeout") {
		s.CommandTimeout = new(l.commandTimeout)
	}
}

// agentDenials maps [agent] max_consecutive_denials to agent.Config's
// field, where 0 means the default: the configuration's 0 (off) becomes
// a count no run reaches, since every denial is a model call and max_steps
// is at most 1<<20.
func agentDenials(n int) int {
	if n == 0 {
		return 1 << 30
	}
	return n
}

// runCommandOptions are run_command's configured defaults.
func runCommandOptions(cfg *config.Config) toolsexec.Options {
	return toolsexec.Options{
		Timeout:    cfg.Agent.CommandTimeout,
		MaxTimeout: cfg.Agent.CommandMaxTimeout,
		MaxOutput:  cfg.Agent.CommandOutputBytes,
	}
}
