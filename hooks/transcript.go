package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/model"
)

// Transcript is an agent.Hook that writes a session's transcript as JSON
// lines, the file hooks receive as transcript_path. Messages are written
// the way Claude Code's transcripts are — {"type": "user"|"assistant",
// "message": {"role", "content": [blocks]}} with text, tool_use and
// tool_result blocks — so scripts that read those work; tool decisions
// and the run's start and end are lines of their own, with a "type"
// starting with "rein.". Secrets are redacted. The file is created with
// mode 0600 in a directory of mode 0700.
//
// A Transcript is safe for concurrent use. A failure to write is logged
// once per session and never stops the run.
type Transcript struct {
	dir string
	log *slog.Logger

	mu     sync.Mutex
	failed map[string]bool
}

// NewTranscript returns a Transcript writing into dir (see
// TranscriptPath); logger may be nil.
func NewTranscript(dir string, logger *slog.Logger) *Transcript {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Transcript{dir: dir, log: logger, failed: map[string]bool{}}
}

// transcriptLine is one line of the transcript.
type transcriptLine struct {
	Type      string          `json:"type"`
	SessionID string          `json:"session_id"`
	Timestamp string          `json:"timestamp"`
	Message   *transcriptMsg  `json:"message,omitempty"`
	Decision  *agent.Decision `json:"decision,omitempty"`
	Outcome   *agent.Outcome  `json:"outcome,omitempty"`
}

type transcriptMsg struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

// OnEvent implements agent.Hook.
func (t *Transcript) OnEvent(_ context.Context, ev agent.Event) {
	line, ok := transcriptFor(ev)
	if !ok || ev.RunID == "" {
		return
	}
	data, err := redactedJSON(line)
	if err != nil {
		return
	}
	data = append(data, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.appendLine(ev.RunID, data); err != nil && !t.failed[ev.RunID] {
		t.failed[ev.RunID] = true
		t.log.Warn("hooks: cannot write the session transcript", "error", err)
	}
}

func (t *Transcript) appendLine(sessionID string, data []byte) error {
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(TranscriptPath(t.dir, sessionID), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

// transcriptFor returns the line an event is written as, if any.
func transcriptFor(ev agent.Event) (transcriptLine, bool) {
	line := transcriptLine{SessionID: ev.RunID, Timestamp: ev.Time.UTC().Format(time.RFC3339Nano)}
	switch ev.Type {
	case agent.EventMessage:
		if ev.Message == nil {
			return line, false
		}
		line.Type, line.Message = messageLine(*ev.Message)
	case agent.EventToolDecision:
		line.Type, line.Decision = "rein.tool_decision", ev.Decision
	case agent.EventSessionStarted:
		line.Type = "rein.session_started"
	case agent.EventSessionCompleted:
		line.Type, line.Outcome = "rein.session_completed", ev.Outcome
	default:
		return line, false
	}
	return line, true
}

// messageLine renders a message as Claude Code's transcripts do: tool
// results are content of a "user" line.
func messageLine(m model.Message) (string, *transcriptMsg) {
	role := string(m.Role)
	typ := role
	if m.Role == model.RoleTool {
		typ, role = "user", "user"
	}
	msg := &transcriptMsg{Role: role, Content: []json.RawMessage{}}
	for _, p := range m.Parts {
		var block any
		switch p.Kind {
		case model.PartText:
			block = map[string]any{"type": "text", "text": p.Text}
		case model.PartReasoning:
			block = map[string]any{"type": "thinking", "thinking": p.Text}
		case model.PartToolCall:
			if p.ToolCall == nil {
				continue
			}
			block = map[string]any{"type": "tool_use", "id": p.ToolCall.ID, "name": ClaudeName(p.ToolCall.Name),
				"rein_name": p.ToolCall.Name, "input": validJSON(p.ToolCall.Args)}
		case model.PartToolResult:
			if p.ToolResult == nil {
				continue
			}
			block = map[string]any{"type": "tool_result", "tool_use_id": p.ToolResult.CallID,
				"content": p.ToolResult.Content, "is_error": p.ToolResult.IsError}
		default:
			block = map[string]any{"type": fmt.Sprint(p.Kind)}
		}
		data, err := json.Marshal(block)
		if err == nil {
			msg.Content = append(msg.Content, data)
		}
	}
	return typ, msg
}

// redactedJSON encodes v with secrets redacted from every string in it
// (keys included). Redacting the encoded text instead could cut an
// escape sequence in half and leave a line that is not JSON.
func redactedJSON(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	return json.Marshal(redactTree(tree))
}

func redactTree(v any) any {
	switch x := v.(type) {
	case string:
		return secret.Redact(x)
	case []any:
		for i := range x {
			x[i] = redactTree(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[secret.Redact(k)] = redactTree(val)
		}
		return out
	}
	return v
}
