package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConformance builds this fixture and runs the official conformance
// suite's client scenarios against it for each required revision. Exit
// status 0 means every scenario the revision requires passed; the counts
// are logged for the record. The suite's servers are pinned to 127.0.0.1
// by the loopback shim preloaded into Node.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a while; skipped in -short mode")
	}
	dir := os.Getenv("REIN_INTEROP_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "testdata", "interop")
	}
	dir, _ = filepath.Abs(dir)
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	suite := filepath.Join(dir, "node_modules", ".bin", "conformance")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			msg := "INTEROP PEER MISSING: " + p + " (run scripts/test, or npm ci --prefix testdata/interop)"
			if os.Getenv("REIN_REQUIRE_INTEROP") == "1" {
				t.Fatal(msg)
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
	shim, err := filepath.Abs(filepath.Join("..", "..", "testdata", "loopback.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "rein-conformance-client")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the client fixture: %v\n%s", err, out)
	}
	// The auth/ scenarios run twice: through the library, and through the
	// command line's sign-in (rein mcp login, rein mcp call --login).
	rein := filepath.Join(t.TempDir(), "rein")
	build = exec.Command("go", "build", "-o", rein, "../../../cmd/rein")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building rein: %v\n%s", err, out)
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		for _, mode := range []string{"library", "cli"} {
			t.Run(rev+"/"+mode, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, node, "--import", shim, suite, "client",
					"--command", bin, "--requirements", rev, "--timeout", "120000", "--output-dir", t.TempDir())
				cmd.Dir = t.TempDir()
				if mode == "cli" {
					cmd.Env = append(os.Environ(), cliEnv+"="+rein)
				}
				out, err := cmd.CombinedOutput()
				summary := summarize(string(out))
				t.Logf("conformance client --requirements %s (%s): %s; %s", rev, mode, summary, authSummary(string(out)))
				if err != nil {
					t.Fatalf("suite failed (%v); scenarios:\n%s", err, scenarioLines(string(out)))
				}
			})
		}
	}
}

// authSummary counts the auth/ scenarios that passed, extension ones
// (not required by any revision) apart.
func authSummary(out string) string {
	passed, total := 0, 0
	for _, m := range scenarioRE.FindAllStringSubmatch(out, -1) {
		if !strings.HasPrefix(m[2], "auth/") || extensionAuth[m[2]] {
			continue
		}
		total++
		if m[1] == "✓" {
			passed++
		}
	}
	return strconv.Itoa(passed) + "/" + strconv.Itoa(total) + " auth scenarios passed (extensions aside)"
}

// extensionAuth are the suite's auth extension scenarios (client
// credentials, DPoP, enterprise-managed, workload identity), which rein
// does not implement and no revision requires.
var extensionAuth = map[string]bool{
	"auth/client-credentials-jwt": true, "auth/client-credentials-basic": true, "auth/enterprise-managed-authorization": true,
	"auth/dpop": true, "auth/dpop-nonce": true, "auth/wif-jwt-bearer": true,
}

var (
	totalRE    = regexp.MustCompile(`(?m)^Total: (\d+) passed, (\d+) failed`)
	scenarioRE = regexp.MustCompile(`(?m)^([✓✗]) (\S+): (\d+) passed, (\d+) failed`)
	notScored  = regexp.MustCompile(`(?m)^  [✓✗] (\S+) \(`)
)

// summarize reports the required scenarios passed and the check counts.
func summarize(out string) string {
	skip := map[string]bool{}
	for _, m := range notScored.FindAllStringSubmatch(out, -1) {
		skip[m[1]] = true
	}
	req, reqPass := 0, 0
	for _, m := range scenarioRE.FindAllStringSubmatch(out, -1) {
		if skip[m[2]] {
			continue
		}
		req++
		if m[1] == "✓" {
			reqPass++
		}
	}
	checks := "no totals found"
	if m := totalRE.FindStringSubmatch(out); m != nil {
		checks = m[1] + " checks passed, " + m[2] + " failed (all scenarios, including " + strconv.Itoa(len(skip)) + " not scored)"
	}
	return strconv.Itoa(reqPass) + "/" + strconv.Itoa(req) + " required scenarios passed; " + checks
}

func scenarioLines(out string) string {
	var b strings.Builder
	for _, m := range scenarioRE.FindAllString(out, -1) {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	return b.String()
}
