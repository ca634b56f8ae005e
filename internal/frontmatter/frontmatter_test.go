package frontmatter

import (
	"errors"
	"strings"
	"testing"
)

type meta struct {
	Name        string     `yaml:"name"`
	Description string     `yaml:"description"`
	Tools       StringList `yaml:"tools"`
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      meta
		body      string
	}{
		{"basic", "---\nname: a\ndescription: b c\n---\nhello\n", meta{Name: "a", Description: "b c"}, "hello\n"},
		{"crlf and bom", "\ufeff---\r\nname: a\r\n---\r\nbody", meta{Name: "a"}, "body"},
		{"tools string", "---\ntools: Read, Grep Glob\n---\n", meta{Tools: StringList{"Read", "Grep", "Glob"}}, ""},
		{"tools list", "---\ntools:\n  - Read\n  - Bash\n---\nx", meta{Tools: StringList{"Read", "Bash"}}, "x"},
		{"empty front", "---\n---\nbody", meta{}, "body"},
		{"unknown keys", "---\nname: a\nmodel: sonnet\ncolor: red\n---\n", meta{Name: "a"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m meta
			body, err := Parse([]byte(tc.doc), &m)
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != tc.want.Name || m.Description != tc.want.Description || strings.Join(m.Tools, ",") != strings.Join(tc.want.Tools, ",") {
				t.Errorf("meta = %+v, want %+v", m, tc.want)
			}
			if string(body) != tc.body {
				t.Errorf("body = %q, want %q", body, tc.body)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"none", "# title\n", "no front matter"},
		{"unclosed", "---\nname: a\n", "never closed"},
		{"bad yaml", "---\nname: a\n  b: [\n---\n", "line "},
		{"tools map", "---\ntools: {a: b}\n---\n", "list of names"},
		{"not utf8", "---\nname: \xff\n---\n", "UTF-8"},
		{"huge", "---\n" + strings.Repeat("a: b\n", MaxFrontMatter/4) + "---\n", "longer than"},
		{"too big", strings.Repeat("x", MaxDocument+1), "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m meta
			_, err := Parse([]byte(tc.doc), &m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, _, err := Split([]byte("plain")); !errors.Is(err, ErrNoFrontMatter) {
		t.Errorf("Split(plain) = %v, want ErrNoFrontMatter", err)
	}
}

func TestYAMLLineCountsFromDocumentTop(t *testing.T) {
	var m meta
	_, err := Parse([]byte("---\nname: a\ndescription: [\n---\n"), &m)
	if err == nil || !strings.Contains(err.Error(), "line 3") && !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("err = %v, want a line number in the document", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\ntools: [a, b]\n---\nbody"))
	f.Add([]byte("---\n&a [*a]\n---\n"))
	f.Add([]byte("---\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var m meta
		body, err := Parse(doc, &m)
		if err == nil && len(body) > len(doc) {
			t.Fatalf("body longer than the document")
		}
	})
}
