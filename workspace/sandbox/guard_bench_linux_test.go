package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkGuard measures what the supervisor costs a command: `true`
// prepared, applied and run to its end in each sandbox mode, with and
// without the supervisor.
//
//	go test -run '^$' -bench Guard ./workspace/sandbox/
func BenchmarkGuard(b *testing.B) {
	dir := b.TempDir()
	for _, mode := range []string{"off", "landlock", "bwrap"} {
		if mode != "off" {
			if _, err := Available(); err != nil {
				continue
			}
		}
		if mode == "bwrap" {
			if _, err := Namespaces(); err != nil {
				continue
			}
		}
		p, err := testPolicy(mode, dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, guard := range []bool{false, true} {
			name := mode + "/unguarded"
			if guard {
				name = mode + "/guarded"
			}
			b.Run(name, func(b *testing.B) {
				noGuard = !guard
				defer func() { noGuard = false }()
				for b.Loop() {
					l, err := Prepare(p, []string{"true"})
					if err != nil {
						b.Fatal(err)
					}
					cmd := &exec.Cmd{Dir: dir}
					l.Apply(cmd)
					if err := cmd.Run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
