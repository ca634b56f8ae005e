package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

// explainTimeout explains a wait on a reachable model server that ran
// past its bound: what the server did, the setting, and the fix.
func explainTimeout(te *model.TimeoutError) string {
	msg := te.Message
	if te.Attempts > 1 {
		msg += fmt.Sprintf(", %d attempts", te.Attempts)
	}
	switch te.Setting {
	case "model.header_timeout":
		return msg + "; if it is just slow (a long prompt on a local model), raise [model] header_timeout"
	case "model.idle_timeout":
		return msg + "; partial output was discarded; raise [model] idle_timeout if the server pauses that long"
	case "model.request_timeout":
		return msg + "; partial output was discarded; raise --request-timeout ([model] request_timeout) or narrow the task"
	}
	return msg
}

// explainTooLarge explains an answer abandoned at the size cap.
func explainTooLarge(err error) string {
	return stripPrefixes(textclip.FirstLine(err.Error())) + "; partial output was discarded"
}

// retryNote says how an API error was (or was not) retried, for the
// statuses rein retries: "after 4 attempts", or that the server asked for
// a longer wait than rein allows (transport's MaxRetryAfter, which the CLI
// leaves at its default, or what is left of the retry budget). "" when
// it says nothing.
func retryNote(ae *model.APIError) string {
	switch {
	case ae.Attempts > 1:
		return fmt.Sprintf(" after %d attempts", ae.Attempts)
	case ae.RetryAfter > 0:
		return fmt.Sprintf(" and asked rein to retry in %s, longer than rein waits (at most %s, and within model.retry_budget), so it did not retry",
			ae.RetryAfter.Round(time.Millisecond), transport.DefaultMaxRetryAfter)
	}
	return ""
}

// connectTimeoutCause names a connect that ran past its bound, with the
// setting: "no connection within 30s, model.connect_timeout".
func connectTimeoutCause(err error) string {
	if ct, ok := errors.AsType[*transport.ConnectTimeoutError](err); ok {
		return fmt.Sprintf("no connection within %s, model.connect_timeout", ct.Limit)
	}
	return "no connection in time, model.connect_timeout"
}

// modelWaitError reports whether err is one explainTimeout or
// explainTooLarge explains, and the explanation.
func modelWaitError(err error) (string, bool) {
	if te, ok := errors.AsType[*model.TimeoutError](err); ok {
		return explainTimeout(te), true
	}
	if errors.Is(err, model.ErrResponseTooLarge) {
		return explainTooLarge(err), true
	}
	return "", false
}
