package host

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/workspace/sandbox"
)

func TestLoadSandboxLimits(t *testing.T) {
	def := sandbox.DefaultLimits()
	tests := []struct {
		name          string
		user, project string
		want          sandbox.Limits
		wantWarnings  []string
	}{
		{name: "defaults", want: sandbox.Limits{}},
		{
			name: "user sets every limit",
			user: "[sandbox]\nlimits = { processes = 300, memory = \"2GiB\", cpu_time = \"10m\", file_size = \"512MiB\", open_files = 1024 }\n",
			want: sandbox.Limits{Processes: 300, Memory: 2 << 30, CPUTime: 10 * time.Minute, FileSize: 512 << 20, OpenFiles: 1024},
		},
		{
			name: "user table form and off",
			user: "[sandbox.limits]\nmemory = \"off\"\ncpu_time = 0\nprocesses = 2048\n",
			want: sandbox.Limits{Memory: sandbox.Unlimited, CPUTime: sandbox.Unlimited, Processes: 2048},
		},
		{
			name:    "project lowers",
			project: "[sandbox]\nlimits = { processes = 100, memory = \"1GiB\" }\n",
			want:    sandbox.Limits{Processes: 100, Memory: 1 << 30},
		},
		{
			name:         "project cannot raise or lift",
			user:         "[sandbox]\nlimits = { processes = 200, cpu_time = \"5m\" }\n",
			project:      "[sandbox]\nlimits = { processes = 5000, cpu_time = \"off\", open_files = 100000 }\n",
			want:         sandbox.Limits{Processes: 200, CPUTime: 5 * time.Minute},
			wantWarnings: []string{"processes = 5,000 processes ignored", "cpu_time = \"off\" ignored", "open_files = 100,000 files ignored"},
		},
		{
			name:         "project cannot set one above the default",
			project:      "[sandbox]\nlimits = { memory = \"100TiB\" }\n",
			want:         sandbox.Limits{},
			wantWarnings: []string{"memory = 100 TiB ignored: a project can only lower a limit (it is " + def.Value(sandbox.LimitMemory) + ")"},
		},
		{
			name:    "project may lower what the user lifted",
			user:    "[sandbox]\nlimits = { memory = \"off\" }\n",
			project: "[sandbox]\nlimits = { memory = \"3GiB\" }\n",
			want:    sandbox.Limits{Memory: 3 << 30},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ws, home := loadLayers(t, tc.user, tc.project)
			s, err := LoadSandbox(cfg, ws, home)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, s.Limits); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
			if len(s.Warnings) != len(tc.wantWarnings) {
				t.Fatalf("warnings %q, want %d", s.Warnings, len(tc.wantWarnings))
			}
			for i, w := range tc.wantWarnings {
				if !strings.Contains(s.Warnings[i], w) {
					t.Errorf("warning %q does not contain %q", s.Warnings[i], w)
				}
			}
		})
	}
}

func TestLoadSandboxLimitsErrors(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"[sandbox]\nlimits = { memory = \"4GB\" }\n", `sandbox.limits.memory: "4GB" is not a size: give one like "512MiB"`},
		{"[sandbox]\nlimits = { memory = \"1KiB\" }\n", "sandbox.limits.memory: 1 KiB is too small: give at least 16 MiB"},
		{"[sandbox]\nlimits = { memory = true }\n", "sandbox.limits.memory: give a size like"},
		{"[sandbox]\nlimits = { cpu_time = 60 }\n", `sandbox.limits.cpu_time: give a duration like "90s"`},
		{"[sandbox]\nlimits = { cpu_time = \"ten\" }\n", `"ten" is not a duration`},
		{"[sandbox]\nlimits = { processes = \"many\" }\n", "sandbox.limits.processes: give a whole number (e.g. 1024)"},
		{"[sandbox]\nlimits = { processes = 3 }\n", "3 is out of range: give at least 8"},
		{"[sandbox]\nlimits = { open_files = -5 }\n", "-5 is out of range"},
		{"[sandbox]\nlimits = { memroy = \"1GiB\" }\n", "memroy"},
	} {
		for _, layer := range []string{"user", "project"} {
			user, project := tc.config, ""
			if layer == "project" {
				user, project = "", tc.config
			}
			cfg, ws, home := loadLayers(t, user, project)
			_, err := LoadSandbox(cfg, ws, home)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s layer %q: error %v, want one containing %q", layer, tc.config, err, tc.want)
			}
		}
	}
}
