package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/secret"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/provider"
	"github.com/reinharness/rein/model/transport"
)

// explainer turns errors and outcomes into the one line rein prints: the
// cause and the fix, with every secret removed.
type explainer struct {
	provider string
	endpoint string // cleaned of credentials
	secrets  []string
}

func newExplainer(m config.ModelConfig) *explainer {
	e := &explainer{provider: m.Provider, endpoint: transport.CleanEndpoint(m.Endpoint)}
	// Very short keys are not scrubbed: replacing every occurrence of
	// "ab" would mangle all output, and such a key protects nothing.
	if k := m.APIKey.Reveal(); len(k) >= 6 {
		e.secrets = append(e.secrets, k)
		if q := strings.Trim(fmt.Sprintf("%q", k), `"`); q != k {
			e.secrets = append(e.secrets, q) // as it appears inside JSON
		}
	}
	return e
}

// scrub removes every secret from text rein prints: the configured key,
// every registered value in each of its encoded forms, and what the
// patterns of internal/secret recognise (bearer tokens, sk-… keys,
// "password=…"). For encoded JSON use scrubKnown, which leaves the syntax
// alone.
func (e *explainer) scrub(s string) string {
	return secret.Redact(e.scrubKnown(s))
}

// scrubKnown removes the configured key and every registered value (in
// all its encoded forms) from s, and nothing else.
func (e *explainer) scrubKnown(s string) string {
	for _, k := range e.secrets {
		s = strings.ReplaceAll(s, k, "[REDACTED]")
	}
	return secret.RedactKnown(s)
}

// errorLine explains a run's error in one line (without the "rein: "
// prefix).
func (e *explainer) errorLine(err error) string {
	return termsafe.Line(e.scrub(transport.Redact(textclip.FirstLine(e.explain(err)))))
}

func (e *explainer) explain(err error) string {
	var (
		apiErr  *model.APIError
		connErr *model.ConnectError
	)
	if msg, ok := modelWaitError(err); ok {
		return msg
	}
	switch {
	case errors.Is(err, model.ErrCircuitOpen):
		return fmt.Sprintf("%s; wait for the model server to recover or pass --endpoint", stripPrefixes(textclip.FirstLine(err.Error())))
	case errors.As(err, &apiErr):
		return e.explainAPI(apiErr)
	case errors.As(err, &connErr):
		return e.explainConnect(connErr)
	case errors.Is(err, model.ErrIncompleteStream), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, transport.ErrIdleTimeout):
		return fmt.Sprintf("the model server closed the stream early (%s); partial output was discarded", streamCause(err))
	case errors.Is(err, context.Canceled):
		return "interrupted"
	}
	if errors.Is(err, agent.ErrModelCall) {
		return fmt.Sprintf("%s; check the model server at %s", stripPrefixes(textclip.FirstLine(err.Error())), e.endpoint)
	}
	// Not the model server's: a journal, a hook, a tool server, a file.
	return stripPrefixes(textclip.FirstLine(err.Error()))
}

// explainAPI explains an error answer from the model server.
func (e *explainer) explainAPI(ae *model.APIError) string {
	code := apiCode(ae)
	msg := strings.TrimSpace(ae.Message)
	detail := code
	if msg != "" && !strings.EqualFold(msg, code) {
		detail = code + ": " + msg
	}
	keyHint := "pass --api-key or set " + provider.KeyVar
	if p, ok := provider.Lookup(e.provider); ok && len(p.KeyVars) > 0 {
		keyHint += " (or " + strings.Join(p.KeyVars, ", ") + ")"
	}
	switch {
	case ae.InStream:
		return fmt.Sprintf("the model server at %s failed while answering (%s); partial output was discarded; try again", e.endpoint, detail)
	case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
		return fmt.Sprintf("the model server at %s rejected the API key (%s): %s", e.endpoint, code, keyHint)
	case ae.StatusCode == http.StatusNotFound:
		return fmt.Sprintf("the model server at %s does not know the model or path (%s): pass --model with a model it serves, or check --endpoint", e.endpoint, detail)
	case ae.StatusCode == http.StatusTooManyRequests:
		return fmt.Sprintf("the model server at %s is rate limiting requests (%s)%s; wait and try again", e.endpoint, detail, retryNote(ae))
	case ae.StatusCode >= 500:
		return fmt.Sprintf("the model server at %s failed (%s)%s; try again later or pass --endpoint", e.endpoint, detail, retryNote(ae))
	case ae.StatusCode == http.StatusBadRequest || ae.StatusCode == http.StatusUnprocessableEntity:
		return fmt.Sprintf("the model server at %s rejected the request (%s); check --model and the request settings", e.endpoint, detail)
	}
	return fmt.Sprintf("the model server at %s answered with an error (%s)", e.endpoint, detail)
}

// apiCode renders "401 invalid_api_key": the status with the provider's
// code or type.
func apiCode(ae *model.APIError) string {
	parts := []string{}
	if ae.StatusCode != 0 {
		parts = append(parts, fmt.Sprint(ae.StatusCode))
	}
	switch {
	case ae.Code != "":
		parts = append(parts, ae.Code)
	case ae.Type != "":
		parts = append(parts, ae.Type)
	case ae.StatusCode != 0:
		parts = append(parts, strings.ToLower(http.StatusText(ae.StatusCode)))
	}
	return strings.Join(parts, " ")
}

// explainConnect explains a server that could not be reached.
func (e *explainer) explainConnect(ce *model.ConnectError) string {
	fix := "check the address and your network, or pass --endpoint"
	if p, ok := provider.Lookup(e.provider); ok && p.LocalServer != "" && isLoopback(e.endpoint) {
		fix = "start " + p.LocalServer + " or pass --endpoint"
	}
	return fmt.Sprintf("cannot reach the model server at %s (%s): %s", e.endpoint, connectCause(ce.Err), fix)
}

// connectCause names a transport failure in a few words.
func connectCause(err error) string {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dnsErr):
		return "no such host " + dnsErr.Name
	case errors.Is(err, transport.ErrConnectTimeout):
		return connectTimeoutCause(err)
	case errors.Is(err, transport.ErrHeaderTimeout):
		return "no response in time"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return innermostText(err)
}

// streamCause names why a stream ended early.
func streamCause(err error) string {
	switch {
	case errors.Is(err, transport.ErrIdleTimeout):
		return "no data for too long"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "connection lost mid-event"
	}
	// The provider's wrapped text after the sentinel says the most, e.g.
	// "the server closed the stream without [DONE] (finish_reason "")".
	s := err.Error()
	if i := strings.LastIndex(s, model.ErrIncompleteStream.Error()+": "); i >= 0 {
		return s[i+len(model.ErrIncompleteStream.Error())+2:]
	}
	return "incomplete stream"
}

// innermostText returns the text of the deepest error in err's chain, the
// most specific description ("connect: network is unreachable" rather than
// the whole dial context).
func innermostText(err error) string {
	last := err
	for e := err; e != nil; e = errors.Unwrap(e) {
		last = e
	}
	return stripPrefixes(last.Error())
}

// stripPrefixes drops the "agent: model call 1 failed: " style context
// that means nothing to a command-line user.
func stripPrefixes(s string) string {
	for {
		before := s
		for _, p := range []string{"agent: ", "openai: ", "anthropic: "} {
			s = strings.TrimPrefix(s, p)
		}
		if strings.HasPrefix(s, "model call ") {
			if i := strings.Index(s, " failed: "); i >= 0 {
				s = s[i+len(" failed: "):]
			}
		}
		if s == before {
			return s
		}
	}
}

func isLoopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// outcomeLine explains a run that ended short of Complete, with the fix.
// It returns "" for Complete.
func (e *explainer) outcomeLine(out *agent.Outcome, cfg *config.Config) string {
	reason := out.Reason
	with := func(fallback, fix string) string {
		if reason == "" {
			reason = fallback
		}
		return termsafe.Line(e.scrub(fmt.Sprintf("%s: %s", reason, fix)))
	}
	switch out.Kind {
	case agent.StepLimit:
		return "stopped: " + with(fmt.Sprintf("reached the limit of %d model calls", cfg.Agent.MaxSteps), "raise --max-steps or narrow the task")
	case agent.Deadline:
		return "stopped: " + with("reached the time limit", "raise --timeout or narrow the task")
	case agent.TokenBudget:
		return "stopped: " + with("used the token budget", "raise agent.token_budget in the config or narrow the task")
	case agent.RepeatedAction:
		return "stopped: " + with("the model repeated the same action", "the model is stuck; rephrase the task or try another model")
	case agent.Blocked:
		return "blocked: " + with("tool calls were denied", "the policy refused what the model needed; change the task or the policy")
	case agent.VerificationFailed:
		// The gate's reason says it already: "verification failed 2
		// times; the last failure: …".
		if !strings.HasPrefix(reason, "verification failed") {
			reason = "verification failed: " + cmp.Or(reason, "the verification gate did not pass")
		}
		return with("", "inspect the changes and the checks")
	case agent.VerificationUnavailable:
		return with("a check cannot run", "fix the [verify] command or its timeout (rein never asked the model to)")
	case agent.NeedsApproval:
		return "needs approval: " + with("calls needed approval and no one could be asked", "allow them with a rule, or run with --approve auto or on a terminal")
	case agent.ContentFiltered:
		return "stopped: " + with("the provider's content filter stopped the answer", "rephrase the task or use another model")
	case agent.Cancelled:
		return "interrupted"
	}
	return ""
}

// exitCode maps an outcome to the process exit code.
func exitCode(kind agent.OutcomeKind) int {
	switch kind {
	case agent.Complete:
		return ExitOK
	case agent.StepLimit, agent.Deadline, agent.TokenBudget, agent.RepeatedAction:
		return ExitLimit
	case agent.Blocked, agent.VerificationFailed, agent.VerificationUnavailable,
		agent.NeedsApproval, agent.ContentFiltered:
		// Not accepted: refused by the policy, the gate or the provider.
		return ExitBlocked
	case agent.Cancelled:
		return ExitInterrupted
	}
	return ExitFailed
}
