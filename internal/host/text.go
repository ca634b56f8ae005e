package host

import (
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/telemetry/redact"
)

// ClipRunes shortens s to n runes, marking the cut, and redacts it: a
// Name or message from a file the user did not write (an agent
// definition, a hook, a transcript) is output like any other. The front
// ends quote such text with it too, so it is exported.
func ClipRunes(s string, n int) string { return textclip.Runes(redact.String(s), n) }
