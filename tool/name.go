package tool

import (
	"errors"
	"fmt"
)

// MaxNameLen is the longest tool name model APIs accept.
const MaxNameLen = 64

// ErrInvalidName reports a tool name model APIs would reject: names must
// match ^[a-zA-Z0-9_-]{1,64}$ (OpenAI and Anthropic both enforce this).
var ErrInvalidName = errors.New("invalid tool name")

// ValidateName reports whether name is acceptable to model APIs. The error
// wraps ErrInvalidName and says how to fix the name.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: the name is empty; use 1-%d characters from a-z, A-Z, 0-9, '_' and '-'", ErrInvalidName, MaxNameLen)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%w: %q is %d bytes long; shorten it to at most %d", ErrInvalidName, clip(name, MaxNameLen), len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return fmt.Errorf("%w: %q has %q at byte %d; use only a-z, A-Z, 0-9, '_' and '-'", ErrInvalidName, name, rune(name[i]), i)
		}
	}
	return nil
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// clip shortens s to at most n bytes on a UTF-8 boundary, marking the cut
// with "…". It keeps model- or server-supplied text in messages bounded.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeStart(s, n)] + "…"
}
