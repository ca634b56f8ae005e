package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func seedAnthropic(f *testing.F, file string) {
	for _, name := range anthropicSkills {
		if b, err := os.ReadFile(filepath.Join("testdata", "anthropic", name, file)); err == nil {
			f.Add(b)
		}
	}
}

// FuzzFrontMatter: SKILL.md parsing never panics, and whatever it accepts
// satisfies the Agent Skills rules.
func FuzzFrontMatter(f *testing.F) {
	seedAnthropic(f, SkillFile)
	for _, s := range []string{
		"", "---", "---\n---\n", "---\r\nname: a\r\ndescription: b\r\n---\r\nbody",
		"\xef\xbb\xbf---\nname: a\ndescription: b\n---\n",
		"---\nname: &x a\ndescription: *x\nallowed-tools: [Read, \"Bash(git:*)\"]\nmetadata: {a: 1, b: [x]}\n---\n",
		"---\na: &a [*a]\n---\n", "---\nname: a\ndescription: b\nname: c\n---\n",
		"---\n" + strings.Repeat("k: v\n", 5000) + "---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		front, body, err := SplitFrontMatter(data)
		if err != nil {
			return
		}
		if len(front) > MaxFrontMatterBytes+len("---\n") || len(body) > len(data) {
			t.Fatalf("front %d bytes, body %d of %d", len(front), len(body), len(data))
		}
		fm, _, p := parseFrontMatter(front)
		if p != nil {
			if p.msg == "" {
				t.Fatal("problem without a message")
			}
			return
		}
		if ValidateName(fm.Name) != nil || descriptionProblem(fm.Description) != "" || !utf8.ValidString(fm.Description) {
			t.Fatalf("accepted name %q description %q", fm.Name, fm.Description)
		}
	})
}

// FuzzManifest: skill.json parsing never panics, and whatever it accepts
// has a valid name, a description and a prompt path inside the folder.
func FuzzManifest(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","description":"d","system_prompt_file":"p.md"}`,
		`{"name":"a","description":"d","system_prompt_file":"p.md","context_file":"c.json","allowed_tools":["x"],"mcp_servers":{"s":{"command":"c"}},"metadata":{"k":"v"}}`,
		`{"name":"a","description":"d","system_prompt_file":"../p.md"}`, `{"name":"a"} {}`, `[]`, `null`, `{"name":1}`,
		`{"name":"a","description":"d","system_prompt_file":"p","mcp_servers":{"":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, p := parseManifest(data)
		if p != nil {
			if p.msg == "" {
				t.Fatal("problem without a message")
			}
			return
		}
		if ValidateName(m.Name) != nil || descriptionProblem(m.Description) != "" || !localPath(m.SystemPromptFile) ||
			m.ContextFile != "" && !localPath(m.ContextFile) {
			t.Fatalf("accepted %+v", m)
		}
		for n := range m.MCPServers {
			if serverNameProblem(n) != "" {
				t.Fatalf("accepted server %q", n)
			}
		}
	})
}

// FuzzOpenPath: no path the model can send opens anything outside the
// skill folder.
func FuzzOpenPath(f *testing.F) {
	for _, s := range []string{"SKILL.md", "../secret", "/etc/passwd", "a/../../secret", "link/secret", `..\secret`, "./SKILL.md", "", "\x00"} {
		f.Add(s)
	}
	base := f.TempDir()
	dir := filepath.Join(base, "pdf")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, SkillFile), []byte(goodMD("pdf")), 0o644)
	os.WriteFile(filepath.Join(base, "secret"), []byte("TOP SECRET"), 0o644)
	os.Symlink(base, filepath.Join(dir, "link"))
	s, ps := Load(dir, LayerUser)
	if s == nil {
		f.Fatal(ps)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		b, err := ReadFile(s, rel, 0)
		if err == nil && strings.Contains(string(b), "TOP SECRET") {
			t.Fatalf("ReadFile(%q) read outside the skill", rel)
		}
	})
}
