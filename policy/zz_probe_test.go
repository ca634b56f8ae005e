package policy

import (
	"os"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	b, err := os.ReadFile("/tmp/an/probe.txt")
	if err != nil {
		t.Skip()
	}
	e := newEngine(t, PresetFull, nil, nil, nil)
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" {
			continue
		}
		d := e.Decide(t.Context(), runCall(l))
		mark := "   "
		if !d.Hard {
			mark = "!!!"
		}
		t.Logf("%s %-5s %-60s %s", mark, d.Action, l, d.Reason)
	}
}
