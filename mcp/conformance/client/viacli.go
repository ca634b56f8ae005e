package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cliEnv names the rein binary that drives the auth/ scenarios when set:
// instead of the library, the fixture signs in with `rein mcp login` (its
// loopback redirect listener, its browser hand-off, its token store) and
// calls the protected tool with `rein mcp call --login`, so the suite
// judges the command line's sign-in. The fixture itself plays the
// browser (browseFlag).
const cliEnv = "REIN_CONFORMANCE_CLI"

// browseFlag makes the fixture the browser rein opens: it fetches the
// authorization URL and follows the redirect to rein's listener.
const browseFlag = "--browse"

// runAuthViaCLI is runAuth through the rein binary.
func runAuthViaCLI(ctx context.Context, f *fixture, rein string) error {
	dir, err := os.MkdirTemp("", "rein-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[mcp_servers.%s]\nurl = %q\ntransport = \"streamable\"\nstartup_timeout = \"30s\"\n", serverName, f.url)
	if f.version != "" {
		fmt.Fprintf(&cfg, "protocol_version = %q\n", f.version)
	}
	fmt.Fprintf(&cfg, "\n[mcp_servers.%s.oauth]\nclient_metadata_url = %q\n", serverName, "https://conformance-test.local/client-metadata.json")
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "REIN_BROWSER=" + self + " " + browseFlag}
	if id, ok := f.extra["client_id"].(string); ok {
		fmt.Fprintf(&cfg, "client_id = %q\n", id)
		if sec, ok := f.extra["client_secret"].(string); ok {
			fmt.Fprintf(&cfg, "client_secret_env_var = \"CONFORMANCE_CLIENT_SECRET\"\n")
			env = append(env, "CONFORMANCE_CLIENT_SECRET="+sec)
		}
	}
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o600); err != nil {
		return err
	}
	common := []string{"--config", cfgPath, "--state-dir", filepath.Join(dir, "state")}
	if err := runRein(ctx, rein, env, append([]string{"mcp", "login", serverName}, common...)...); err != nil {
		return err
	}
	return runRein(ctx, rein, env, append([]string{"mcp", "call", "--login", serverName, "test-tool", "{}"}, common...)...)
}

func runRein(ctx context.Context, rein string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, rein, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("rein %s: %w", strings.Join(args[:2], " "), err)
	}
	return nil
}

// browse is the fixture as rein's browser.
func browse(authURL string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	loc, err := authorizationRedirect(ctx, authURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance browser:", err)
		return 1
	}
	// Deliver the redirect to rein's listener, as a browser would.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance browser:", err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance browser:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "conformance browser: rein's listener answered "+strconv.Itoa(resp.StatusCode))
		return 1
	}
	return 0
}
