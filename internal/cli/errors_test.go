package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/transport"
)

func TestExplainErrors(t *testing.T) {
	local := newExplainer(config.ModelConfig{Provider: "openai", Endpoint: "http://127.0.0.1:8080", APIKey: "sk-abcdef123456"})
	remote := newExplainer(config.ModelConfig{Provider: "anthropic", Endpoint: "https://user:pw@api.example.com/v1?k=1"})
	wrap := func(err error) error { return fmt.Errorf("%w 1 failed: %w", agent.ErrModelCall, err) }
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		ex   *explainer
		err  error
		want string
	}{
		{"refused local", local, wrap(&model.ConnectError{Endpoint: "http://127.0.0.1:8080/v1/chat/completions", Err: refused}),
			"cannot reach the model server at http://127.0.0.1:8080 (connection refused): start llama-server or pass --endpoint"},
		{"dns remote", remote, wrap(&model.ConnectError{Err: &net.DNSError{Name: "api.example.com", Err: "no such host", IsNotFound: true}}),
			"cannot reach the model server at https://api.example.com/v1 (no such host api.example.com): check the address and your network, or pass --endpoint"},
		{"header timeout", local, wrap(&model.ConnectError{Err: transport.ErrHeaderTimeout}),
			"cannot reach the model server at http://127.0.0.1:8080 (no response in time): start llama-server or pass --endpoint"},
		{"401", local, wrap(&model.APIError{Provider: "openai", StatusCode: 401, Code: "invalid_api_key", Message: "bad key sk-abcdef123456"}),
			"the model server at http://127.0.0.1:8080 rejected the API key (401 invalid_api_key): pass --api-key or set REIN_API_KEY (or OPENAI_API_KEY, LLAMA_API_KEY)"},
		{"403 without code", local, wrap(&model.APIError{StatusCode: 403}),
			"the model server at http://127.0.0.1:8080 rejected the API key (403 forbidden): pass --api-key or set REIN_API_KEY (or OPENAI_API_KEY, LLAMA_API_KEY)"},
		{"404 model", local, wrap(&model.APIError{StatusCode: 404, Type: "not_found_error", Message: "model 'gpt-9' not found"}),
			"the model server at http://127.0.0.1:8080 does not know the model or path (404 not_found_error: model 'gpt-9' not found): pass --model with a model it serves, or check --endpoint"},
		{"429 exhausted", local, wrap(&model.APIError{StatusCode: 429, Type: "rate_limit_error", Message: "slow down", Attempts: 4}),
			"the model server at http://127.0.0.1:8080 is rate limiting requests (429 rate_limit_error: slow down) after 4 attempts; wait and try again"},
		{"529 exhausted", remote, wrap(&model.APIError{StatusCode: 529, Type: "overloaded_error", Message: "Overloaded", Attempts: 4}),
			"the model server at https://api.example.com/v1 failed (529 overloaded_error: Overloaded) after 4 attempts; try again later or pass --endpoint"},
		{"503 not retried", local, wrap(&model.APIError{StatusCode: 503, Message: "busy", Attempts: 1, RetryAfter: 2 * time.Minute}),
			"the model server at http://127.0.0.1:8080 failed (503 service unavailable: busy) and asked rein to retry in 2m0s, longer than rein waits (at most 1m0s, and within model.retry_budget), so it did not retry; try again later or pass --endpoint"},
		{"connect timeout", local, wrap(&model.ConnectError{Endpoint: "http://127.0.0.1:8080", Err: &transport.ConnectTimeoutError{Limit: 30 * time.Second, Err: os.ErrDeadlineExceeded}}),
			"cannot reach the model server at http://127.0.0.1:8080 (no connection within 30s, model.connect_timeout): start llama-server or pass --endpoint"},
		{"500 not retried", local, wrap(&model.APIError{StatusCode: 500, Message: "boom", Attempts: 1}),
			"the model server at http://127.0.0.1:8080 failed (500 internal server error: boom); try again later or pass --endpoint"},
		{"header timeout, reachable", local, wrap(&model.TimeoutError{Setting: "model.header_timeout", Err: transport.ErrHeaderTimeout, Attempts: 2,
			Message: "the model server at http://127.0.0.1:8080 accepted the connection but sent no response headers in 10m0s (model.header_timeout)"}),
			"the model server at http://127.0.0.1:8080 accepted the connection but sent no response headers in 10m0s (model.header_timeout), 2 attempts; if it is just slow (a long prompt on a local model), raise [model] header_timeout"},
		{"idle timeout", local, wrap(fmt.Errorf("%w: %w", model.ErrIncompleteStream, &model.TimeoutError{Setting: "model.idle_timeout", Err: transport.ErrIdleTimeout,
			Message: "the model server at http://127.0.0.1:8080 sent no data for 5m0s in the middle of its answer (model.idle_timeout)"})),
			"the model server at http://127.0.0.1:8080 sent no data for 5m0s in the middle of its answer (model.idle_timeout); partial output was discarded; raise [model] idle_timeout if the server pauses that long"},
		{"request deadline", local, wrap(fmt.Errorf("%w: %w", model.ErrIncompleteStream, &model.TimeoutError{Setting: "model.request_timeout", Err: transport.ErrRequestTimeout,
			Message: "the model server at http://127.0.0.1:8080 did not finish answering within 30m0s (model.request_timeout)"})),
			"the model server at http://127.0.0.1:8080 did not finish answering within 30m0s (model.request_timeout); partial output was discarded; raise --request-timeout ([model] request_timeout) or narrow the task"},
		{"too large", local, wrap(fmt.Errorf("openai: %w (4 MiB): rein stopped", model.ErrResponseTooLarge)),
			"the model's answer is larger than model.max_response_bytes (4 MiB): rein stopped; partial output was discarded"},
		{"in stream", remote, wrap(&model.APIError{StatusCode: 200, Type: "overloaded_error", Message: "Overloaded", InStream: true}),
			"the model server at https://api.example.com/v1 failed while answering (200 overloaded_error: Overloaded); partial output was discarded; try again"},
		{"circuit open", local, wrap(fmt.Errorf("openai endpoint http://127.0.0.1:8080 failed 5 times in a row; requests paused until 10:00:00 (in 30s): %w", model.ErrCircuitOpen)),
			"openai endpoint http://127.0.0.1:8080 failed 5 times in a row; requests paused until 10:00:00 (in 30s): model endpoint circuit breaker is open; wait for the model server to recover or pass --endpoint"},
		{"incomplete", local, wrap(fmt.Errorf("%w: the server closed the stream without [DONE] (finish_reason \"\")", model.ErrIncompleteStream)),
			`the model server closed the stream early (the server closed the stream without [DONE] (finish_reason "")); partial output was discarded`},
		{"reset", local, wrap(fmt.Errorf("%w: %w", model.ErrIncompleteStream, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)})),
			"the model server closed the stream early (connection reset); partial output was discarded"},
		{"idle", local, wrap(fmt.Errorf("%w: %w", model.ErrIncompleteStream, transport.ErrIdleTimeout)),
			"the model server closed the stream early (no data for too long); partial output was discarded"},
		{"unexpected eof", local, wrap(io.ErrUnexpectedEOF),
			"the model server closed the stream early (connection lost mid-event); partial output was discarded"},
		{"other", local, wrap(errors.New("openai: malformed response from the model server: chunk 3 is not valid JSON\nwith detail")),
			"malformed response from the model server: chunk 3 is not valid JSON; check the model server at http://127.0.0.1:8080"},
		// Not the model server's errors: no advice to check it.
		{"journal", local, fmt.Errorf("agent: %w for a message event: disk full", agent.ErrJournal),
			"journal append failed for a message event: disk full"},
		{"tool server", local, errors.New("mcp: server \"docs\" failed to start: exec: \"docs-mcp\": not found"),
			`mcp: server "docs" failed to start: exec: "docs-mcp": not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.ex.errorLine(tt.err)
			if got != tt.want {
				t.Errorf("errorLine:\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(got, "sk-abcdef123456") || strings.Contains(got, "user:pw") {
				t.Errorf("secret leaked: %s", got)
			}
		})
	}
}

func TestOutcomeLinesAndExitCodes(t *testing.T) {
	ex := newExplainer(config.ModelConfig{})
	cfg := &config.Config{Agent: config.AgentConfig{MaxSteps: 5}}
	tests := []struct {
		out      agent.Outcome
		wantLine string
		wantCode int
	}{
		{agent.Outcome{Kind: agent.Complete}, "", 0},
		{agent.Outcome{Kind: agent.StepLimit, Reason: "reached the limit of 5 model calls per run"}, "stopped: reached the limit of 5 model calls per run: raise --max-steps or narrow the task", 3},
		{agent.Outcome{Kind: agent.StepLimit}, "stopped: reached the limit of 5 model calls: raise --max-steps or narrow the task", 3},
		{agent.Outcome{Kind: agent.Deadline, Reason: "reached the run timeout of 1s"}, "stopped: reached the run timeout of 1s: raise --timeout or narrow the task", 3},
		{agent.Outcome{Kind: agent.TokenBudget}, "stopped: used the token budget: raise agent.token_budget in the config or narrow the task", 3},
		{agent.Outcome{Kind: agent.RepeatedAction}, "stopped: the model repeated the same action: the model is stuck; rephrase the task or try another model", 3},
		{agent.Outcome{Kind: agent.Blocked, Reason: "3 calls in a row were denied"}, "blocked: 3 calls in a row were denied: the policy refused what the model needed; change the task or the policy", 4},
		{agent.Outcome{Kind: agent.VerificationFailed}, "verification failed: the verification gate did not pass: inspect the changes and the checks", 4},
		{agent.Outcome{Kind: agent.VerificationFailed, Reason: "verification failed 2 times; the last failure: go test ./... (exit 1)"},
			"verification failed 2 times; the last failure: go test ./... (exit 1): inspect the changes and the checks", 4},
		{agent.Outcome{Kind: agent.VerificationUnavailable, Reason: "the check `x` cannot run: command not found (exit 127)"},
			"the check `x` cannot run: command not found (exit 127): fix the [verify] command or its timeout (rein never asked the model to)", 4},
		{agent.Outcome{Kind: agent.NeedsApproval, Reason: "2 tool calls needed approval and no one could be asked (run_command)"},
			"needs approval: 2 tool calls needed approval and no one could be asked (run_command): allow them with a rule, or run with --approve auto or on a terminal", 4},
		{agent.Outcome{Kind: agent.ContentFiltered}, "stopped: the provider's content filter stopped the answer: rephrase the task or use another model", 4},
		{agent.Outcome{Kind: agent.Cancelled}, "interrupted", 130},
		{agent.Outcome{Kind: agent.Failed}, "", 1},
	}
	for _, tt := range tests {
		if got := ex.outcomeLine(&tt.out, cfg); got != tt.wantLine {
			t.Errorf("outcomeLine(%s):\n got %q\nwant %q", tt.out.Kind, got, tt.wantLine)
		}
		if got := exitCode(tt.out.Kind); got != tt.wantCode {
			t.Errorf("exitCode(%s) = %d, want %d", tt.out.Kind, got, tt.wantCode)
		}
	}
}

func TestScrubShortKeysAndJSONForm(t *testing.T) {
	if ex := newExplainer(config.ModelConfig{APIKey: "abc"}); ex.scrub("abc abc") != "abc abc" {
		t.Errorf("a 3-byte key should not be scrubbed (it would mangle output)")
	}
	ex := newExplainer(config.ModelConfig{APIKey: `key"with\quote`})
	for _, s := range []string{`key"with\quote`, `"key\"with\\quote"`} {
		if got := ex.scrub(s); strings.Contains(got, "with") {
			t.Errorf("scrub(%s) = %s", s, got)
		}
	}
}

func TestCompactLine(t *testing.T) {
	long := strings.Repeat("é", maxToolLine+10)
	tests := []struct{ in, want string }{
		{"4", "4"},
		{"  first line\nsecond", "first line …"},
		{long, strings.Repeat("é", maxToolLine) + " …"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := compactLine(tt.in); got != tt.want {
			t.Errorf("compactLine(%.20q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := compactJSON([]byte("{ \"a\" : 1 }")); got != `{"a":1}` {
		t.Errorf("compactJSON = %s", got)
	}
}

func TestVersionString(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"v1.2.3", bi, "rein v1.2.3 ("},
		{"", bi, "rein devel-0123456789ab+dirty ("},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "rein v0.4.0 ("},
		{"", nil, "rein devel ("},
	}
	for _, tt := range tests {
		if got := versionString(tt.linked, tt.bi); !strings.HasPrefix(got, tt.want) {
			t.Errorf("versionString(%q) = %q, want prefix %q", tt.linked, got, tt.want)
		}
	}
}

func TestInterruptible(t *testing.T) {
	t.Run("first signal cancels, fn winds down", func(t *testing.T) {
		sigs := make(chan os.Signal, 2)
		a := &App{Interrupts: sigs}
		sigs <- os.Interrupt
		sig, forced := a.interruptible(t.Context(), func(ctx context.Context) { <-ctx.Done() })
		if sig != os.Interrupt || forced {
			t.Errorf("sig=%v forced=%v, want interrupt, not forced", sig, forced)
		}
	})
	t.Run("second signal abandons a stuck fn", func(t *testing.T) {
		sigs := make(chan os.Signal, 2)
		a := &App{Interrupts: sigs}
		release := make(chan struct{})
		defer close(release)
		sigs <- syscall.SIGTERM
		sigs <- os.Interrupt
		sig, forced := a.interruptible(t.Context(), func(context.Context) { <-release })
		if sig != syscall.SIGTERM || !forced {
			t.Errorf("sig=%v forced=%v, want the first signal and forced", sig, forced)
		}
	})
	t.Run("no signal", func(t *testing.T) {
		a := &App{}
		ran := false
		sig, forced := a.interruptible(t.Context(), func(context.Context) { ran = true })
		if sig != nil || forced || !ran {
			t.Errorf("sig=%v forced=%v ran=%v", sig, forced, ran)
		}
	})
}
