// Package basic provides two small built-in tools, a clock and a
// calculator: side-effect free, so every policy preset allows them, and
// useful to any model that should not do arithmetic or guess the date.
package basic

import (
	"context"
	"fmt"
	"time"

	"github.com/reinharness/rein/tool"
)

// Option configures the tools.
type Option func(*config)

type config struct {
	now func() time.Time
	loc *time.Location
}

// WithClock sets the clock the now tool reads (default time.Now), so tests
// and replays are deterministic.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithLocation sets the zone the now tool uses when the call names none
// (default time.Local).
func WithLocation(loc *time.Location) Option { return func(c *config) { c.loc = loc } }

func newConfig(opts []Option) config {
	c := config{now: time.Now, loc: time.Local}
	for _, o := range opts {
		o(&c)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.loc == nil {
		c.loc = time.Local
	}
	return c
}

// Tools returns the built-in tools: now and calculator.
func Tools(opts ...Option) []tool.Tool {
	return []tool.Tool{Now(opts...), Calculator()}
}

// safe are the annotations of a tool that only computes.
func safe(title string, idempotent bool) tool.Annotations {
	return tool.Annotations{
		Title:           title,
		ReadOnlyHint:    ptr(true),
		DestructiveHint: ptr(false),
		IdempotentHint:  ptr(idempotent),
		OpenWorldHint:   ptr(false),
	}
}

func ptr[T any](v T) *T { return &v }

// NowInput is the now tool's argument object.
type NowInput struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"IANA time zone name such as UTC, Europe/Berlin or America/New_York; default: the local zone"`
}

// maxZoneLen bounds a zone name before it reaches the zoneinfo lookup; the
// longest IANA name is about 30 bytes.
const maxZoneLen = 64

// Now returns the now tool: the current time as RFC 3339 in the requested
// IANA zone.
func Now(opts ...Option) tool.Tool {
	cfg := newConfig(opts)
	return tool.Func("now", "Get the current date and time (RFC 3339), optionally in a given IANA time zone.",
		func(_ context.Context, in NowInput) (string, error) {
			loc := cfg.loc
			if in.Timezone != "" {
				var err error
				if loc, err = loadZone(in.Timezone); err != nil {
					return "", err
				}
			}
			return cfg.now().In(loc).Format(time.RFC3339), nil
		},
		tool.WithAnnotations(safe("Current time", false)))
}

// loadZone loads an IANA zone, screening the name first: it becomes a file
// path inside the zoneinfo database.
func loadZone(name string) (*time.Location, error) {
	bad := len(name) > maxZoneLen
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '/' || c == '_' || c == '-' || c == '+')
	}
	if !bad {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc, nil
		}
	}
	shown := name
	if len(shown) > maxZoneLen {
		shown = shown[:maxZoneLen] + "…"
	}
	return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as \"UTC\", \"Europe/Berlin\" or \"America/New_York\"", shown)
}

// CalculatorInput is the calculator tool's argument object.
type CalculatorInput struct {
	Expression string `json:"expression" jsonschema:"arithmetic expression, e.g. (2+3)*sqrt(16)/2^3; operators + - * / % ^, functions sqrt abs round floor ceil min max ln log10 sin cos tan, constants pi e"`
}

// Calculator returns the calculator tool, which evaluates an expression
// with Eval and answers with FormatNumber.
func Calculator() tool.Tool {
	return tool.Func("calculator", "Evaluate an arithmetic expression exactly instead of computing it in your head.",
		func(_ context.Context, in CalculatorInput) (string, error) {
			v, err := Eval(in.Expression)
			if err != nil {
				return "", err
			}
			return FormatNumber(v), nil
		},
		tool.WithAnnotations(safe("Calculator", true)))
}
