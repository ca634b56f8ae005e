package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/tool"
)

// FuzzParseMCPJSON: any .mcp.json either parses into valid servers or
// fails with one line naming the file, never panics, and never echoes a
// secret value.
func FuzzParseMCPJSON(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"fs":{"command":"npx","args":["-y","x"],"env":{"K":"${HOME}"}}}}`))
	f.Add([]byte(`{"mcpServers":{"w":{"type":"http","url":"https://h/mcp","headers":{"Authorization":"Bearer zzzzzzzz"}}}}`))
	f.Add([]byte(`{"mcpServers":{"a b":{}}}`))
	f.Add([]byte(`{"mcpServers":{"a":{"command":1}}}`))
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["${UNSET}"]}}}`))
	f.Add([]byte(`{"mcpServers": `))
	f.Add([]byte("\xff\xfe"))
	getenv := func(k string) string {
		if k == "HOME" {
			return "/home/u"
		}
		return ""
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := ParseMCPJSON(data, ".mcp.json", getenv)
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), ".mcp.json") {
				t.Fatalf("bad error: %q", err)
			}
			return
		}
		for _, sc := range servers {
			if err := sc.Validate(); err != nil {
				t.Fatalf("accepted an invalid server %q: %v", sc.Name, err)
			}
			for _, n := range exposedNames(sc.Name, []string{"tool"}) {
				if tool.ValidateName(n) != nil {
					t.Fatalf("server %q yields invalid tool name %q", sc.Name, n)
				}
			}
		}
	})
}

// FuzzParseSections runs arbitrary [mcp_servers] tables through the config
// loader: a valid server or one clear line, never a panic.
func FuzzParseSections(f *testing.F) {
	f.Add("[mcp_servers.fs]\ncommand = \"npx\"\nstartup_timeout = \"5s\"\n")
	f.Add("[mcp_servers.w]\nurl = \"http://127.0.0.1/mcp\"\ntransport = \"sse\"\ntool_timeout_sec = 2.5\n")
	f.Add("[mcp_servers.x]\nenv = { A = \"${B:-c}\" }\ncommand = \"y\"\nprobe_timeout = 1\n")
	f.Add("[mcp_servers]\nx = 1\n")
	f.Add("[mcp_servers.\"\"]\n")
	dir := f.TempDir()
	path := filepath.Join(dir, "config.toml")
	getenv := func(string) string { return "" }
	f.Fuzz(func(t *testing.T, body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(config.LoadOptions{File: path, Getenv: getenv})
		if err != nil {
			return // the config package's own errors, fuzzed there
		}
		servers, err := ParseSections(c.Sections("mcp_servers"), getenv)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		for _, sc := range servers {
			if err := sc.Validate(); err != nil {
				t.Fatalf("accepted an invalid server %q: %v", sc.Name, err)
			}
		}
	})
}

// FuzzStdioStream feeds arbitrary bytes to the stdio connection as a
// server's stdout: reading ends (EOF or a clear error) and never hangs or
// panics, and every message delivered is a decoded JSON-RPC message.
func FuzzStdioStream(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	f.Add([]byte("banner\n" + `{"jsonrpc":"2.0","method":"x"}` + "\r\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n[]\n"))
	f.Add([]byte(`{"result":{"t":"` + strings.Repeat("z", 300) + `"},"jsonrpc":"2.0","id":4}`))
	f.Add([]byte("\x00\x01\x02\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, w := pipeProcess(t)
		c := newStdioConn(p, 256, func(*process) {})
		go func() {
			_, _ = w.Write(data)
			w.Close()
		}()
		msgs, err := readAll(t, c)
		if err == nil {
			t.Fatal("reading ended without an error")
		}
		if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "not JSON-RPC") {
			t.Fatalf("unexpected error %v", err)
		}
		for _, m := range msgs {
			if m == nil {
				t.Fatal("nil message delivered")
			}
		}
	})
}

// FuzzTopLevelKeys checks the oversize scanner against encoding/json: on
// a complete object it finds the same top-level keys in order.
func FuzzTopLevelKeys(f *testing.F) {
	f.Add([]byte(`{"a":1,"id":2,"b":{"id":3}}`))
	f.Add([]byte(`{"id":"x\"y","result":[1,{"k":"v"}]}`))
	f.Add([]byte(`{"\u0069d":5}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, id := topLevelKeys(data)
		if id != nil && !json.Valid(id) {
			t.Fatalf("id %q is not JSON", id)
		}
		var obj map[string]json.RawMessage
		if !json.Valid(data) || json.Unmarshal(data, &obj) != nil || obj == nil {
			return
		}
		want := jsonKeys(t, data)
		if !slicesEqual(keys, want) {
			t.Fatalf("keys %q, encoding/json says %q", keys, want)
		}
	})
}

// jsonKeys lists the top-level keys of a JSON object in order.
func jsonKeys(t *testing.T, data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzExpand: expansion never panics, and without "${" the input is kept.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${A}", "x${B:-y}z", "${", "$${A}", "${A:-${B}}", "plain"} {
		f.Add(s)
	}
	getenv := func(k string) string {
		if k == "A" {
			return "1"
		}
		return ""
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := expand(s, getenv)
		if !strings.Contains(s, "${") && (err != nil || got != s) {
			t.Fatalf("expand(%q) = %q, %v; want it unchanged", s, got, err)
		}
	})
}

// FuzzRenderResult renders any tools/call result the SDK decodes: never a
// panic, and valid UTF-8 out of valid JSON in.
func FuzzRenderResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"a":1}}`))
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"x","blob":"AAAA"}},{"type":"resource_link","uri":"u","name":"n"}],"isError":true}`))
	f.Add([]byte(`{"content":[{"type":"audio","data":"","mimeType":""}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var res sdk.CallToolResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		out := renderResult(&res)
		if !utf8.ValidString(out.Content) {
			t.Fatalf("invalid UTF-8 rendered from %q", data)
		}
		if out.Structured != nil && !json.Valid(out.Structured) {
			t.Fatalf("structured content is not JSON: %q", out.Structured)
		}
	})
}
