package mcp

//lint:file-ignore SA1019 roots serve servers of the 2025 revisions, which rein supports.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2026-07-28 task that needs input parks as input_required and lists
// its questions in tasks/get's inputRequests; the client answers them
// with tasks/update and goes on polling. (A 2025-11-25 server asks over
// the session instead, where the SDK's elicitation handler answers.)
// rein answers elicitations through the Interaction (declining where
// there is none, as for any headless elicitation) and roots/list from
// Config.Roots; any other request fails the call and cancels the task.

// maxTaskInputRounds bounds the rounds of input one task may ask for,
// so a server that always wants more cannot hold a call forever.
const maxTaskInputRounds = 16

// taskUpdateParams are the params of tasks/update (2026-07-28).
type taskUpdateParams struct {
	sdk.ParamsBase
	TaskID         string         `json:"taskId"`
	InputResponses map[string]any `json:"inputResponses"`
}

// ackResult is tasks/update's empty acknowledgement.
type ackResult struct {
	sdk.ResultBase
}

// inputRequest is one entry of inputRequests, decoded lazily so that an
// unknown kind fails only itself.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// answerTaskInput answers a parked task's input requests.
func (s *server) answerTaskInput(ctx context.Context, sess *session, what string, t *wireTask) error {
	if len(t.InputRequests) == 0 {
		return nil // nothing asked yet; poll again
	}
	responses := map[string]any{}
	keys := make([]string, 0, len(t.InputRequests))
	for k := range t.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, err := s.answerInput(ctx, t.InputRequests[k])
		if err != nil {
			return fmt.Errorf("mcp server %q: %s asked for input rein cannot give (%s)", s.cfg.Name, what, err)
		}
		responses[k] = r
	}
	_, err := sdk.CallCustomMethod[*taskUpdateParams, *ackResult](ctx, sess.cs, "tasks/update", &taskUpdateParams{TaskID: t.TaskID, InputResponses: responses})
	if err != nil {
		return s.callError(ctx, sess, "answering "+what, err)
	}
	return nil
}

// answerInput answers one input request.
func (s *server) answerInput(ctx context.Context, r inputRequest) (any, error) {
	switch r.Method {
	case "elicitation/create":
		var p sdk.ElicitParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, fmt.Errorf("an elicitation rein cannot read: %s", clip(oneLine(err.Error()), 200))
		}
		in := s.m.cfg.Interaction
		if in == nil {
			in = Decline{}
		}
		return elicitHandler(s.cfg.Name, in)(ctx, &sdk.ElicitRequest{Params: &p})
	case "roots/list":
		return &sdk.ListRootsResult{Roots: s.rootList()}, nil
	}
	return nil, fmt.Errorf("a %q request, which rein does not answer in tasks", clip(printable(r.Method), 60))
}

// rootList is Config.Roots as MCP roots (none when unset).
func (s *server) rootList() []*sdk.Root {
	roots := []*sdk.Root{}
	for _, r := range s.m.cfg.Roots {
		roots = append(roots, &sdk.Root{URI: "file://" + filepath.ToSlash(r), Name: filepath.Base(r)})
	}
	return roots
}
