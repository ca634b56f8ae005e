package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	toolsexec "github.com/reinharness/rein/tools/exec"
)

// TestLoopLimitDefaultsMatchTheLibrary: the loop's and run_command's
// defaults config states are those the agent and tools/exec apply.
func TestLoopLimitDefaultsMatchTheLibrary(t *testing.T) {
	pairs := []struct {
		name      string
		cfg, impl any
	}{
		{"repeat_limit", config.DefaultRepeatLimit, agent.DefaultRepeatLimit},
		{"max_consecutive_denials", config.DefaultMaxConsecutiveDenials, agent.DefaultMaxConsecutiveDenials},
		{"max_result_bytes", config.DefaultMaxResultBytes, agent.DefaultMaxResultBytes},
		{"command_timeout", config.DefaultCommandTimeout, toolsexec.DefaultTimeout},
		{"command_max_timeout", config.DefaultCommandMaxTimeout, toolsexec.DefaultMaxTimeout},
		{"command_output_bytes", config.DefaultCommandOutputBytes, toolsexec.DefaultMaxOutput},
	}
	for _, p := range pairs {
		if p.cfg != p.impl {
			t.Errorf("%s: config default %v, library default %v", p.name, p.cfg, p.impl)
		}
	}
}

func TestLoopLimitsFromFileAndFlags(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), `[agent]
repeat_limit = 5
max_consecutive_denials = 0
command_timeout = "30s"
command_max_timeout = "1h"
command_output_bytes = 4096
`)
	c, err := f.load(config.Settings{RepeatLimit: new(7)})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agent
	if a.RepeatLimit != 7 || a.MaxConsecutiveDenials != 0 || a.CommandTimeout != 30*time.Second ||
		a.CommandMaxTimeout != time.Hour || a.CommandOutputBytes != 4096 {
		t.Errorf("agent = %+v", a)
	}
	if src := c.Source("agent.repeat_limit"); src.Layer != config.LayerFlag || src.Name != "--repeat-limit" {
		t.Errorf("repeat_limit from %v, want the flag", src)
	}
	if src := c.Source("agent.max_consecutive_denials"); src.Layer != config.LayerUser || src.Line != 3 {
		t.Errorf("max_consecutive_denials from %v, want the user file line 3", src)
	}
}

// TestProjectMayOnlyTightenLoopLimits: a repository cannot turn the
// denial stop off, nor give commands longer or more output.
func TestProjectMayOnlyTightenLoopLimits(t *testing.T) {
	f := newFixture(t)
	write(t, f.projectFile(), `[agent]
max_consecutive_denials = 0
repeat_limit = 9
command_timeout = "5m"
command_output_bytes = 1048576
command_max_timeout = "5m"
`)
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agent
	if a.MaxConsecutiveDenials != 3 || a.RepeatLimit != 3 || a.CommandTimeout != 2*time.Minute || a.CommandOutputBytes != 32<<10 {
		t.Errorf("project loosened a limit: %+v", a)
	}
	if a.CommandMaxTimeout != 5*time.Minute {
		t.Errorf("command_max_timeout %s, want the project's shorter 5m", a.CommandMaxTimeout)
	}
	joined := strings.Join(c.Warnings, "\n")
	for _, key := range []string{"agent.max_consecutive_denials", "agent.repeat_limit", "agent.command_timeout", "agent.command_output_bytes"} {
		if !strings.Contains(joined, key+" = ") {
			t.Errorf("no warning for the ignored %s; warnings:\n%s", key, joined)
		}
	}
}

func TestLoopLimitErrors(t *testing.T) {
	tests := []struct{ file, want string }{
		{`repeat_limit = 1`, "agent.repeat_limit: must be between 2 and 1000 (got 1)"},
		{`repeat_limit = 0`, "must be between 2 and 1000"},
		{`max_consecutive_denials = -1`, "must be between 0 and 1000 (got -1)"},
		{`command_timeout = "0s"`, "agent.command_timeout: must be between 1s and 24h0m0s"},
		{`command_timeout = 30`, `want a duration string like "90s"`},
		{`command_output_bytes = 10`, "must be between 1024 and 67108864"},
		{`repeat_limt = 4`, "repeat_limit"},
		{"command_timeout = \"20m\"", "agent.command_timeout = 20m0s (user "},
		{"command_timeout = \"20m\"\ncommand_max_timeout = \"15m\"", "is longer than agent.command_max_timeout = 15m0s"},
	}
	for _, tt := range tests {
		f := newFixture(t)
		write(t, f.userFile(), "[agent]\n"+tt.file+"\n")
		_, err := f.load(config.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.file, err, tt.want)
		}
	}
}
