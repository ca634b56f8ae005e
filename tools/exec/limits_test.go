package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// TestRenderLimit: the result of a command stopped by a sandbox limit
// says which limit, its value and the setting that raises it, right
// after the status line, so a later cut of the output keeps it.
func TestRenderLimit(t *testing.T) {
	for _, tc := range []struct {
		limit sandbox.Limit
		value string
		want  string
	}{
		{sandbox.LimitMemory, "2 GiB", "stopped: hit the sandbox's memory limit (2 GiB); raise [sandbox] limits.memory\n"},
		{sandbox.LimitProcesses, "1,024 processes", "a process could not start: hit the sandbox's process limit (1,024 processes); raise [sandbox] limits.processes\n"},
		{sandbox.LimitCPUTime, "1s", "stopped: hit the sandbox's per-process CPU time limit (1s); raise [sandbox] limits.cpu_time\n"},
		{sandbox.LimitFileSize, "1 MiB", "stopped: hit the sandbox's file size limit (1 MiB); raise [sandbox] limits.file_size\n"},
	} {
		res := workspace.ExecResult{ExitCode: 137, Output: "x\n", Limit: tc.limit, LimitValue: tc.value, Duration: time.Second}
		o := Outcome{ExitCode: 137, Output: "x\n", DurationMS: 1000, Limit: string(tc.limit)}
		got := render(o, res, time.Minute, nil)
		lines := strings.SplitAfterN(got, "\n", 3)
		if len(lines) < 2 || lines[1] != tc.want {
			t.Errorf("%s: rendered %q; want line 2 %q", tc.limit, got, tc.want)
		}
	}
	if got := render(Outcome{Output: "ok\n"}, workspace.ExecResult{Output: "ok\n"}, time.Minute, nil); strings.Contains(got, "limit") {
		t.Errorf("no limit hit, but %q", got)
	}
}
