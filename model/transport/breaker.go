package transport

import (
	"fmt"
	"sync"
	"time"

	"github.com/reinharness/rein/model"
)

// Breaker defaults.
const (
	DefaultBreakerThreshold = 5
	DefaultBreakerCooldown  = 30 * time.Second
)

// BreakerState is the state of a circuit breaker.
type BreakerState int

const (
	// BreakerClosed lets every request through.
	BreakerClosed BreakerState = iota
	// BreakerOpen fails requests fast until the cooldown has passed.
	BreakerOpen
	// BreakerHalfOpen lets one probe request through; its result decides
	// whether the breaker closes or opens again.
	BreakerHalfOpen
)

func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("BreakerState(%d)", int(s))
}

// Breaker is a per-endpoint circuit breaker: after Threshold (default 5)
// consecutive retryable failures (transport errors, 5xx/529; NOT 4xx like
// 400/401/404, and not 408/409/429, which mean the server is up but busy)
// it opens for Cooldown (default 30s) and Do fails fast with an error
// wrapping model.ErrCircuitOpen (naming the endpoint and when it will
// retry); after Cooldown one probe request is let through (half-open);
// success closes it, failure opens it for another Cooldown.
//
// Its point is to stop a fleet of agents from hammering, and waiting on, a
// server that is down. A Breaker is safe for concurrent use.
type Breaker struct {
	mu        sync.Mutex
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	failures  int       // consecutive unhealthy attempts
	openUntil time.Time // zero while closed
	probing   bool      // a half-open probe is in flight
}

// NewBreaker returns a closed Breaker; threshold <= 0 and cooldown <= 0
// select the defaults.
func NewBreaker(threshold int, cooldown time.Duration) *Breaker {
	if threshold <= 0 {
		threshold = DefaultBreakerThreshold
	}
	if cooldown <= 0 {
		cooldown = DefaultBreakerCooldown
	}
	return &Breaker{threshold: threshold, cooldown: cooldown, now: time.Now}
}

// SetClock replaces the breaker's clock; it is a test seam. nil restores
// time.Now.
func (b *Breaker) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	b.mu.Lock()
	b.now = now
	b.mu.Unlock()
}

// State reports the breaker's current state.
func (b *Breaker) State() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.openUntil.IsZero():
		return BreakerClosed
	case b.now().Before(b.openUntil):
		return BreakerOpen
	default:
		return BreakerHalfOpen
	}
}

// allow decides whether a request may go out now. probe reports that it is
// the single half-open probe, whose result must be passed to record.
func (b *Breaker) allow(provider, endpoint string) (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openUntil.IsZero() {
		return false, nil
	}
	now := b.now()
	if now.Before(b.openUntil) {
		return false, fmt.Errorf("%s endpoint %s failed %d times in a row; requests paused until %s (in %s): %w",
			provider, endpoint, b.failures, b.openUntil.Format(time.TimeOnly),
			b.openUntil.Sub(now).Round(time.Second), model.ErrCircuitOpen)
	}
	if b.probing {
		return false, fmt.Errorf("%s endpoint %s failed %d times in a row; a probe request is checking it now, retry when it finishes: %w",
			provider, endpoint, b.failures, model.ErrCircuitOpen)
	}
	b.probing = true
	return true, nil
}

// record feeds one attempt's outcome into the breaker.
func (b *Breaker) record(h health, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	switch h {
	case healthy:
		b.failures = 0
		b.openUntil = time.Time{}
	case unhealthy:
		b.failures++
		if probe || (b.openUntil.IsZero() && b.failures >= b.threshold) {
			b.openUntil = b.now().Add(b.cooldown)
		}
	}
}

// Breakers maps endpoints to their breakers, creating them on first use.
// The zero value is ready and uses the default threshold and cooldown. It
// is safe for concurrent use.
type Breakers struct {
	threshold int
	cooldown  time.Duration

	mu sync.Mutex
	m  map[string]*Breaker
}

// NewBreakers returns a Breakers whose breakers use threshold and cooldown
// (<= 0 selects the defaults).
func NewBreakers(threshold int, cooldown time.Duration) *Breakers {
	return &Breakers{threshold: threshold, cooldown: cooldown}
}

// For returns the breaker for endpoint, creating it if needed. Callers
// should pass a cleaned endpoint (see CleanEndpoint) so credentials never
// become map keys.
func (b *Breakers) For(endpoint string) *Breaker {
	b.mu.Lock()
	defer b.mu.Unlock()
	if br, ok := b.m[endpoint]; ok {
		return br
	}
	if b.m == nil {
		b.m = make(map[string]*Breaker)
	}
	br := NewBreaker(b.threshold, b.cooldown)
	b.m[endpoint] = br
	return br
}

// defaultBreakers holds the breakers of every Client configured without its
// own, so that all users of one endpoint in a process share its health.
var defaultBreakers = &Breakers{}

// DefaultBreakers returns the breakers shared by every Client configured
// without its own. It is a function, not a variable, so no importer can
// swap the process-wide registry.
func DefaultBreakers() *Breakers { return defaultBreakers }
