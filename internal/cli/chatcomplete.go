package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/reinharness/rein/internal/tui"
)

// Tab completion of /prompt arguments in chat. The input
//
//	/prompt SERVER NAME {"a":"x","b":"pre
//
// ends inside the value of b: Tab asks SERVER (completion/complete) for
// values of b of the prompt NAME starting "pre", with a=x as the context
// servers use to narrow dependent arguments, and the UI completes or
// lists the values. The UI asks off its goroutine, bounded by
// tui.CompleteTimeout, so a slow server never holds the input.

// promptQuery is the argument an input asks completion for.
type promptQuery struct {
	server, prompt, arg, prefix string
	done                        map[string]string
	start                       int // where the value's text begins in the input
}

// completePromptArg is tui.Config.Complete for the chat.
func (s *chatSession) completePromptArg(ctx context.Context, line string) (tui.Completion, error) {
	q, ok := parsePromptQuery(line)
	if !ok {
		return tui.Completion{}, nil // nothing to complete: Tab does nothing
	}
	if s.mcp == nil {
		return tui.Completion{}, errors.New(noServers)
	}
	c, err := s.mcp.m.CompletePrompt(ctx, q.server, q.prompt, q.arg, q.prefix, q.done)
	if err != nil {
		return tui.Completion{}, errors.New(s.ex.scrub(termText(err.Error(), 300)))
	}
	out := tui.Completion{Start: q.start, End: `"`}
	for _, v := range c.Values {
		out.Candidates = append(out.Candidates, jsonStringBody(v))
	}
	if len(out.Candidates) == 0 {
		return out, errors.New(termText(q.server, 60) + " has no suggestions for " + termText(q.arg, 60))
	}
	return out, nil
}

// jsonStringBody is v as the inside of a JSON string.
func jsonStringBody(v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// parsePromptQuery reads an input that ends inside a /prompt argument's
// value. Earlier complete pairs are the context; the input must not end
// in a key, between tokens or after the object.
func parsePromptQuery(line string) (promptQuery, bool) {
	rest, ok := strings.CutPrefix(line, "/prompt ")
	if !ok {
		return promptQuery{}, false
	}
	brace := strings.IndexByte(rest, '{')
	if brace < 0 {
		return promptQuery{}, false
	}
	head := strings.Fields(rest[:brace])
	if len(head) != 2 {
		return promptQuery{}, false
	}
	q := promptQuery{server: head[0], prompt: head[1], done: map[string]string{}}
	pos := len("/prompt ") + brace + 1
	for {
		pos = skipSpace(line, pos)
		key, next, closed := jsonStringAt(line, pos)
		if !closed {
			return promptQuery{}, false // completing a key is not offered
		}
		pos = skipSpace(line, next)
		if pos >= len(line) || line[pos] != ':' {
			return promptQuery{}, false
		}
		pos = skipSpace(line, pos+1)
		val, next, closed := jsonStringAt(line, pos)
		if next < 0 {
			return promptQuery{}, false
		}
		if !closed {
			q.arg, q.prefix, q.start = key, val, pos+1
			return q, true
		}
		q.done[key] = val
		pos = skipSpace(line, next)
		if pos >= len(line) || line[pos] != ',' {
			return promptQuery{}, false
		}
		pos++
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// jsonStringAt reads the JSON string that starts at s[i] (a quote): its
// value, the index after it and whether it was closed. An unclosed one
// is decoded as far as it goes; next is -1 when s[i] is no quote or the
// text is not a valid string's start.
func jsonStringAt(s string, i int) (val string, next int, closed bool) {
	if i >= len(s) || s[i] != '"' {
		return "", -1, false
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			if json.Unmarshal([]byte(s[i:j+1]), &val) != nil {
				return "", -1, false
			}
			return val, j + 1, true
		}
	}
	raw := s[i:]
	if (len(raw)-len(strings.TrimRight(raw, `\`)))%2 == 1 {
		return "", -1, false // ends inside an escape
	}
	if json.Unmarshal([]byte(raw+`"`), &val) != nil {
		return "", -1, false
	}
	return val, len(s), false
}

// complete is the UI's Complete: the session's completer once there is
// one.
func (f *tuiFront) complete(ctx context.Context, line string) (tui.Completion, error) {
	h := f.onComplete.Load()
	if h == nil {
		return tui.Completion{}, nil
	}
	return (*h)(ctx, line)
}
