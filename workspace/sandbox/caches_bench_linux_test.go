package sandbox_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace"
	"github.com/reinharness/rein/workspace/sandbox"
)

// BenchmarkGoTestCaches compares a repeated `go build && go test` of a
// small module on the host (its own warm GOCACHE) with the same command
// through workspace.Exec, the launch path of `rein run`'s run_command
// (namespaces+landlock), with the persistent caches (warm) and without
// them (a fresh private cache per session, as before). Each iteration
// runs both sides; "ratio" is sandbox time over host time.
//
//	go test -run '^$' -bench GoTestCaches -benchtime 5x ./workspace/sandbox/
func BenchmarkGoTestCaches(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip(err)
	}
	if _, err := sandbox.Namespaces(); err != nil {
		b.Skip(err)
	}
	mod := b.TempDir()
	writeModule(b, mod)
	const command = "go build ./... && go test -count=1 ./..."
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS="}
	hostCache := b.TempDir()
	host := func() time.Duration {
		start := time.Now()
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir, cmd.Env = mod, append(os.Environ(), append(env, "GOCACHE="+hostCache)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("host: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	for _, warm := range []bool{true, false} {
		name := "warm"
		if !warm {
			name = "nocache"
		}
		b.Run(name, func(b *testing.B) {
			state := b.TempDir()
			open := func() *workspace.Workspace {
				var c sandbox.Caches
				if warm {
					c = sandbox.Caches{Dir: sandbox.CacheDir(state, mod), Kinds: sandbox.CacheKinds}
					if err := c.Ensure(mod); err != nil {
						b.Fatal(err)
					}
				}
				ws, err := workspace.Open(mod, workspace.Options{Sandbox: sandbox.Required, SandboxCaches: c,
					SandboxHidden: []string{state}, Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				return ws
			}
			sandboxed := func() time.Duration {
				// A new session each time, as a second `rein run` is.
				ws := open()
				defer ws.Close()
				start := time.Now()
				res, err := ws.Exec(context.Background(), workspace.ExecOptions{Command: command, Env: env, Timeout: 5 * time.Minute})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("sandboxed: %v %+v", err, res)
				}
				return time.Since(start)
			}
			host()
			if warm {
				sandboxed() // the first run fills the caches
			}
			var h, s time.Duration
			for b.Loop() {
				h += host()
				s += sandboxed()
			}
			n := float64(b.N)
			b.ReportMetric(float64(h.Milliseconds())/n, "host-ms/op")
			b.ReportMetric(float64(s.Milliseconds())/n, "sandbox-ms/op")
			b.ReportMetric(float64(s)/float64(h), "ratio")
		})
	}
}

// writeModule writes a small module with no dependencies: two packages,
// one test each.
func writeModule(b *testing.B, dir string) {
	files := map[string]string{
		"go.mod":            "module example.com/small\n\ngo 1.22\n",
		"small.go":          "package small\n\nimport \"encoding/json\"\n\nfunc Encode(k, v string) string {\n\tb, _ := json.Marshal(map[string]string{k: v})\n\treturn string(b)\n}\n",
		"small_test.go":     "package small\n\nimport \"testing\"\n\nfunc TestEncode(t *testing.T) {\n\tif got := Encode(\"a\", \"b\"); got != `{\"a\":\"b\"}` {\n\t\tt.Fatal(got)\n\t}\n}\n",
		"util/util.go":      "package util\n\nimport \"strings\"\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"util/util_test.go": "package util\n\nimport \"testing\"\n\nfunc TestUp(t *testing.T) {\n\tif Up(\"a\") != \"A\" {\n\t\tt.Fatal()\n\t}\n}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
