package model

import "fmt"

// AnswerSize counts the content of one model answer (text, reasoning and
// tool-call arguments, as they arrive) against a cap, so that a provider
// can abandon a runaway answer before it holds it in memory. Providers
// call Add for every piece before keeping it. The zero value caps at
// DefaultMaxResponseBytes.
//
// An AnswerSize belongs to one stream; it is not safe for concurrent use.
type AnswerSize struct {
	// Max is the cap in bytes; 0 means DefaultMaxResponseBytes.
	Max int
	n   int
}

// Add counts n more bytes and returns an error wrapping
// ErrResponseTooLarge once the total passes the cap.
func (a *AnswerSize) Add(n int) error {
	limit := a.Max
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	a.n += n
	if a.n > limit {
		return fmt.Errorf("%w (%s): rein stopped reading after that much text, reasoning and tool-call arguments; raise [model] max_response_bytes if such answers are expected",
			ErrResponseTooLarge, FormatBytes(limit))
	}
	return nil
}

// EventTooLarge is the error for one stream event larger than the whole
// answer may be (its decoder's buffer is bounded by the same cap).
func (a *AnswerSize) EventTooLarge() error {
	return fmt.Errorf("%w (%s): one stream event alone is larger than that; raise [model] max_response_bytes if such answers are expected",
		ErrResponseTooLarge, FormatBytes(a.Limit()))
}

// Limit returns the cap in force.
func (a *AnswerSize) Limit() int {
	if a.Max <= 0 {
		return DefaultMaxResponseBytes
	}
	return a.Max
}

// FormatBytes renders a size for messages: "4 MiB", "512 KiB", "1000
// bytes".
func FormatBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
