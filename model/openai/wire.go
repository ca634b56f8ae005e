package openai

import (
	"bytes"
	"encoding/json"

	"github.com/reinharness/rein/model"
)

// chunk is one streamed "chat.completion.chunk". Only the fields rein uses
// are declared, so decoding skips the rest (system_fingerprint,
// obfuscation, logprobs, …) without allocating.
type chunk struct {
	ID      string         `json:"id"`
	Choices []chunkChoice  `json:"choices"`
	Usage   *wireUsage     `json:"usage"`
	Timings *model.Timings `json:"timings"`
	Error   *wireError     `json:"error"`
}

type chunkChoice struct {
	Index        int    `json:"index"`
	Delta        delta  `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

// delta is the incremental part of a chunk. Reasoning arrives as
// reasoning_content (llama.cpp, DeepSeek) or reasoning (vLLM, OpenRouter).
type delta struct {
	Content          string          `json:"content"`
	Refusal          string          `json:"refusal"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta is a fragment of one tool call. Index is a pointer because
// a few servers omit it; the id and name come only with the first fragment.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	index    int    // Index's storage on the fast path (chunkScanner)
	hasIndex bool
	Function struct {
		Name      string      `json:"name"`
		Arguments argFragment `json:"arguments"`
	} `json:"function"`
}

// completion is a non-streamed "chat.completion".
type completion struct {
	ID      string `json:"id"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content          string `json:"content"`
			Refusal          string `json:"refusal"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string      `json:"name"`
					Arguments argFragment `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *wireUsage     `json:"usage"`
	Timings *model.Timings `json:"timings"`
	Error   *wireError     `json:"error"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// toUsage normalises OpenAI usage. InputTokens is prompt_tokens, which
// includes cached tokens; CacheReadTokens says how many of them were
// cached (from prompt_tokens_details, or llama.cpp's timings.cache_n).
func toUsage(u *wireUsage, t *model.Timings) *model.Usage {
	out := &model.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	if t != nil {
		tc := *t
		out.Timings = &tc
		if out.CacheReadTokens == 0 {
			out.CacheReadTokens = t.CacheN
		}
	}
	return out
}

// stopReason maps finish_reason onto rein's stop reasons.
func stopReason(s string) model.StopReason {
	switch s {
	case "stop":
		return model.StopEndTurn
	case "tool_calls", "function_call":
		return model.StopToolUse
	case "length":
		return model.StopMaxTokens
	case "content_filter":
		return model.StopContentFilter
	}
	return model.StopOther
}

// wireError is the API's error object, used both for HTTP error bodies and
// inside streams: {"error":{"message","type","code","param"}}.
type wireError struct {
	Message string   `json:"message"`
	Type    string   `json:"type"`
	Code    flexCode `json:"code"`
}

// flexCode accepts the error code as a string (OpenAI) or a number
// (llama.cpp, vLLM).
type flexCode string

// UnmarshalJSON accepts a string, a number or null.
func (c *flexCode) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*c = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = flexCode(s)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*c = flexCode(n.String())
	}
	return nil
}

// errorBody is an HTTP error response. Besides the OpenAI shape some
// servers answer {"error":"text"} or {"message":"text"}; Error is decoded
// by hand to accept both.
type errorBody struct {
	Error json.RawMessage `json:"error"`
	// vLLM answers with the error fields at the top level:
	// {"object":"error","message","type","code"}.
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    flexCode        `json:"code"`
	Detail  json.RawMessage `json:"detail"`
}

// decodeAPIError extracts the error object from an HTTP error body. It
// returns false when the body does not look like one.
func decodeAPIError(body []byte) (wireError, bool) {
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil {
		return wireError{}, false
	}
	if len(eb.Error) > 0 {
		var we wireError
		if json.Unmarshal(eb.Error, &we) == nil && (we.Message != "" || we.Type != "" || we.Code != "") {
			return we, true
		}
		var s string
		if json.Unmarshal(eb.Error, &s) == nil && s != "" {
			return wireError{Message: s}, true
		}
	}
	if eb.Message != "" {
		return wireError{Message: eb.Message, Type: eb.Type, Code: eb.Code}, true
	}
	if len(eb.Detail) > 0 {
		// FastAPI-based servers (vLLM's validation errors) answer
		// {"detail": "..."} or {"detail": [...]}.
		var s string
		if json.Unmarshal(eb.Detail, &s) == nil && s != "" {
			return wireError{Message: s}, true
		}
		return wireError{Message: cut(string(compactJSON(eb.Detail)), maxDetail)}, true
	}
	return wireError{}, false
}

// maxDetail bounds the validation detail quoted from a FastAPI error.
const maxDetail = 300

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
