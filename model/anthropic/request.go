package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reinharness/rein/model"
)

// ErrInvalidRequest reports a model.Request that cannot be expressed in the
// Messages API. It is returned before anything is sent, wrapped with the
// reason and the fix.
var ErrInvalidRequest = errors.New("anthropic: invalid request")

// reservedExtra maps the body keys the provider owns to the Request or
// Config field that sets them, so the error can name the fix.
var reservedExtra = map[string]string{
	"model":       "Request.Model or Config.Model",
	"messages":    "Request.Messages",
	"system":      "Request.System",
	"tools":       "Request.Tools",
	"tool_choice": "Request.ToolChoice",
	"stream":      "Config.NoStreaming",
}

// encodeOptions are the Config values request encoding needs.
type encodeOptions struct {
	Model     string
	MaxTokens int
	Stream    bool
}

// encodeRequest turns a neutral request into the JSON body of
// POST /v1/messages, with Request.Extra merged last.
func encodeRequest(req *model.Request, o encodeOptions) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: nil *model.Request", ErrInvalidRequest)
	}
	for k := range req.Extra {
		if field, ok := reservedExtra[k]; ok {
			return nil, fmt.Errorf("%w: Request.Extra key %q is set by the provider; use %s instead", ErrInvalidRequest, k, field)
		}
	}
	w, err := buildRequest(req, o)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	if len(req.Extra) == 0 {
		return body, nil
	}
	return mergeExtra(body, req.Extra)
}

// mergeExtra overlays extra onto the encoded body. Extra wins over fields
// rein sets itself (temperature, max_tokens, thinking, …) because it is the
// caller's explicit escape hatch for API features rein does not model.
func mergeExtra(body []byte, extra map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	for k, v := range extra {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%w: Request.Extra key %q cannot be encoded as JSON: %v", ErrInvalidRequest, k, err)
		}
		m[k] = raw
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	return out, nil
}

// buildRequest maps every Request field the Messages API understands.
// Seed, ResponseFormat and ReasoningEffort have no Messages API equivalent
// and are not sent; Request.Extra reaches any API field rein does not model.
func buildRequest(req *model.Request, o encodeOptions) (*wireRequest, error) {
	w := &wireRequest{
		Model:         req.Model,
		MaxTokens:     req.MaxTokens,
		Temperature:   req.Temperature,
		TopP:          req.TopP,
		StopSequences: req.Stop,
		Stream:        o.Stream,
	}
	if w.Model == "" {
		w.Model = o.Model
	}
	if w.Model == "" {
		return nil, fmt.Errorf("%w: no model named; set Request.Model or Config.Model", ErrInvalidRequest)
	}
	if req.MaxTokens < 0 {
		return nil, fmt.Errorf("%w: Request.MaxTokens is %d; it must be positive, or 0 for the configured default", ErrInvalidRequest, req.MaxTokens)
	}
	if w.MaxTokens == 0 {
		w.MaxTokens = o.MaxTokens
	}
	if req.ThinkingBudget > 0 {
		// The API requires max_tokens > budget_tokens. When the caller left
		// max_tokens to the default, make room for the answer after the
		// thinking rather than failing; an explicit value is the caller's
		// decision and is checked.
		if req.MaxTokens == 0 && w.MaxTokens <= req.ThinkingBudget {
			w.MaxTokens = req.ThinkingBudget + o.MaxTokens
		}
		if w.MaxTokens <= req.ThinkingBudget {
			return nil, fmt.Errorf("%w: Request.MaxTokens (%d) must exceed Request.ThinkingBudget (%d); raise MaxTokens or lower the budget",
				ErrInvalidRequest, w.MaxTokens, req.ThinkingBudget)
		}
		w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: req.ThinkingBudget}
	}
	if req.System != "" {
		w.System = append(w.System, textBlock(req.System))
	}
	msgs, system, err := convertMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	w.Messages = msgs
	w.System = append(w.System, system...)
	if w.Tools, err = convertTools(req.Tools); err != nil {
		return nil, err
	}
	if w.ToolChoice, err = convertToolChoice(req.ToolChoice, req.Tools); err != nil {
		return nil, err
	}
	return w, nil
}

func textBlock(s string) wireBlock { return wireBlock{Type: "text", Text: s} }

// convertTools declares the tools. A tool without a schema still needs
// input_schema (the API requires it), so it gets the empty object schema.
func convertTools(specs []model.ToolSpec) ([]wireTool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	tools := make([]wireTool, 0, len(specs))
	for i, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("%w: Request.Tools[%d] has no name", ErrInvalidRequest, i)
		}
		schema := bytes.TrimSpace(s.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		} else if schema[0] != '{' || !json.Valid(schema) {
			return nil, fmt.Errorf("%w: tool %q has an input schema that is not a JSON object", ErrInvalidRequest, s.Name)
		}
		tools = append(tools, wireTool{Name: s.Name, Description: s.Description, InputSchema: schema})
	}
	return tools, nil
}

// convertToolChoice maps rein's choices onto the API's: "required" is the
// API's "any"; any other non-fixed value names a tool, which must be one of
// the declared tools (the API would reject it anyway, less clearly).
func convertToolChoice(c model.ToolChoice, specs []model.ToolSpec) (*wireToolChoice, error) {
	switch c {
	case "":
		return nil, nil
	case model.ToolChoiceAuto:
		return &wireToolChoice{Type: "auto"}, nil
	case model.ToolChoiceNone:
		return &wireToolChoice{Type: "none"}, nil
	case model.ToolChoiceRequired:
		return &wireToolChoice{Type: "any"}, nil
	}
	for _, s := range specs {
		if s.Name == string(c) {
			return &wireToolChoice{Type: "tool", Name: s.Name}, nil
		}
	}
	return nil, fmt.Errorf("%w: Request.ToolChoice names tool %q, which is not in Request.Tools", ErrInvalidRequest, string(c))
}
