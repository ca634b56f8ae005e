package approve

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// console approver reads its input on a goroutine of its own, which must
// end when the input ends or the approver is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
