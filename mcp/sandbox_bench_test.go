package mcp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinharness/rein/workspace"
)

// BenchmarkStdioStart measures starting a stdio server, the initialize
// handshake and tools/list, then stopping it: directly, and inside the
// workspace's sandbox as rein starts every stdio server. The server is
// this test binary (a go-sdk fixture), copied into the workspace so the
// sandbox's private /tmp does not hide it.
func BenchmarkStdioStart(b *testing.B) {
	ws := b.TempDir()
	server := filepath.Join(ws, "server")
	copyExe(b, server)
	w, err := workspace.Open(ws, workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	confine := func(ServerConfig) (Confinement, error) {
		pol, err := w.SandboxPolicy(false, "")
		if err != nil {
			return Confinement{}, err
		}
		env, err := w.SandboxEnv(nil, false)
		return Confinement{Policy: pol, Env: env}, err
	}
	for _, c := range []struct {
		name    string
		confine func(ServerConfig) (Confinement, error)
	}{{"unsandboxed", nil}, {"sandboxed", confine}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				m, err := New(Config{
					Servers: []ServerConfig{{Name: "bench", Command: server, Env: Secrets{"REIN_MCP_FIXTURE": "gosdk"}, Required: true}},
					Confine: c.confine, WorkDir: ws,
				})
				if err != nil {
					b.Fatal(err)
				}
				m.Start()
				if _, err := m.Tools(ctx); err != nil {
					b.Fatal(err)
				}
				m.Close()
				cancel()
			}
		})
	}
}

func copyExe(b *testing.B, dst string) {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	in, err := os.Open(exe)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
