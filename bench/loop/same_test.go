package loop

import (
	"bytes"
	"os"
	"testing"
)

// TestCorrectScriptShared checks that the ADK module (a module of its
// own: ADK v2.2.0 does not build against the OpenTelemetry log API rein's
// module pins) drives its model with the same script as this package.
func TestCorrectScriptShared(t *testing.T) {
	mine, err := os.ReadFile("script_test.go")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile("../adk/script_test.go")
	if err != nil {
		t.Fatal(err)
	}
	theirs = bytes.Replace(theirs, []byte("package adk\n"), []byte("package loop\n"), 1)
	if !bytes.Equal(mine, theirs) {
		t.Fatal("bench/adk/script_test.go differs from bench/loop/script_test.go: copy it over (changing only the package clause)")
	}
}
