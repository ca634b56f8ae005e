package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/reinharness/rein/telemetry/redact"
)

// Environment variables SetupOTLP reads. They are the standard OTLP
// exporter variables, plus the GenAI instrumentations' content opt-in.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvServiceName    = "OTEL_SERVICE_NAME"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvCaptureContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// Export limits: an unreachable collector must cost a run nothing and its
// exit at most a few seconds.
const (
	exportTimeout  = 5 * time.Second
	retryMaxTotal  = 3 * time.Second
	retryFirstWait = 200 * time.Millisecond
)

// Tracing is an OTLP/HTTP trace pipeline configured from the environment.
type Tracing struct {
	// Provider is the SDK provider; pass it as TracerConfig.Provider.
	Provider *sdktrace.TracerProvider
	// CaptureContent reports the user's opt-in to exporting contents.
	CaptureContent bool
	// Endpoint is where spans go, without credentials.
	Endpoint string

	mu     sync.Mutex
	first  error
	errors int
}

// SetupOTLP builds a trace pipeline when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and OTEL_SDK_DISABLED is not
// "true"); otherwise it returns nil and no error. Spans are batched and
// exported in the background; export failures are counted (Err) instead
// of printed, because telemetry must never disturb a run. Header values
// (often API keys) are registered as secrets. It installs the pipeline's
// error handler as OpenTelemetry's global one. getenv reads the
// environment; version becomes service.version.
func SetupOTLP(ctx context.Context, getenv func(string) string, version string) (*Tracing, error) {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") {
		return nil, nil
	}
	endpoint, err := tracesEndpoint(getenv)
	if err != nil || endpoint == "" {
		return nil, err
	}
	headers, err := parseHeaders(getenv(EnvHeaders), getenv(EnvTracesHeaders))
	if err != nil {
		return nil, err
	}
	for _, v := range headers {
		RegisterHeaderSecret(v)
	}
	exp, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithHeaders(headers),
		otlptracehttp.WithTimeout(exportTimeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled:         true,
			InitialInterval: retryFirstWait,
			MaxInterval:     time.Second,
			MaxElapsedTime:  retryMaxTotal,
		}))
	if err != nil {
		return nil, fmt.Errorf("telemetry: setting up the OTLP exporter for %s: %v", cleanURL(endpoint), redact.String(err.Error()))
	}
	service := getenv(EnvServiceName)
	if service == "" {
		service = "rein"
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", service),
		attribute.String("service.version", version),
	)
	t := &Tracing{
		Provider:       sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)),
		CaptureContent: strings.EqualFold(strings.TrimSpace(getenv(EnvCaptureContent)), "true"),
		Endpoint:       cleanURL(endpoint),
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.record))
	return t, nil
}

// RegisterHeaderSecret registers an HTTP header value as a secret: the
// whole value and, for "Scheme credentials" values (Bearer, Basic, …), the
// credentials alone, which is how they show up when echoed.
func RegisterHeaderSecret(v string) {
	v = strings.TrimSpace(v)
	redact.Register(v)
	if _, cred, ok := strings.Cut(v, " "); ok {
		redact.Register(strings.TrimSpace(cred))
	}
}

// tracesEndpoint returns the URL spans are posted to: the traces variable
// as given, else the general one with /v1/traces appended, as the OTLP
// specification says.
func tracesEndpoint(getenv func(string) string) (string, error) {
	raw, name := strings.TrimSpace(getenv(EnvTracesEndpoint)), EnvTracesEndpoint
	if raw == "" {
		raw, name = strings.TrimSpace(getenv(EnvEndpoint)), EnvEndpoint
	}
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("telemetry: %s must be an http:// or https:// URL, got %q", name, cleanURL(raw))
	}
	if name == EnvEndpoint {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

// parseHeaders reads the OTLP "k1=v1,k2=v2" header lists (values
// URL-encoded); the traces-specific list wins.
func parseHeaders(lists ...string) (map[string]string, error) {
	h := map[string]string{}
	for _, list := range lists {
		for _, item := range strings.Split(list, ",") {
			if strings.TrimSpace(item) == "" {
				continue
			}
			k, v, ok := strings.Cut(item, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("telemetry: %s: %q is not key=value", EnvHeaders, strings.TrimSpace(k))
			}
			if dv, err := url.QueryUnescape(strings.TrimSpace(v)); err == nil {
				v = dv
			}
			h[k] = strings.TrimSpace(v)
		}
	}
	return h, nil
}

// cleanURL drops credentials, query and fragment from a URL for messages.
func cleanURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redact.String(raw)
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func (t *Tracing) record(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.errors++
	if t.first == nil {
		t.first = err
	}
}

// Err summarises the export failures so far in one redacted line, nil if
// there were none.
func (t *Tracing) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.first == nil {
		return nil
	}
	return fmt.Errorf("telemetry: %d trace export failure(s) to %s, the first: %s; check the collector or unset %s",
		t.errors, t.Endpoint, redact.String(oneLine(t.first.Error())), EnvEndpoint)
}

// Shutdown flushes the spans still queued and stops the pipeline, giving
// up when ctx ends. Callers bound ctx (a few seconds) so an unreachable
// collector cannot hold up exit. A nil Tracing does nothing.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	err := t.Provider.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("telemetry: gave up flushing traces to %s: %w", t.Endpoint, err)
	}
	if err != nil {
		t.record(err)
	}
	return t.Err()
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
