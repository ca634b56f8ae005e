package mcp

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/internal/secret"
)

func TestTrustStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", TrustFile)
	store := OpenTrust(path)
	ws := t.TempDir()
	user := ServerConfig{Name: "mine", Command: "my-server", Source: "/home/u/.config/rein/config.toml:3"}
	proj := ServerConfig{Name: "repo", Command: "node", Args: []string{"server.js"}, Env: Secrets{"TOKEN": "s3cret-value"},
		Source: ws + "/.mcp.json:4", Project: true}

	if !store.Trusted(user, ws) {
		t.Error("a server the user configured must always be trusted")
	}
	if st := store.Status(proj, ws); st.Trusted || st.Known {
		t.Errorf("a workspace-defined server must not be trusted before the user trusts it: %+v", st)
	}
	trusted, untrusted, _ := store.SplitTrusted([]ServerConfig{user, proj}, ws)
	if len(trusted) != 1 || trusted[0].Name != "mine" || len(untrusted) != 1 || untrusted[0].Server.Name != "repo" {
		t.Fatalf("SplitTrusted = %v, %v", trusted, untrusted)
	}
	if _, err := store.Trust(proj, ws); err != nil {
		t.Fatal(err)
	}
	if !OpenTrust(path).Trusted(proj, ws) {
		t.Error("a trusted server is not trusted after reopening the store")
	}
	moved := proj
	moved.Source = ws + "/.mcp.json:9" // the entry moved within the file
	if !store.Trusted(moved, ws) {
		t.Error("moving the entry within its file must keep the trust")
	}

	// Any change to what runs asks again.
	for name, change := range map[string]func(*ServerConfig){
		"command": func(s *ServerConfig) { s.Command = "bash" },
		"args":    func(s *ServerConfig) { s.Args = []string{"-c", "curl evil | sh"} },
		"env":     func(s *ServerConfig) { s.Env = Secrets{"TOKEN": "other", "LD_PRELOAD": "x.so"} },
		"cwd":     func(s *ServerConfig) { s.Cwd = "/tmp" },
		"url":     func(s *ServerConfig) { s.URL = "http://127.0.0.1:1/mcp" },
		"file":    func(s *ServerConfig) { s.Source = "/other/.mcp.json:4" },
	} {
		c := proj
		c.Args = append([]string(nil), proj.Args...)
		change(&c)
		if store.Trusted(c, ws) {
			t.Errorf("changing the %s kept the trust", name)
		}
	}
	// server.js was absent when trusted: a file appearing there asks again.
	writeFile(t, filepath.Join(ws, "server.js"), "evil()")
	if st := store.Status(proj, ws); st.Trusted || !slices.Equal(st.Changed, []string{"server.js"}) {
		t.Errorf("a script appearing where the trusted one was missing: %+v", st)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cret-value") || strings.Contains(string(data), "TOKEN") || strings.Contains(string(data), "node") {
		t.Errorf("the trust store holds configuration in clear:\n%s", data)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTrustPinsContent checks that trusting a server pins the workspace
// files it runs: a change to any of them, its disappearance, or a symlink
// swapped in asks again; files outside the workspace are not pinned.
func TestTrustPinsContent(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(ws, "srv.py"), "print('hi')\n")
	writeFile(t, filepath.Join(ws, "conf", "srv.json"), "{}\n")
	writeFile(t, filepath.Join(ws, "bin", "run.sh"), "#!/bin/sh\nexec python3 srv.py\n")
	writeFile(t, filepath.Join(ws, "pkg", "mod", "__main__.py"), "main()\n")
	writeFile(t, filepath.Join(outside, "lib.py"), "x\n")
	if err := os.Symlink(filepath.Join(outside, "lib.py"), filepath.Join(ws, "lib.py")); err != nil {
		t.Fatal(err)
	}
	store := OpenTrust(filepath.Join(t.TempDir(), TrustFile))
	servers := map[string]ServerConfig{
		"script":  {Name: "script", Command: "python3", Args: []string{"-u", "srv.py", "--config=conf/srv.json", "--port", "8080"}},
		"command": {Name: "command", Command: "./bin/run.sh"},
		"cwd":     {Name: "cwd", Command: "sh", Args: []string{"run.sh"}, Cwd: "bin"},
		"module":  {Name: "module", Command: "python3.12", Args: []string{"-m", "pkg.mod"}},
		"abs":     {Name: "abs", Command: "node", Args: []string{filepath.Join(ws, "srv.py")}},
		"outside": {Name: "outside", Command: "python3", Args: []string{"lib.py", filepath.Join(outside, "lib.py")}},
		"shell":   {Name: "shell", Command: "bash", Args: []string{"-c", "cd bin && exec sh ./run.sh --config=x;python3 srv.py"}},
	}
	wantFiles := map[string][]string{
		"script":  {"conf/srv.json", "srv.py"},
		"command": {"bin/run.sh"},
		"cwd":     {"bin/run.sh"},
		"module":  {"pkg/mod/__main__.py"},
		"abs":     {"srv.py"},
		"outside": nil,
		"shell":   {"srv.py"}, // ./run.sh is relative to bin only after cd
	}
	for name, sc := range servers {
		sc.Project, sc.Source = true, ws+"/.mcp.json:1"
		servers[name] = sc
		st, err := store.Trust(sc, ws)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Files(); !slices.Equal(got, wantFiles[name]) {
			t.Errorf("%s pins files %q, want %q (pins %+v)", name, got, wantFiles[name], st.Pins)
		}
	}
	for name, sc := range servers {
		if !store.Trusted(sc, ws) {
			t.Errorf("%s is not trusted right after trusting it: %+v", name, store.Status(sc, ws))
		}
	}
	files := PinnedFiles(slices.Collect(maps.Values(servers)), store, ws)
	var rel []string
	for _, f := range files {
		rel = append(rel, relSlash(ws, f))
	}
	if want := []string{"bin/run.sh", "conf/srv.json", "pkg/mod/__main__.py", "srv.py"}; !slices.Equal(rel, want) {
		t.Errorf("PinnedFiles = %q, want %q", rel, want)
	}

	// The outside symlink's target may change without asking (it is not
	// the workspace's), but not where it leads.
	writeFile(t, filepath.Join(outside, "lib.py"), "y\n")
	if !store.Trusted(servers["outside"], ws) {
		t.Error("a change outside the workspace unpinned the server")
	}
	os.Remove(filepath.Join(ws, "lib.py"))
	if err := os.Symlink(filepath.Join(ws, "srv.py"), filepath.Join(ws, "lib.py")); err != nil {
		t.Fatal(err)
	}
	if st := store.Status(servers["outside"], ws); st.Trusted || !slices.Equal(st.Changed, []string{"lib.py"}) {
		t.Errorf("a symlink redirected into the workspace kept the trust: %+v", st)
	}

	// A content change asks again and names the file; so does removal.
	writeFile(t, filepath.Join(ws, "srv.py"), "import os; os.system('evil')\n")
	for _, name := range []string{"script", "abs"} {
		if st := store.Status(servers[name], ws); st.Trusted || !st.Known || !slices.Equal(st.Changed, []string{"srv.py"}) {
			t.Errorf("%s after srv.py changed: %+v", name, st)
		}
	}
	if !store.Trusted(servers["command"], ws) {
		t.Error("a change to a file the server does not run unpinned it")
	}
	os.Remove(filepath.Join(ws, "pkg", "mod", "__main__.py"))
	if st := store.Status(servers["module"], ws); st.Trusted || !slices.Equal(st.Changed, []string{"pkg/mod/__main__.py"}) {
		t.Errorf("module after its file vanished: %+v", st)
	}
	// A pinned file turned into a symlink to elsewhere asks again.
	os.Remove(filepath.Join(ws, "bin", "run.sh"))
	if err := os.Symlink(filepath.Join(outside, "lib.py"), filepath.Join(ws, "bin", "run.sh")); err != nil {
		t.Fatal(err)
	}
	if st := store.Status(servers["command"], ws); st.Trusted || !slices.Equal(st.Changed, []string{"bin/run.sh"}) {
		t.Errorf("command after its file became a symlink out: %+v", st)
	}
	// Trusting again accepts the new contents.
	if _, err := store.Trust(servers["script"], ws); err != nil {
		t.Fatal(err)
	}
	if !store.Trusted(servers["script"], ws) {
		t.Error("trusting again did not accept the new contents")
	}
	// Untrusted servers contribute nothing to PinnedFiles.
	for _, f := range PinnedFiles([]ServerConfig{servers["module"], servers["command"]}, store, ws) {
		t.Errorf("PinnedFiles of untrusted servers lists %s", f)
	}
}

// TestTrustLegacyRecord checks that a record from before file pinning
// still trusts a server that runs no workspace file, and asks again for
// one that does.
func TestTrustLegacyRecord(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "srv.py"), "x\n")
	pkg := ServerConfig{Name: "pkg", Command: "npx", Args: []string{"-y", "some-server"}, Source: ws + "/.mcp.json:1", Project: true}
	script := ServerConfig{Name: "script", Command: "python3", Args: []string{"srv.py"}, Source: ws + "/.mcp.json:2", Project: true}
	path := filepath.Join(t.TempDir(), TrustFile)
	writeFile(t, path, `{"trusted": ["`+Fingerprint(pkg)+`", "`+Fingerprint(script)+`"]}`)
	store := OpenTrust(path)
	if !store.Trusted(pkg, ws) {
		t.Errorf("an old record of a server running no workspace file: %+v", store.Status(pkg, ws))
	}
	if st := store.Status(script, ws); st.Trusted || !st.Known || !st.Unpinned || !slices.Equal(st.Files(), []string{"srv.py"}) {
		t.Errorf("an old record of a server running srv.py: %+v", st)
	}
	if _, err := store.Trust(script, ws); err != nil {
		t.Fatal(err)
	}
	if !store.Trusted(script, ws) || !store.Trusted(pkg, ws) {
		t.Error("re-trusting lost a record")
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), Fingerprint(script)) != 1 {
		t.Errorf("the re-trusted server is recorded twice:\n%s", data)
	}
}

// TestPinCaps checks the bounds: at most MaxPinnedFiles paths, and a file
// larger than MaxPinnedFileBytes pinned by its first bytes, size and
// modification time.
func TestPinCaps(t *testing.T) {
	ws := t.TempDir()
	var args []string
	for i := range MaxPinnedFiles + 10 {
		args = append(args, "f"+strconv.Itoa(i))
	}
	pins, truncated := PinFiles(ServerConfig{Command: "x", Args: args}, ws)
	if !truncated || len(pins) > MaxPinnedFiles {
		t.Errorf("%d arguments pinned %d paths (truncated %v), want at most %d", len(args), len(pins), truncated, MaxPinnedFiles)
	}

	big := filepath.Join(ws, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxPinnedFileBytes + 10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sc := ServerConfig{Name: "big", Command: "x", Args: []string{"big.bin"}, Source: ws + "/.mcp.json:1", Project: true}
	store := OpenTrust(filepath.Join(t.TempDir(), TrustFile))
	st, err := store.Trust(sc, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pins) != 1 || !st.Pins[0].Partial || st.Pins[0].Size != MaxPinnedFileBytes+10 {
		t.Fatalf("pins of a large file: %+v", st.Pins)
	}
	// A change past the hashed prefix is caught by the size or the time.
	f, err = os.OpenFile(big, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("tail"), MaxPinnedFileBytes+2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(big, later, later); err != nil {
		t.Fatal(err)
	}
	if store.Trusted(sc, ws) {
		t.Error("a change past the hashed prefix of a large file kept the trust")
	}
}

func TestTrustStoreGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), TrustFile)
	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := OpenTrust(path)
	proj := ServerConfig{Name: "repo", Command: "x", Project: true}
	if st := store.Status(proj, t.TempDir()); st.Trusted || st.Err == nil {
		t.Errorf("an unreadable store must trust nothing: %+v", st)
	}
	_, err := store.Trust(proj, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "move it aside") {
		t.Errorf("Trust on a garbage store = %v, want a clear error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "not json" {
		t.Errorf("the unreadable store was overwritten: %q", data)
	}
}

// TestServerSecretsRegistered checks that header, environment and bearer
// values of configured servers are known to rein's redactor, so the
// session store, the event log and error lines hide them too.
func TestServerSecretsRegistered(t *testing.T) {
	m, err := New(Config{
		Servers: []ServerConfig{
			{Name: "web", URL: "http://127.0.0.1:1/mcp", Headers: Secrets{"X-Api-Token": "hdr-value-4711"}, BearerTokenEnvVar: "WEB_TOKEN"},
			{Name: "cmd", Command: "true", Env: Secrets{"DB_PASS": "env-value-4712"}},
		},
		Getenv: func(k string) string {
			if k == "WEB_TOKEN" {
				return "bearer-value-4713"
			}
			return ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, v := range []string{"hdr-value-4711", "env-value-4712", "bearer-value-4713"} {
		if got := secret.Redact("seen " + v + " here"); strings.Contains(got, v) {
			t.Errorf("secret.Redact left %q in %q", v, got)
		}
	}
}
