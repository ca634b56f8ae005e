package shell

import "testing"

// complexCommand is policy's BenchmarkDecide command line.
const complexCommand = `cd pkg && env CGO_ENABLED=0 timeout 300 go test -race -run 'Test(A|B)' ./... 2>&1 | tee "$(mktemp)" | grep -v '^ok' ; ` +
	`for f in $(git diff --name-only HEAD~1); do [ -f "$f" ] && gofmt -l "$f"; done && find . -name '*.orig' -exec rm -f {} + || echo "failed: $?"`

func BenchmarkAnalyze(b *testing.B) {
	for _, bc := range []struct{ name, cmd string }{
		{"simple", "go test ./..."},
		{"complex", complexCommand},
		{"nested", "bash -c 'sh -c \"eval $(echo ls) | xargs -I{} env A=1 timeout 5 cat {}\"'"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.cmd)))
			for b.Loop() {
				Analyze(bc.cmd, Options{Workspace: testWorkspace, Home: testHome})
			}
		})
	}
}
