package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/tool"
)

type namedTool string

func (n namedTool) Spec() tool.Spec { return tool.Spec{Name: string(n)} }
func (n namedTool) Call(context.Context, json.RawMessage) (*tool.Result, error) {
	return &tool.Result{}, nil
}

func TestSyncTools(t *testing.T) {
	added := map[string]bool{}
	fresh, gone := syncTools(added, []tool.Tool{namedTool("a__x"), namedTool("a__y"), namedTool("b__z")})
	if len(fresh) != 3 || len(gone) != 0 {
		t.Fatalf("first sync: %d fresh, gone %v", len(fresh), gone)
	}
	// a dropped y and gained w; b is down (lists nothing): its tool stays.
	fresh, gone = syncTools(added, []tool.Tool{namedTool("a__x"), namedTool("a__w")})
	if len(fresh) != 1 || fresh[0].Spec().Name != "a__w" {
		t.Errorf("fresh = %v, want a__w", fresh)
	}
	if diff := cmp.Diff([]string{"a__y"}, gone); diff != "" {
		t.Errorf("gone (-want +got):\n%s", diff)
	}
	if !added["b__z"] || added["a__y"] {
		t.Errorf("added = %v", added)
	}
}
