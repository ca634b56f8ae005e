package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const mod = "example.com/m"

// profile has a/ at 3 of 4 statements (one block listed twice, as merged
// profiles list it, covered by one run), b/ at 0 of 2, the root at 1 of 1
// and a package of another module.
const profile = `mode: atomic
example.com/m/a/x.go:1.1,2.2 2 5
example.com/m/a/x.go:3.1,4.2 1 0
example.com/m/a/x.go:3.1,4.2 1 3
example.com/m/a/y.go:1.1,2.2 1 0
example.com/m/b/z.go:1.1,2.2 2 0
example.com/m/r.go:1.1,1.9 1 1
example.com/other/o.go:1.1,2.2 9 9
`

func TestParseProfile(t *testing.T) {
	got, err := parseProfile(strings.NewReader(profile), mod)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*counts{"a": {4, 3}, "b": {2, 0}, ".": {1, 1}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(counts{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseProfileRefusesGarbage(t *testing.T) {
	for _, in := range []string{
		"",
		"not a profile\n",
		"mode: set\nexample.com/m/a/x.go:1.1,2.2 2\n",             // truncated line
		"mode: set\nexample.com/m/a/x.go:1.1,2.2 two 1\n",         // not a number
		"mode: set\nexample.com/m/a/x.go:1.1,2.2 -2 1\n",          // negative
		"mode: set\nexample.com/m/a/x.go 2 1\n",                   // no range
		"mode: set\nexample.com/m/a/x.txt:1.1,2.2 2 1\n",          // not Go
		"mode: set\n" + strings.Repeat("x", maxLine+1) + " 1 1\n", // hostile length
	} {
		if _, err := parseProfile(strings.NewReader(in), mod); err == nil {
			t.Errorf("parseProfile(%.60q) succeeded", in)
		}
	}
}

func TestParseMinimums(t *testing.T) {
	m, err := parseMinimums(strings.NewReader("# c\nexclude cmd/\nexclude b\n\ndefault 75 # new packages\ntotal 80\na 70.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.fallback != 75 || m.total != 80 || !m.hasTotal || m.byPackage["a"] != 70.5 {
		t.Errorf("parsed %+v", m)
	}
	for pkg, want := range map[string]bool{"cmd/rein": true, "cmd": true, "b": true, "bb": false, "b/c": false, "a": false} {
		if m.excluded(pkg) != want {
			t.Errorf("excluded(%q) = %v, want %v", pkg, !want, want)
		}
	}
	for _, in := range []string{"a\n", "a 101\n", "a -1\n", "a x\n", "a 1 2\n", "a 1\na 2\n", "total NaN\n"} {
		if _, err := parseMinimums(strings.NewReader(in)); err == nil {
			t.Errorf("parseMinimums(%q) succeeded", in)
		}
	}
}

// TestRun: the table lists every counted package and the total, and the
// run fails for a package under its minimum, one under the default, a
// stale line and the total.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gomod := write("go.mod", "module "+mod+"\n\ngo 1.26\n")
	prof := write("cover.out", profile)
	var out bytes.Buffer
	pass := write("pass.txt", "default 0\na 75\n. 100\ntotal 50\n")
	if err := run(prof, pass, gomod, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	for _, want := range []string{"a ", "75.0%", "b ", "0.0%", "total", "57.1%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, &out)
		}
	}
	fail := write("fail.txt", "default 10\na 76\ngone 50\ntotal 60\n")
	out.Reset()
	err := run(prof, fail, gomod, &out)
	if err == nil {
		t.Fatalf("run passed:\n%s", &out)
	}
	for _, want := range []string{"a: 75.0%", "b: 0.0%", "gone: listed", "total: 57.1%"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if !strings.Contains(out.String(), "FAIL") {
		t.Errorf("table shows no FAIL:\n%s", &out)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(profile))
	f.Add([]byte("exclude a/\ndefault 75\na 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if cov, err := parseProfile(bytes.NewReader(data), mod); err == nil {
			for pkg, c := range cov {
				if c.covered > c.statements || c.covered < 0 {
					t.Fatalf("%s: %d of %d covered", pkg, c.covered, c.statements)
				}
			}
		}
		if m, err := parseMinimums(bytes.NewReader(data)); err == nil {
			for pkg, v := range m.byPackage {
				if v < 0 || v > 100 {
					t.Fatalf("%s: minimum %v", pkg, v)
				}
			}
		}
	})
}
