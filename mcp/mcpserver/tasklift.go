package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2025-11-25 client asks for a task with tools/call's task parameter,
// which the SDK's params type drops while decoding. The transports lift
// it into _meta (metaTaskRequest) before the SDK reads the message, where
// the task middleware finds it. Over stdio the lifting happens on the
// bytes read (so the SDK's own connection stays as it is); over HTTP on
// the request body.

// maxLiftLine bounds the stdio line inspected for a task parameter; a
// longer line passes through untouched (the SDK bounds it further).
const maxLiftLine = DefaultMaxRequestBytes

// liftTaskParam returns msg with a tools/call's params.task moved to
// params._meta[metaTaskRequest], and whether it changed anything. Any
// other message, or one it cannot parse, is returned as it was.
func liftTaskParam(msg []byte) ([]byte, bool) {
	if !bytes.Contains(msg, []byte(`"task"`)) || !bytes.Contains(msg, []byte(`tools/call`)) {
		return msg, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(msg, &obj) != nil {
		return msg, false
	}
	var method string
	if json.Unmarshal(obj["method"], &method) != nil || method != "tools/call" {
		return msg, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(obj["params"], &params) != nil || params == nil {
		return msg, false
	}
	taskParam, ok := params["task"]
	if !ok {
		return msg, false
	}
	var meta map[string]json.RawMessage
	if raw, ok := params["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return msg, false
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[metaTaskRequest] = taskParam
	delete(params, "task")
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return msg, false
	}
	if obj["params"], err = json.Marshal(params); err != nil {
		return msg, false
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return msg, false
	}
	return out, true
}

// liftingReader lifts task parameters out of newline-delimited JSON-RPC.
type liftingReader struct {
	r       *bufio.Reader
	pending []byte // bytes lifted but not yet read
	long    bool   // inside a line too long to inspect
}

func newLiftingReader(r io.Reader) *liftingReader {
	return &liftingReader{r: bufio.NewReaderSize(r, 64<<10)}
}

func (l *liftingReader) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if err := l.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// fill reads the next line (or, for an over-long line, the next chunk).
func (l *liftingReader) fill() error {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) && !l.long && len(line) < maxLiftLine:
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			l.long = true
			l.pending = line
			return nil
		case err != nil && len(line) == 0:
			return err
		}
		break
	}
	if l.long {
		l.long = false // the end of the long line: pass it through
		l.pending = line
		return nil
	}
	body := bytes.TrimRight(line, "\r\n")
	if lifted, ok := liftTaskParam(body); ok {
		if len(body) < len(line) {
			lifted = append(lifted, '\n')
		}
		line = lifted
	}
	l.pending = line
	return nil
}

// liftingTransport is an IOTransport whose input is lifted; the
// connection is handed to notes, if set, for task notifications.
type liftingTransport struct {
	*sdk.IOTransport
	notes *taskNotifier
}

func (t liftingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	t.IOTransport.Reader = io.NopCloser(newLiftingReader(t.IOTransport.Reader))
	c, err := t.IOTransport.Connect(ctx)
	if err == nil && t.notes != nil {
		t.notes.set(c)
	}
	return c, err
}

// connDoneKey carries a stdio connection's Done channel to the tasks
// started over it.
type connDoneKey struct{}

// Routing headers for the tasks methods (SEP-2663 extends SEP-2243's
// Mcp-Name to them: it names the task).
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// checkTaskHeaders refuses a 2026-07-28 tasks request whose Mcp-Name
// disagrees with its taskId, with HTTP 400 and HeaderMismatch (-32020),
// as SEP-2243 asks of a server that reads the body. It reports whether it
// answered.
func checkTaskHeaders(w http.ResponseWriter, r *http.Request, body []byte) bool {
	switch r.Header.Get(headerMethod) {
	case "tasks/get", "tasks/update", "tasks/cancel":
	default:
		return false
	}
	name := r.Header.Get(headerName)
	if name == "" {
		return false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Params.TaskID == bytesTrimOWS(name) {
		return false
	}
	if len(msg.ID) == 0 {
		msg.ID = json.RawMessage("null")
	}
	resp, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      msg.ID,
		"error": &jsonrpc.Error{Code: sdk.CodeHeaderMismatch,
			Message: "header mismatch: Mcp-Name header value '" + name + "' does not match body value '" + msg.Params.TaskID + "'"},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(resp)
	return true
}

// bytesTrimOWS drops the optional whitespace RFC 9110 allows around a
// field value.
func bytesTrimOWS(s string) string {
	return string(bytes.Trim([]byte(s), " \t"))
}
