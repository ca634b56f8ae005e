package host

import (
	"strings"
	"testing"
)

// TestSandboxNetwork: the network is off by default and on with the full
// preset; the user's [sandbox] network decides either way; a project may
// only turn it off.
func TestSandboxNetwork(t *testing.T) {
	tests := []struct {
		name, user, project, preset string
		want                        bool
		warning                     string
	}{
		{name: "default editor", preset: "editor", want: false},
		{name: "default full", preset: "full", want: true},
		{name: "user on", user: "[sandbox]\nnetwork = true\n", preset: "editor", want: true},
		{name: "user off beats full", user: "[sandbox]\nnetwork = false\n", preset: "full", want: false},
		{name: "project off", user: "[sandbox]\nnetwork = true\n", project: "[sandbox]\nnetwork = false\n", preset: "editor", want: false},
		{name: "project off beats full", project: "[sandbox]\nnetwork = false\n", preset: "full", want: false},
		{name: "project on ignored", project: "[sandbox]\nnetwork = true\n", preset: "editor", want: false, warning: "sandbox.network = true ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ws, home := loadLayers(t, tt.user, tt.project)
			s, err := LoadSandbox(cfg, ws, home)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.AllowNetwork(tt.preset); got != tt.want {
				t.Errorf("allowNetwork(%q) = %v, want %v", tt.preset, got, tt.want)
			}
			switch {
			case tt.warning == "" && len(s.Warnings) != 0:
				t.Errorf("warnings %q", s.Warnings)
			case tt.warning != "" && (len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tt.warning)):
				t.Errorf("warnings %q, want one with %q", s.Warnings, tt.warning)
			}
		})
	}
}
