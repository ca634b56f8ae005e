// Package redact removes secrets from agent events before they are stored
// or exported: the session store, the JSONL event log and OpenTelemetry
// spans all pass events through Event first.
//
// The knowledge of what a secret looks like lives in internal/secret, which
// also scrubs error messages: registered values (API keys given by flag or
// environment, MCP header values; see secret.Register) and patterns (bearer
// tokens, sk-… keys, "api_key"/"token"/"password" JSON values, credentials
// in URLs). This package applies it to the structure of an event: every
// text, every tool result, every error and every string inside tool-call
// arguments, keeping arguments valid JSON.
//
// Redaction is deliberately lossy: a stored session holds the redacted
// text, so a resumed conversation shows the model [REDACTED] where a secret
// was. That is the point: a secret the store never saw cannot leak from it.
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinharness/rein/internal/secret"
)

// Marker replaces every secret. It is the marker internal/secret writes.
const Marker = "[REDACTED]"

// Register records secret values (API keys, tokens, header values) so that
// they are replaced wherever they appear, in events and in error messages.
// Values shorter than secret.MinLength are ignored. Safe for concurrent
// use; registrations last for the life of the process.
func Register(values ...string) { secret.Register(values...) }

// String returns s with every secret replaced by Marker.
func String(s string) string {
	if s == "" {
		return s
	}
	return secret.Redact(s)
}

// JSON returns raw with secrets removed from its string values, and the
// string value of any member whose name marks a secret ("api_key",
// "password", "access_token", …) replaced by Marker. The result is valid
// JSON whenever raw is. Unchanged input is returned as is (same bytes), so
// arguments without secrets keep their exact form. Input that is not
// valid JSON is redacted as text.
func JSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	// The text pass is the cheap precheck: most arguments hold nothing
	// it would touch, and then they are returned untouched. Text with
	// \u escapes can hide a member name ("to\u006ben") from it, so
	// that goes through the token pass regardless.
	if secret.Redact(string(raw)) == string(raw) && !bytes.Contains(raw, []byte(`\u`)) {
		return raw
	}
	out, err := redactTokens(raw)
	if err != nil {
		return json.RawMessage(secret.Redact(string(raw)))
	}
	return out
}

// sensitiveNames caches whether a member name marks a secret value. Member
// names come from model output and MCP servers, so the cache is bounded:
// past maxCachedNames entries (or for long names) the answer is computed
// each time instead of remembered.
var (
	sensitiveNames      sync.Map // string → bool
	sensitiveNamesCount atomic.Int64
)

const (
	maxCachedNames   = 4096
	maxCachedNameLen = 64
)

// sensitiveName reports whether values of the member name are secrets. It
// asks internal/secret about a canonical snippet rather than keeping a
// second list of names that could drift from the first.
func sensitiveName(name string) bool {
	if v, ok := sensitiveNames.Load(name); ok {
		return v.(bool)
	}
	q, err := jsontext.AppendQuote(nil, name)
	if err != nil {
		return false
	}
	snippet := string(q) + `:"probe-value"`
	sensitive := secret.Redact(snippet) != snippet
	if len(name) <= maxCachedNameLen && sensitiveNamesCount.Load() < maxCachedNames {
		if _, loaded := sensitiveNames.LoadOrStore(name, sensitive); !loaded {
			sensitiveNamesCount.Add(1)
		}
	}
	return sensitive
}

// redactTokens rewrites raw token by token: strings are redacted as text,
// and string values of sensitive members are replaced whole. Member order and
// every other token are kept.
func redactTokens(raw []byte) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var buf bytes.Buffer
	buf.Grow(len(raw))
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	hideNext := false
	for {
		kind, n := dec.StackIndex(dec.StackDepth())
		isName := kind == '{' && n%2 == 0
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch {
		case isName:
			hideNext = sensitiveName(tok.String())
			err = enc.WriteToken(tok)
		case tok.Kind() == '"' && hideNext:
			hideNext = false
			err = enc.WriteToken(jsontext.String(Marker))
		case tok.Kind() == '"':
			err = enc.WriteToken(jsontext.String(secret.Redact(tok.String())))
		default:
			// Numbers, literals and nested values of a secret-named member
			// are kept, as internal/secret keeps them in text; strings
			// inside nested values are still redacted.
			hideNext = false
			err = enc.WriteToken(tok)
		}
		if err != nil {
			return nil, err
		}
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
