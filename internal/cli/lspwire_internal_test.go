package cli

import (
	"testing"

	"github.com/reinharness/rein/lsp"
)

func TestIntroducedDropsWhatWasThere(t *testing.T) {
	e := func(line int, msg string) lsp.Diagnostic {
		return lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: line}}, Severity: lsp.SeverityError, Source: "compiler", Message: msg}
	}
	files := []lsp.FileDiagnostics{
		{Path: "a.go", Diagnostics: []lsp.Diagnostic{e(9, "old"), e(10, "old"), e(11, "new")}},
		{Path: "b.go", Diagnostics: []lsp.Diagnostic{e(1, "old")}}, // nothing known of b.go before
	}
	// One "old" before in a.go, moved from line 3: only one of the two
	// now is the edit's own.
	dropped := introduced(files, map[string][]lsp.Diagnostic{"a.go": {e(3, "old")}})
	if dropped != 1 {
		t.Errorf("dropped %d, want 1", dropped)
	}
	if got := files[0].Diagnostics; len(got) != 2 || got[0].Range.Start.Line != 10 || got[1].Message != "new" {
		t.Errorf("a.go kept %+v", got)
	}
	if len(files[1].Diagnostics) != 1 {
		t.Errorf("b.go, of which nothing was known, lost errors: %+v", files[1].Diagnostics)
	}
}
