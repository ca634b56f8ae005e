package mcp

import (
	"encoding/json"
	"github.com/reinharness/rein/internal/secret"
	"slices"
	"strings"
)

const redacted = "[redacted]"

// Secret is a credential. Printing or encoding it shows a placeholder;
// Reveal returns the value for the one place that sends it.
type Secret string

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// String returns a placeholder ("" for an empty secret).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString returns a placeholder so %#v does not leak the value.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// MarshalText returns a placeholder so encoders do not leak the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Secrets maps names (environment variables, HTTP headers) to secret
// values. Printing or encoding it shows the names only.
type Secrets map[string]string

// String lists the names with placeholder values, sorted.
func (s Secrets) String() string {
	if len(s) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range s.names() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(redacted)
	}
	b.WriteByte('}')
	return b.String()
}

// GoString is String, so %#v does not leak values.
func (s Secrets) GoString() string { return "mcp.Secrets" + s.String() }

// MarshalJSON encodes the names with placeholder values.
func (s Secrets) MarshalJSON() ([]byte, error) {
	m := make(map[string]string, len(s))
	for k := range s {
		m[k] = redacted
	}
	return json.Marshal(m)
}

func (s Secrets) names() []string {
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// scrubber removes known secret values from text that may come back from
// a server or the SDK (an echoed header, a command line in an error).
type scrubber []string

// minSecretLen skips very short values: replacing every "1" in a message
// would mangle it and such a value protects nothing.
const minSecretLen = 6

func (s *scrubber) add(values ...string) {
	// The rest of rein (session store, event log, traces, error lines)
	// must hide them too, whatever carries them there.
	secret.Register(values...)
	for _, v := range values {
		if len(v) >= minSecretLen && !slices.Contains(*s, v) {
			*s = append(*s, v)
		}
	}
}

func (s scrubber) scrub(text string) string {
	for _, v := range s {
		text = strings.ReplaceAll(text, v, redacted)
	}
	return text
}
