package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reinharness/rein/memory"
)

// BenchmarkSearch searches a store of 4,000 notes (about 1 MiB) with
// FTS5 and with the plain fallback.
func BenchmarkSearch(b *testing.B) {
	for _, noFTS := range []bool{false, true} {
		b.Run(fmt.Sprintf("noFTS=%v", noFTS), func(b *testing.B) {
			ctx := context.Background()
			s, err := memory.OpenSQLite(ctx, memory.Config{Path: filepath.Join(b.TempDir(), "m.db"), NoFTS: noFTS})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := range 4000 {
				text := fmt.Sprintf("note %d about module%d: the build of package p%d uses flag -tags=t%d and runs in %d seconds", i, i%97, i%31, i%13, i)
				if _, err := s.Put(ctx, memory.Entry{Scope: memory.ScopeWorkspace, Workspace: "/w", Text: text}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				if hits, err := s.Search(ctx, "module42 build flag", memory.Filter{Workspace: "/w", Limit: 20}); err != nil || len(hits) == 0 {
					b.Fatal(err, len(hits))
				}
			}
		})
	}
}
