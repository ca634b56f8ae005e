package fs

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system time so far: on a shared
// machine it varies less than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// goSrcText concatenates the Go files of GOROOT/src up to limit bytes:
// source text to time the line scan on without the walk and the reads.
func goSrcText(tb testing.TB, limit int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	filepath.WalkDir(goSrc(tb), func(p string, d fs.DirEntry, err error) error {
		if err != nil || buf.Len() >= limit {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err == nil {
				buf.Write(b)
			}
		}
		return nil
	})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// BenchmarkLineScan times the matcher alone finding every matching line
// of 16 MB of Go source, for patterns with and without a literal.
func BenchmarkLineScan(b *testing.B) {
	text := goSrcText(b, 16<<20)
	for _, c := range []struct{ name, expr string }{
		{"noliteral", `(?m)[A-Z]{4,}[0-9]{2,}`},
		{"noliteral-lower", `(?m)[a-z]+[0-9]{4}[A-Z]`},
		{"prefix", `(?m)func \([a-z]+ \*Reader\) Read[A-Za-z]*`},
		{"ignorecase", `(?i)(?m)content-type`},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := newLineMatcher(c.expr)
			if err != nil {
				b.Fatal(err)
			}
			sc := m.scratch()
			b.SetBytes(int64(len(text)))
			lines := 0
			cpu0 := cpuTime()
			for b.Loop() {
				lines = 0
				sc.start()
				for pos := 0; pos <= len(text); {
					_, le, ok := sc.nextLine(text, pos)
					if !ok {
						break
					}
					lines++
					pos = le + 1
				}
			}
			b.ReportMetric(float64(lines), "lines")
			b.ReportMetric(float64(len(text))*float64(b.N)/(cpuTime()-cpu0).Seconds()/1e6, "cpu-MB/s")
		})
	}
}
