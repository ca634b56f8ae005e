package redact

import (
	"fmt"
	"strings"
	"testing"
)

// TestSensitiveNameCacheIsBounded checks that member names, which come
// from model output and MCP servers, cannot grow the cache without bound,
// and that answers past the bound stay right.
func TestSensitiveNameCacheIsBounded(t *testing.T) {
	for i := range 3 * maxCachedNames {
		sensitiveName(fmt.Sprintf("field_%d", i))
	}
	sensitiveName(strings.Repeat("x", 10*maxCachedNameLen))
	n := 0
	sensitiveNames.Range(func(any, any) bool { n++; return true })
	if n > maxCachedNames {
		t.Errorf("the cache holds %d names; the bound is %d", n, maxCachedNames)
	}
	if !sensitiveName("api_key_after_the_bound") || sensitiveName("colour_after_the_bound") {
		t.Error("past the bound, names are no longer judged right")
	}
}
