package policy

import (
	"strings"
	"testing"
)

const complexCommand = `cd pkg && env CGO_ENABLED=0 timeout 300 go test -race -run 'Test(A|B)' ./... 2>&1 | tee "$(mktemp)" | grep -v '^ok' ; ` +
	`for f in $(git diff --name-only HEAD~1); do [ -f "$f" ] && gofmt -l "$f"; done && find . -name '*.orig' -exec rm -f {} + || echo "failed: $?"`

func BenchmarkDecide(b *testing.B) {
	user := Config{
		Commands: []CommandRule{
			{Prefix: []string{"go", "test"}, Action: "allow"}, {Prefix: []string{"git", "diff"}, Action: "allow"},
			{Prefix: []string{"gofmt"}, Action: "allow"}, {Prefix: []string{"git", "push"}, Action: "deny"},
		},
		Tools: []ToolRule{{Name: "github__*", Action: "allow"}},
		Paths: []PathRule{{Pattern: "**/.env", Action: "deny"}, {Pattern: "secrets/**", Action: "ask"}},
	}
	e := newEngine(b, PresetEditor, &user, nil, nil)
	for _, bc := range []struct {
		name string
		call Call
	}{
		{"read_file", pathCall(specReadFile, "src/main.go")},
		{"run_simple", runCall("go test ./...")},
		{"run_complex", runCall(complexCommand)},
		{"run_hard", runCall("ls && " + strings.Repeat("echo x | ", 10) + "sudo ls")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Decide(ctx, bc.call)
			}
		})
	}
}
