package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLiftTaskParam(t *testing.T) {
	tests := []struct {
		name, in string
		changed  bool
		wantMeta string // the lifted _meta, when changed
	}{
		{"lifted", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":5}}}`, true, `{"io.reinharness/task-request":{"ttl":5}}`},
		{"meta kept", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{},"_meta":{"progressToken":7}}}`, true, `{"io.reinharness/task-request":{},"progressToken":7}`},
		{"no task", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task"}}`, false, ""},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"task":{}}}`, false, ""},
		{"method in a string", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"note":"tools/call","task":{}}}`, false, ""},
		{"garbage", `{"method":"tools/call","params":{"task":`, false, ""},
		{"params not an object", `{"method":"tools/call","params":["task"]}`, false, ""},
		{"meta not an object", `{"method":"tools/call","params":{"task":{},"_meta":"x"}}`, false, ""},
		{"batch", `[{"method":"tools/call","params":{"task":{}}}]`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := liftTaskParam([]byte(tt.in))
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v (out %s)", changed, tt.changed, out)
			}
			if !changed {
				if string(out) != tt.in {
					t.Errorf("unchanged input was rewritten: %s", out)
				}
				return
			}
			var msg struct {
				Params map[string]json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(out, &msg); err != nil {
				t.Fatal(err)
			}
			if _, ok := msg.Params["task"]; ok {
				t.Errorf("params.task is still there: %s", out)
			}
			if got := string(msg.Params["_meta"]); got != tt.wantMeta {
				t.Errorf("_meta = %s, want %s", got, tt.wantMeta)
			}
		})
	}
}

// TestLiftingReader reads lines through the lifting reader one byte at a
// time: task parameters are lifted, other lines pass byte for byte, a
// line longer than the inspection bound passes untouched, and a last line
// without a newline is kept.
func TestLiftingReader(t *testing.T) {
	long := `{"method":"tools/call","params":{"task":{},"pad":"` + strings.Repeat("x", maxLiftLine) + `"}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		long,
		`garbage "task" tools/call`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"task":{"ttl":1}}}`,
	}, "\n")
	out, err := io.ReadAll(iotest.OneByteReader(newLiftingReader(strings.NewReader(in))))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5", len(lines))
	}
	if strings.Contains(lines[0], `"task":`) || !strings.Contains(lines[0], metaTaskRequest) {
		t.Errorf("line 1 not lifted: %s", lines[0])
	}
	if lines[1] != `{"jsonrpc":"2.0","id":2,"method":"ping"}` || lines[3] != `garbage "task" tools/call` {
		t.Errorf("plain lines changed: %q, %q", lines[1], lines[3])
	}
	if lines[2] != long {
		t.Errorf("the over-long line was changed (len %d, want %d)", len(lines[2]), len(long))
	}
	if !strings.Contains(lines[4], metaTaskRequest) {
		t.Errorf("the last line (no newline) was not lifted: %s", lines[4])
	}
}

// FuzzLiftTaskParam: whatever comes in, lifting never panics, leaves
// unchanged input byte for byte, and produces valid JSON that has no
// params.task when it changes something.
func FuzzLiftTaskParam(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":5}}}`))
	f.Add([]byte(`{"method":"tools/call","params":{"task":null,"_meta":null}}`))
	f.Add([]byte(`{"method":"tools/call","params":{"task":1,"_meta":{"a":[1,{"b":"task"}]}}}`))
	f.Add([]byte(`[{"method":"tools/call"}] "task"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		out, changed := liftTaskParam(in)
		if !changed {
			if !bytes.Equal(out, orig) {
				t.Fatalf("unchanged input rewritten: %q -> %q", orig, out)
			}
			return
		}
		var msg struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(out, &msg); err != nil {
			t.Fatalf("lifted output is not JSON: %v (%q)", err, out)
		}
		if _, ok := msg.Params["task"]; ok {
			t.Fatalf("params.task survived: %q", out)
		}
		// Lifting the output again changes nothing.
		if _, again := liftTaskParam(out); again {
			t.Fatalf("lifting is not idempotent: %q", out)
		}
	})
}
