package cli

import (
	"slices"
	"testing"
)

// TestMCPServersGetTheAppsEnvironment checks that MCP servers inherit the
// App's environment (it was os.Environ() whatever the App was given), and
// rein's own when the App lists none (as hooks do).
func TestMCPServersGetTheAppsEnvironment(t *testing.T) {
	t.Setenv("REIN_TEST_PROCESS_ONLY", "from-the-process")
	a := &App{Getenv: func(string) string { return "" }, Environ: func() []string { return []string{"ONLY_THIS=1"} }}
	if got := a.mcpConfig(nil, t.TempDir(), nil).Environ; !slices.Equal(got, []string{"ONLY_THIS=1"}) {
		t.Errorf("servers' environment = %q; want the App's", got)
	}
	bare := &App{Getenv: func(string) string { return "" }}
	if got := bare.mcpConfig(nil, t.TempDir(), nil).Environ; got != nil {
		t.Errorf("an App without an environment gives servers %q; want nil (rein's own, as for hooks)", got)
	}
}
