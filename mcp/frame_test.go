package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// frames reads every frame of input with the given limit, rendering an
// oversized one as "OVERSIZE(size)".
func frames(t testing.TB, input string, limit int) []string {
	t.Helper()
	fr := newFrameReader(strings.NewReader(input), limit)
	var out []string
	for {
		line, over, err := fr.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if over != nil {
			out = append(out, "OVERSIZE("+strconv.FormatInt(over.size, 10)+")")
			continue
		}
		out = append(out, string(line))
	}
}

func TestFrameReader(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // spans several bufio fills
	for _, tc := range []struct {
		name  string
		in    string
		limit int
		want  []string
	}{
		{"lines", "a\nbb\n\nccc\n", 10, []string{"a", "bb", "", "ccc"}},
		{"crlf", "a\r\nb\r\n", 10, []string{"a", "b"}},
		{"no final newline", "a\nlast", 10, []string{"a", "last"}},
		{"exactly the limit", "12345\n", 6, []string{"12345"}},
		{"over the limit", "short\n" + strings.Repeat("y", 30) + "\nafter\n", 10, []string{"short", "OVERSIZE(30)", "after"}},
		{"long line within limit", big + "\nz\n", 300 << 10, []string{big, "z"}},
		{"long line over limit", big + "\r\nz\n", 100 << 10, []string{"OVERSIZE(204800)", "z"}},
		{"oversize at EOF", strings.Repeat("q", 100<<10), 10, []string{"OVERSIZE(102400)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, frames(t, tc.in, tc.limit)); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOversizeEdges(t *testing.T) {
	payload := strings.Repeat("p", 300<<10)
	line := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + payload + `"}]}}`
	fr := newFrameReader(strings.NewReader(line+"\n"), 64<<10)
	_, over, err := fr.next()
	if err != nil || over == nil {
		t.Fatalf("next = %v, %v; want an oversize frame", over, err)
	}
	if over.size != int64(len(line)) || !bytes.HasPrefix([]byte(line), over.head) || !bytes.HasSuffix([]byte(line), over.tail) {
		t.Errorf("size %d (want %d), head %q…, tail …%q", over.size, len(line), over.head[:20], over.tail[len(over.tail)-20:])
	}
	if id, ok := over.responseID(); !ok || string(id) != "7" {
		t.Errorf("responseID = %s, %v; want 7", id, ok)
	}
}

func TestResponseID(t *testing.T) {
	pad := strings.Repeat("z", 5000)
	for _, tc := range []struct {
		name, frame string
		want        string // "" = none
	}{
		{"id first", `{"jsonrpc":"2.0","id":12,"result":{"x":"` + pad + `"}}`, "12"},
		{"id last (TypeScript order)", `{"result":{"x":"` + pad + `"},"jsonrpc":"2.0","id":"abc"}`, `"abc"`},
		{"error response", `{"jsonrpc":"2.0","error":{"code":1,"message":"` + pad + `"},"id":-3}`, "-3"},
		{"request", `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"` + pad + `"}}`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"` + pad + `"}}`, ""},
		{"nested id is not the id", `{"result":{"id":99,"x":"` + pad + `"}}`, ""},
		{"nested id at the end", `{"result":{"x":"` + pad + `","id":99}}`, ""},
		{"escaped id in text", `{"result":{"text":"` + pad + `\"id\":5}"}}`, ""},
		{"garbage", "\x00\xff" + pad, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := newFrameReader(strings.NewReader(tc.frame), 1024)
			_, over, _ := fr.next()
			if over == nil {
				t.Fatal("not oversized")
			}
			id, ok := over.responseID()
			if got := string(id); ok != (tc.want != "") || got != tc.want {
				t.Errorf("responseID = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestTopLevelKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keys []string
		id   string
	}{
		{`{"a":1,"id":2,"b":{"id":3},"c":[{"id":4}]}`, []string{"a", "id", "b", "c"}, "2"},
		{`{"id":"x\"y","result":`, []string{"id", "result"}, `"x\"y"`},
		{`{"id":null}`, []string{"id"}, ""},
		{`{"id":1`, []string{"id"}, ""}, // the number may go on
		{`[1,2]`, nil, ""},
		{` { "k\u00e9" : true , "id" : 5 } `, []string{"ké", "id"}, "5"},
		{`{"a":` + strings.Repeat("[", 200), []string{"a"}, ""},
	} {
		keys, id := topLevelKeys([]byte(tc.in))
		if diff := cmp.Diff(tc.keys, keys); diff != "" || string(id) != tc.id {
			t.Errorf("topLevelKeys(%.40q) = %v, %s; want %v, %s", tc.in, keys, id, tc.keys, tc.id)
		}
	}
}

// pipeProcess is a process whose stdout the test writes: a stdio server
// without a program, for testing the connection's read side.
func pipeProcess(t testing.TB) (*process, *os.File) {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(outR, outW, inR, inW) })
	p := &process{cmd: &exec.Cmd{}, stdin: inW, stdout: outR, stderr: newTail(stderrTailBytes), exited: make(chan struct{}), stderrDone: make(chan struct{})}
	close(p.exited)
	close(p.stderrDone)
	return p, outW
}

// readAll reads messages from conn until an error, with a deadline.
func readAll(t testing.TB, c *stdioConn) ([]jsonrpc.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var msgs []jsonrpc.Message
	for {
		m, err := c.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("the connection hung")
			}
			return msgs, err
		}
		msgs = append(msgs, m)
	}
}

func TestStdioConnRead(t *testing.T) {
	long := strings.Repeat("L", 4096)
	for _, tc := range []struct {
		name    string
		stdout  string
		limit   int
		msgs    int
		errText string // "" = clean EOF
	}{
		{"messages", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/x"}` + "\n", 1 << 20, 2, ""},
		{"banner tolerated", "Server starting...\n\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", 1 << 20, 1, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]` + "\n", 1 << 20, 2, ""},
		{"too many text lines", strings.Repeat("log line\n", maxNoiseLines+1), 1 << 20, 0, `not JSON-RPC to stdout (9 line(s), first "log line")`},
		{"binary garbage", "\x00\x01\x02garbage\n", 1 << 20, 0, "not JSON-RPC"},
		{"json but not json-rpc", strings.Repeat(`{"hello":1}`+"\n", maxNoiseLines+1), 1 << 20, 0, "not JSON-RPC"},
		{"oversized response answered", `{"jsonrpc":"2.0","id":5,"result":{"t":"` + long + `"}}` + "\n", 1024, 1, ""},
		{"oversized notification dropped", `{"jsonrpc":"2.0","method":"n","params":{"t":"` + long + `"}}` + "\n", 1024, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, w := pipeProcess(t)
			c := newStdioConn(p, tc.limit, func(*process) {})
			go func() {
				_, _ = w.WriteString(tc.stdout)
				w.Close()
			}()
			msgs, err := readAll(t, c)
			if len(msgs) != tc.msgs {
				t.Errorf("got %d messages, want %d", len(msgs), tc.msgs)
			}
			if tc.errText == "" {
				if !errors.Is(err, io.EOF) {
					t.Errorf("err = %v, want EOF", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("err = %v, want %q", err, tc.errText)
			}
		})
	}
}

func TestStdioConnTooLargeResponse(t *testing.T) {
	p, w := pipeProcess(t)
	c := newStdioConn(p, 1024, func(*process) {})
	go func() {
		_, _ = w.WriteString(`{"result":{"t":"` + strings.Repeat("x", 3000) + `"},"jsonrpc":"2.0","id":9}` + "\n")
		w.Close()
	}()
	msgs, _ := readAll(t, c)
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want the substituted error response", len(msgs))
	}
	resp, ok := msgs[0].(*jsonrpc.Response)
	if !ok || resp.Error == nil || !strings.Contains(resp.Error.Error(), "more than rein's limit of 1.0 KiB") {
		t.Errorf("message = %#v, want an error response naming the limit", msgs[0])
	}
	if id, _ := jsonrpc.MakeID(float64(9)); ok && resp.ID != id {
		t.Errorf("id = %v, want 9", resp.ID)
	}
}

func TestTailBuffer(t *testing.T) {
	tb := newTail(16)
	_, _ = tb.Write([]byte("first line\nsecond line\nthird\n"))
	if got := tb.String(); got != "third" {
		t.Errorf("tail = %q, want the last whole line %q", got, "third")
	}
	tb = newTail(64)
	_, _ = tb.Write([]byte("ok\x1b[31m red \xff\n"))
	if got := tb.String(); got != "ok\uFFFD[31m red \uFFFD" {
		t.Errorf("tail = %q, want control bytes and invalid UTF-8 replaced", got)
	}
	if got := lastLines("a\n\nb\nc\nd\n", 2); got != "c | d" {
		t.Errorf("lastLines = %q", got)
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
