package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/textclip"
)

// Input formats of `rein run`.
const (
	inputText       = "text"
	inputStreamJSON = "stream-json"
)

// streamUserLine is one line of --input-format stream-json: a user
// message in Claude Code's shape,
//
//	{"type":"user","message":{"role":"user","content":"…"}}
//
// where content is a string or a list of text blocks
// ([{"type":"text","text":"…"}], the Messages API form).
type streamUserLine struct {
	Type    string `json:"type"`
	Message *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// parseStreamInput returns the text of one input line. Anything but a
// user message with text content is refused with the reason: a driving
// program must learn at once that rein did not take a line, not find out
// from a conversation that silently skipped it.
func parseStreamInput(line []byte) (string, error) {
	var in streamUserLine
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&in); err != nil {
		return "", fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return "", errors.New("more than one JSON value on the line")
	}
	switch {
	case in.Type != "user":
		return "", fmt.Errorf("type is %q; only user messages are read", in.Type)
	case in.Message == nil:
		return "", errors.New(`no "message" object`)
	case in.Message.Role != "user":
		return "", fmt.Errorf("message role is %q, want user", in.Message.Role)
	}
	text, err := contentText(in.Message.Content)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the message is empty")
	}
	return text, nil
}

// contentText reads message content: a string, or text blocks joined by
// blank lines. Other blocks (images, tool results) are refused by type.
func contentText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var blocks []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", errors.New("message content must be a string or a list of text blocks")
	}
	parts := make([]string, 0, len(blocks))
	for i, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return "", fmt.Errorf("content block %d is of type %q; only text blocks are read", i+1, b.Type)
		}
		parts = append(parts, *b.Text)
	}
	return strings.Join(parts, "\n\n"), nil
}

// streamTurns runs one turn per stdin line on the same conversation, in
// order, until the input ends, a line is refused or a turn fails (a turn
// stopped by a limit or the policy lets the next line continue, as a chat
// does). Each turn's outcome is reported as it ends; the result is the
// last turn's exit status.
func (a *App) streamTurns(ctx context.Context, t streamTurn) error {
	lines := newLineSource(ctx, a.Stdin).lines()
	var status error
	for n := 1; ; n++ {
		var in inputLine
		var ok bool
		select {
		case <-ctx.Done():
			return status
		case in, ok = <-lines:
		}
		if !ok {
			if n == 1 {
				fmt.Fprintln(a.Stderr, "rein: no user message on stdin: send JSON lines such as {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}")
				return &exitError{code: ExitUsage}
			}
			return status
		}
		text := ""
		err := in.err
		if err == nil {
			text, err = parseStreamInput([]byte(in.text))
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "rein: stdin line %d: %s\n", n, textclip.FirstLine(err.Error()))
			return &exitError{code: ExitUsage}
		}
		out, runErr := t.turn(ctx, text)
		status = a.report(t.r, t.ex, t.cfg, out, runErr, nil)
		if out == nil || out.Kind == agent.Failed || ctx.Err() != nil {
			return status
		}
	}
}

// streamTurn is what one turn of streamTurns needs.
type streamTurn struct {
	r    renderer
	ex   *explainer
	cfg  *config.Config
	turn func(ctx context.Context, text string) (*agent.Outcome, error)
}
