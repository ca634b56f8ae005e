package transport

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// package starts long-lived goroutines (streams, timers, workers) and
// each must end with the call, stream or value that started it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
