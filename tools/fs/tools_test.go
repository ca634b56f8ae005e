package fs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func TestReadFile(t *testing.T) {
	ws, _ := newWS(t, map[string]string{
		"small.txt": "alpha\nbeta\n",
		"big.txt":   numbered(5310),
		"nonl.txt":  "one\ntwo",
		"empty.txt": "",
		"crlf.txt":  "a\r\nb\r\n",
		"bin.dat":   "\x00\x01\x02",
		"long.txt":  strings.Repeat("x", 3000) + "\n",
	})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"whole small file", map[string]any{"path": "small.txt"}, "     1\talpha\n     2\tbeta\n"},
		{"no final newline", map[string]any{"path": "nonl.txt"}, "     1\tone\n     2\ttwo\n"},
		{"crlf", map[string]any{"path": "crlf.txt"}, "     1\ta\n     2\tb\n"},
		{"empty", map[string]any{"path": "empty.txt"}, "(empty.txt is empty)"},
		{"offset and limit", map[string]any{"path": "big.txt", "offset": 10, "limit": 2},
			"    10\tline 10\n    11\tline 11\n… [showing lines 10-11 of 5310; pass offset 12 to read more]\n"},
		{"last page", map[string]any{"path": "big.txt", "offset": 5309},
			"  5309\tline 5309\n  5310\tline 5310\n… [showing lines 5309-5310 of 5310]\n"},
	}
	for _, tt := range tests {
		if got := run(t, ws, "read_file", tt.args); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	out := run(t, ws, "read_file", map[string]any{"path": "big.txt"})
	if !strings.HasSuffix(out, "… [showing lines 1-2000 of 5310; pass offset 2001 to read more]\n") || !strings.HasPrefix(out, "     1\tline 1\n") {
		t.Errorf("default page notice wrong: …%s", out[len(out)-80:])
	}
	out = run(t, ws, "read_file", map[string]any{"path": "long.txt"})
	if !strings.Contains(out, "[1 long line(s) were cut to 2000 characters]") || len(out) > 2300 {
		t.Errorf("long line not cut (%d bytes): %s", len(out), out[len(out)-100:])
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "bin.dat"}, "binary"},
		{map[string]any{"path": "missing.txt"}, "does not exist"},
		{map[string]any{"path": "small.txt", "offset": 3}, "past the end"},
		{map[string]any{"path": "small.txt", "offset": -1}, ""},
		{map[string]any{"path": "."}, "is a directory"},
		{map[string]any{"path": "small.txt", "extra": 1}, "extra"},
	} {
		if got := runErr(t, ws, "read_file", tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("read_file(%v) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

func TestReadFileBeyondWholeFileCap(t *testing.T) {
	dir := t.TempDir()
	big := numbered(200000) // ~2.3 MB
	if err := os.WriteFile(filepath.Join(dir, "huge.log"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	ws2 := openWith(t, dir, 1<<20) // 1 MiB whole-file cap
	got := run(t, ws2, "read_file", map[string]any{"path": "huge.log", "offset": 199999})
	want := "199999\tline 199999\n200000\tline 200000\n… [showing lines 199999-200000 of 200000]\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteFileTool(t *testing.T) {
	ws, dir := newWS(t, map[string]string{"keep.sh": "old\n"})
	if err := os.Chmod(filepath.Join(dir, "keep.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := run(t, ws, "write_file", map[string]any{"path": "deep/new/file.txt", "content": "a\nb"}); got != "Created deep/new/file.txt (2 lines, 3 bytes)" {
		t.Errorf("create: %q", got)
	}
	if got := run(t, ws, "write_file", map[string]any{"path": "keep.sh", "content": "new\n"}); got != "Updated keep.sh (1 lines, 4 bytes)" {
		t.Errorf("update: %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "keep.sh")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	if got := run(t, ws, "write_file", map[string]any{"path": "keep.sh", "content": "new\n"}); !strings.Contains(got, "nothing changed") {
		t.Errorf("same content: %q", got)
	}
	cs := ws.Changes()
	if len(cs) != 2 || cs[0].CallID != "call-test" {
		t.Errorf("journal = %+v; want 2 changes by call-test", cs)
	}
	if got := runErr(t, ws, "write_file", map[string]any{"path": "deep"}); !strings.Contains(got, "content") {
		t.Errorf("missing content: %q", got)
	}
}

func TestEditFile(t *testing.T) {
	src := "func main() {\n\tfmt.Println(\"hello\")\n\treturn\n}\n\nfunc other() {\n\treturn\n}\n"
	ws, dir := newWS(t, map[string]string{"main.go": src, "crlf.txt": "one\r\ntwo\r\n", "bin": "\x00x"})
	out := run(t, ws, "edit_file", map[string]any{"path": "main.go", "old_string": "\"hello\"", "new_string": "\"hi\""})
	if !strings.Contains(out, "Edited main.go: replaced 1 occurrence.") || !strings.Contains(out, "-\tfmt.Println(\"hello\")\n+\tfmt.Println(\"hi\")") {
		t.Errorf("edit output:\n%s", out)
	}
	// Ambiguous without replace_all.
	out = runErr(t, ws, "edit_file", map[string]any{"path": "main.go", "old_string": "\treturn\n", "new_string": "\treturn // done\n"})
	if !strings.Contains(out, "occurs 2 times") || !strings.Contains(out, "lines 3, 7") {
		t.Errorf("ambiguity message: %s", out)
	}
	out = run(t, ws, "edit_file", map[string]any{"path": "main.go", "old_string": "\treturn\n", "new_string": "\treturn // done\n", "replace_all": true})
	if !strings.Contains(out, "replaced 2 occurrences") {
		t.Errorf("replace_all: %s", out)
	}
	// Whitespace mismatch is explained.
	out = runErr(t, ws, "edit_file", map[string]any{"path": "main.go", "old_string": "    fmt.Println(\"hi\")", "new_string": "x"})
	if !strings.Contains(out, "matches lines 2-2 if whitespace is ignored") || !strings.Contains(out, "     2\t\tfmt.Println(\"hi\")") {
		t.Errorf("whitespace hint: %s", out)
	}
	// A near miss shows the closest lines with numbers.
	out = runErr(t, ws, "edit_file", map[string]any{"path": "main.go", "old_string": "func othr() {\n\treturn // dne\n}", "new_string": "x"})
	if !strings.Contains(out, "closest text") || !strings.Contains(out, "lines 6-8") || !strings.Contains(out, "     6\tfunc other() {") {
		t.Errorf("closest candidate: %s", out)
	}
	out = runErr(t, ws, "edit_file", map[string]any{"path": "main.go", "old_string": "zzzz qqqq", "new_string": "x"})
	if !strings.Contains(out, "No similar text") {
		t.Errorf("no candidate: %s", out)
	}
	// CRLF files accept LF old_string and keep CRLF.
	run(t, ws, "edit_file", map[string]any{"path": "crlf.txt", "old_string": "one\ntwo", "new_string": "1\n2"})
	if got := readHost(t, filepath.Join(dir, "crlf.txt")); got != "1\r\n2\r\n" {
		t.Errorf("crlf edit = %q", got)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "main.go", "old_string": "", "new_string": "x"}, "old_string is empty"},
		{map[string]any{"path": "main.go", "old_string": "a", "new_string": "a"}, "identical"},
		{map[string]any{"path": "nope.go", "old_string": "a", "new_string": "b"}, "does not exist"},
		{map[string]any{"path": "bin", "old_string": "x", "new_string": "y"}, "binary"},
	} {
		if got := runErr(t, ws, "edit_file", tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("edit_file(%v) = %q; want %q", tc.args, got, tc.want)
		}
	}
	if got := readHost(t, filepath.Join(dir, "main.go")); got != strings.ReplaceAll(strings.Replace(src, "hello", "hi", 1), "\treturn\n", "\treturn // done\n") {
		t.Errorf("final main.go = %q", got)
	}
}

func TestListDir(t *testing.T) {
	ws, dir := newWS(t, map[string]string{
		".gitignore":       "build/\n*.log\n",
		"README.md":        "hi\n",
		"src/main.go":      strings.Repeat("x", 2048),
		"src/pkg/deep.go":  "x",
		"src/pkg/a/b/c.go": "x",
		"build/out.bin":    "x",
		"debug.log":        "x",
		".git/HEAD":        "ref\n",
	})
	if err := os.Symlink("src/main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	got := run(t, ws, "list_dir", map[string]any{})
	want := "./\n  .gitignore (13 B)\n  README.md (3 B)\n  link.go -> src/main.go\n  src/\n    main.go (2.0 KiB)\n    pkg/\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list_dir (-want +got):\n%s", diff)
	}
	got = run(t, ws, "list_dir", map[string]any{"path": "src/pkg", "depth": 5})
	want = "src/pkg/\n  a/\n    b/\n      c.go (1 B)\n  deep.go (1 B)\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list_dir deep (-want +got):\n%s", diff)
	}
	if got := runErr(t, ws, "list_dir", map[string]any{"path": "README.md"}); !strings.Contains(got, "not a directory") {
		t.Errorf("file as dir: %s", got)
	}
	small := findTool(t, ws, Options{ListEntries: 2}, "list_dir")
	res := call(t, small, map[string]any{})
	if res.IsError || !strings.Contains(res.Content, "listing stopped after 2 entries") {
		t.Errorf("cap: %+v", res)
	}
}

func TestGlob(t *testing.T) {
	ws, _ := newWS(t, map[string]string{
		".gitignore":     "vendor/\n",
		"a.go":           "",
		"b_test.go":      "",
		"src/c.go":       "",
		"src/deep/d.go":  "",
		"src/deep/e.ts":  "",
		"vendor/v.go":    "",
		".git/objects/x": "",
		"docs/readme.md": "",
		"docs/other.tsx": "",
	})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "*.go"}, "a.go\nb_test.go\n"},
		{map[string]any{"pattern": "**/*.go"}, "a.go\nb_test.go\nsrc/c.go\nsrc/deep/d.go\n"},
		{map[string]any{"pattern": "src/**/*.{go,ts}"}, "src/c.go\nsrc/deep/d.go\nsrc/deep/e.ts\n"},
		{map[string]any{"pattern": "*.go", "path": "src"}, "src/c.go\n"},
		{map[string]any{"pattern": "./docs/*"}, "docs/other.tsx\ndocs/readme.md\n"},
		{map[string]any{"pattern": "**/*.rs"}, "No files match **/*.rs."},
		{map[string]any{"pattern": "nothere/*.go"}, "No files match nothere/*.go (nothere does not exist)."},
	}
	for _, tt := range tests {
		if got := run(t, ws, "glob", tt.args); got != tt.want {
			t.Errorf("glob(%v) = %q, want %q", tt.args, got, tt.want)
		}
	}
	abs := filepath.Join(ws.Dir(), "src", "*.go")
	if got := run(t, ws, "glob", map[string]any{"pattern": abs}); got != "src/c.go\n" {
		t.Errorf("absolute pattern inside the workspace: %q", got)
	}
	for _, bad := range []string{"[", "../*", "src/../../*"} {
		runErr(t, ws, "glob", map[string]any{"pattern": bad})
	}
}

func TestGrep(t *testing.T) {
	ws, _ := newWS(t, map[string]string{
		".gitignore":     "*.gen.go\nnode_modules/\n!keep.gen.go\n",
		"a.go":           "package a\n\nfunc Hello() {}\nfunc hello() {}\n",
		"b.txt":          "Hello there\n",
		"x.gen.go":       "func Hello() {}\n",
		"keep.gen.go":    "func Hello() {}\n",
		"node_modules/m": "Hello\n",
		"bin.dat":        "Hello\x00\x01",
		"sub/.gitignore": "local.txt\n",
		"sub/local.txt":  "Hello\n",
		"sub/shown.txt":  "Hello\n",
		"ctx.txt":        "1\n2\nmatch\n4\n5\n6\n7\n8\nmatch\n10\n",
		".git/config":    "Hello\n",
	})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "Hello"}, "a.go:3:func Hello() {}\nb.txt:1:Hello there\nkeep.gen.go:1:func Hello() {}\nsub/shown.txt:1:Hello\n"},
		{map[string]any{"pattern": "hello", "ignore_case": true, "glob": "*.go"}, "a.go:3:func Hello() {}\na.go:4:func hello() {}\nkeep.gen.go:1:func Hello() {}\n"},
		{map[string]any{"pattern": "Hello", "path": "x.gen.go"}, "x.gen.go:1:func Hello() {}\n"},
		{map[string]any{"pattern": "Hello", "path": "sub", "glob": "sub/*.txt"}, "No matches for Hello.\n"},
		{map[string]any{"pattern": "Hello", "path": "sub", "glob": "*.txt"}, "sub/shown.txt:1:Hello\n"},
		{map[string]any{"pattern": "^match$", "context": 1}, "ctx.txt-2-2\nctx.txt:3:match\nctx.txt-4-4\n--\nctx.txt-8-8\nctx.txt:9:match\nctx.txt-10-10\n"},
		{map[string]any{"pattern": "^match$", "context": 3}, "ctx.txt-1-1\nctx.txt-2-2\nctx.txt:3:match\nctx.txt-4-4\nctx.txt-5-5\nctx.txt-6-6\nctx.txt-7-7\nctx.txt-8-8\nctx.txt:9:match\nctx.txt-10-10\n"},
		{map[string]any{"pattern": "nomatch"}, "No matches for nomatch.\n"},
	}
	for _, tt := range tests {
		if got := run(t, ws, "grep", tt.args); got != tt.want {
			t.Errorf("grep(%v):\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
	if got := runErr(t, ws, "grep", map[string]any{"pattern": "("}); !strings.Contains(got, "invalid regular expression") {
		t.Errorf("bad regexp: %s", got)
	}
	capped := call(t, findTool(t, ws, Options{GrepMatches: 2}, "grep"), map[string]any{"pattern": "Hello"})
	if !strings.Contains(capped.Content, "output capped at 2 matching lines") || strings.Count(capped.Content, "\n") != 3 {
		t.Errorf("cap: %q", capped.Content)
	}
}

func TestToolSpecs(t *testing.T) {
	ws, _ := newWS(t, nil)
	var names []string
	for _, tl := range Tools(ws, Options{}) {
		s := tl.Spec()
		names = append(names, s.Name)
		var schema map[string]any
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s (%v)", s.Name, s.InputSchema, err)
		}
		if s.Annotations.ReadOnlyHint == nil || s.Description == "" {
			t.Errorf("%s: missing annotations or description", s.Name)
		}
		writes := s.Name == "write_file" || s.Name == "edit_file" || s.Name == "apply_patch"
		if s.Effects.WritesFiles != writes || !(s.Effects.ReadsFiles || s.Name == "write_file") || s.Effects.Exec || s.Effects.Network {
			t.Errorf("%s: effects %+v", s.Name, s.Effects)
		}
		if s.Name != "apply_patch" && (len(s.Effects.PathArgs) != 1 || s.Effects.PathArgs[0] != "path") {
			t.Errorf("%s: PathArgs %v", s.Name, s.Effects.PathArgs)
		}
	}
	want := []string{"read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "apply_patch"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
}
