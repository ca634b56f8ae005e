package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

var anthropicSkills = []string{"brand-guidelines", "mcp-builder", "skill-creator", "webapp-testing"}

// TestAnthropicSkills loads the real skills from anthropics/skills: every
// one loads without a problem, lists its files with their true sizes,
// reads back byte for byte through Open, and activates.
func TestAnthropicSkills(t *testing.T) {
	dir := filepath.Join("testdata", "anthropic")
	c := Discover(Source{Dir: dir, Layer: LayerUser})
	if ps := c.Problems(); len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if got := strings.Join(c.Names(), " "); got != strings.Join(anthropicSkills, " ") {
		t.Fatalf("names = %s, want %v", got, anthropicSkills)
	}
	for _, s := range c.Skills() {
		t.Run(s.Name, func(t *testing.T) {
			if s.Description == "" || s.Body == "" || s.Format != FormatAgentSkill || s.Layer != LayerUser {
				t.Fatalf("skill = %+v", s)
			}
			if !strings.HasPrefix(s.Body, "# ") {
				t.Errorf("body starts %q, want the Markdown after the front matter", s.Body[:min(40, len(s.Body))])
			}
			var sawLicense bool
			for _, f := range s.Files {
				want, err := os.ReadFile(filepath.Join(dir, s.Name, f.Path))
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(want)) != f.Size {
					t.Errorf("%s: size %d, want %d", f.Path, f.Size, len(want))
				}
				got, err := ReadFile(s, f.Path, 1<<20)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("ReadFile(%s) = %d bytes, %v; want the file", f.Path, len(got), err)
				}
				sawLicense = sawLicense || f.Path == "LICENSE.txt"
			}
			if !sawLicense {
				t.Errorf("files %v lack LICENSE.txt", s.Files)
			}
			a, err := Activate(s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(a.Prompt, "# Skill: "+s.Name+"\n\n# ") || a.Context != "" {
				t.Errorf("activation prompt starts %q, context %q", a.Prompt[:min(60, len(a.Prompt))], a.Context)
			}
			out := RenderLoad(s, 0)
			if !strings.Contains(out, strings.TrimSpace(s.Body)) || !strings.Contains(out, "- LICENSE.txt (11345 bytes)") {
				t.Errorf("the skill tool's result lacks the body or the listing:\n%s", out[:min(600, len(out))])
			}
		})
	}
	mcpb, _ := c.Get("mcp-builder")
	if !hasFile(mcpb, "reference/node_mcp_server.md") || !hasFile(mcpb, "scripts/evaluation.py") {
		t.Errorf("mcp-builder files = %v", mcpb.Files)
	}
}

func hasFile(s *Skill, p string) bool {
	for _, f := range s.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// TestMalformedSkills: each malformed folder is skipped with exactly one
// problem naming the file and the field.
func TestMalformedSkills(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.md": goodMD("x")})
	huge := goodMD("huge") + strings.Repeat("filler line of a huge skill\n", (1<<20)/28)
	cases := []struct {
		name, folder string
		files        map[string]string
		file, field  string
		msg          string
	}{
		{"bad name", "Bad-Name", map[string]string{"SKILL.md": skillMD("name: Bad-Name\ndescription: d", "")}, "SKILL.md", "name", "lowercase"},
		{"double hyphen", "a--b", map[string]string{"SKILL.md": skillMD("name: a--b\ndescription: d", "")}, "SKILL.md", "name", "two hyphens"},
		{"missing description", "nodesc", map[string]string{"SKILL.md": skillMD("name: nodesc", "")}, "SKILL.md", "description", "missing"},
		{"long description", "longdesc", map[string]string{"SKILL.md": skillMD("name: longdesc\ndescription: "+strings.Repeat("x", 1025), "")}, "SKILL.md", "description", "1025"},
		{"name mismatch", "folder", map[string]string{"SKILL.md": goodMD("other")}, "SKILL.md", "name", `"other" does not match the folder name "folder"`},
		{"broken yaml", "broken", map[string]string{"SKILL.md": skillMD("name: broken\ndescription: [unclosed", "")}, "SKILL.md", "", "not valid YAML"},
		{"not a mapping", "list", map[string]string{"SKILL.md": skillMD("- a\n- b", "")}, "SKILL.md", "", "mapping"},
		{"name is a list", "nlist", map[string]string{"SKILL.md": skillMD("name: [a]\ndescription: d", "")}, "SKILL.md", "name", "single text value"},
		{"duplicate key", "dup", map[string]string{"SKILL.md": skillMD("name: dup\nname: dup\ndescription: d", "")}, "SKILL.md", "name", "twice"},
		{"no front matter", "nofm", map[string]string{"SKILL.md": "# Just markdown\n"}, "SKILL.md", "front matter", "must start with"},
		{"unclosed front matter", "open", map[string]string{"SKILL.md": "---\nname: open\ndescription: d\n"}, "SKILL.md", "front matter", "never closed"},
		{"huge front matter", "bigfm", map[string]string{"SKILL.md": "---\nname: bigfm\n" + strings.Repeat("# pad\n", 4000) + "---\n"}, "SKILL.md", "front matter", "KiB"},
		{"huge file", "huge", map[string]string{"SKILL.md": huge}, "SKILL.md", "", "over the 256 KiB limit"},
		{"binary garbage", "garbage", map[string]string{"SKILL.md": "---\nname: garbage\x00\xff\xfe\n---\n"}, "SKILL.md", "", "not UTF-8 text"},
		{"symlink escape", "escape", map[string]string{"SKILL.md": "->" + filepath.Join(outside, "secret.md")}, "SKILL.md", "", "outside the skill folder"},
		{"compatibility too long", "compat", map[string]string{"SKILL.md": skillMD("name: compat\ndescription: d\ncompatibility: "+strings.Repeat("c", 501), "")}, "SKILL.md", "compatibility", "501"},
		{"manifest without prompt file", "noprompt", map[string]string{"skill.json": `{"name":"noprompt","description":"d"}`}, "skill.json", "system_prompt_file", "missing"},
		{"manifest prompt file absent", "gone", map[string]string{"skill.json": `{"name":"gone","description":"d","system_prompt_file":"prompt.md"}`}, "skill.json", "system_prompt_file", "does not exist"},
		{"manifest prompt path escapes", "dots", map[string]string{"skill.json": `{"name":"dots","description":"d","system_prompt_file":"../x.md"}`}, "skill.json", "system_prompt_file", "inside the skill folder"},
		{"manifest unknown field", "unk", map[string]string{"skill.json": `{"name":"unk","description":"d","system_prompt":"p.md"}`}, "skill.json", "system_prompt", "not a skill.json field"},
		{"manifest wrong type", "wt", map[string]string{"skill.json": `{"name":"wt","description":"d","system_prompt_file":"p.md","allowed_tools":"read_file"}`, "p.md": "x"}, "skill.json", "allowed_tools", "array of strings"},
		{"manifest broken json", "bj", map[string]string{"skill.json": `{"name":"bj",`}, "skill.json", "", "ends early"},
		{"manifest context not json", "ctx", map[string]string{"skill.json": `{"name":"ctx","description":"d","system_prompt_file":"p.md","context_file":"c.json"}`, "p.md": "x", "c.json": "{nope"}, "skill.json", "context_file", "not valid JSON"},
		{"manifest bad server", "srv", map[string]string{"skill.json": `{"name":"srv","description":"d","system_prompt_file":"p.md","mcp_servers":{"a__b":{"command":"x"}}}`, "p.md": "x"}, "skill.json", "mcp_servers.a__b", "server name"},
		{"both formats", "both", map[string]string{"SKILL.md": goodMD("both"), "skill.json": `{}`}, "skill.json", "", "both"},
		{"no skill file", "empty", map[string]string{"notes.md": "x"}, "", "", "neither SKILL.md nor skill.json"},
		{"lower-case file name", "lower", map[string]string{"skill.md": goodMD("lower")}, "", "", "rename the skill file to SKILL.md"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, filepath.Join(root, tc.folder), tc.files)
			c := Discover(Source{Dir: root, Layer: LayerProject, Confine: root})
			if len(c.Skills()) != 0 {
				t.Fatalf("loaded %v", c.Names())
			}
			p := onlyProblem(t, c.Problems())
			wantPath := filepath.Join(root, tc.folder, tc.file)
			if p.Path != wantPath || p.Field != tc.field || !p.Skipped || !strings.Contains(p.Message, tc.msg) {
				t.Errorf("problem = %+v\nwant path %s, field %q, message containing %q", p, wantPath, tc.field, tc.msg)
			}
			if strings.ContainsAny(p.String(), "\x00\n\r") {
				t.Errorf("String() = %q holds control characters", p.String())
			}
		})
	}
}

// TestListingLeavesOutEscapes: a good skill with a link leading out of it
// loads, with one warning naming the link; the link is not listed and
// cannot be opened.
func TestListingLeavesOutEscapes(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "TOP SECRET"})
	root := t.TempDir()
	writeTree(t, filepath.Join(root, "pdf"), map[string]string{
		"SKILL.md":              goodMD("pdf"),
		"references/guide.md":   "guide",
		"references/secret.txt": "->" + filepath.Join(outside, "secret.txt"),
		"references/alias.md":   "->guide.md",
		".git/config":           "hidden",
	})
	c := Discover(Source{Dir: root, Layer: LayerUser})
	s, ok := c.Get("pdf")
	if !ok {
		t.Fatalf("pdf not loaded: %v", c.Problems())
	}
	p := onlyProblem(t, c.Problems())
	if p.Path != filepath.Join(root, "pdf", "references", "secret.txt") || p.Skipped || !strings.Contains(p.Message, "outside the skill folder") {
		t.Errorf("problem = %+v", p)
	}
	var paths []string
	for _, f := range s.Files {
		paths = append(paths, f.Path)
	}
	if got := strings.Join(paths, " "); got != "SKILL.md references/alias.md references/guide.md" {
		t.Errorf("files = %s", got)
	}
	if b, err := ReadFile(s, "references/secret.txt", 0); err == nil || !errors.Is(err, ErrOutside) {
		t.Errorf("ReadFile of the escaping link = %q, %v; want ErrOutside", b, err)
	}
	if b, err := ReadFile(s, "references/alias.md", 0); err != nil || string(b) != "guide" {
		t.Errorf("ReadFile of a link inside = %q, %v", b, err)
	}
}

// TestOpenRefusesAttacks: every path that would leave the skill folder,
// and every non-regular file, is refused; nothing outside is read.
func TestOpenRefusesAttacks(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "TOP SECRET"})
	root := t.TempDir()
	dir := filepath.Join(root, "pdf")
	writeTree(t, dir, map[string]string{
		"SKILL.md":      goodMD("pdf"),
		"ok.txt":        "fine",
		"out.txt":       "->" + filepath.Join(outside, "secret.txt"),
		"outdir":        "->" + outside,
		"rel-out.txt":   "->../../" + filepath.Base(outside) + "/secret.txt",
		"sub/keep.txt":  "kept",
		"sub/up-and-in": "->../ok.txt",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ps := Load(dir, LayerUser)
	if s == nil {
		t.Fatal(ps)
	}
	for _, rel := range []string{"", "/etc/passwd", filepath.Join(outside, "secret.txt"), "..", "../pdf/ok.txt",
		"sub/../../x", "out.txt", "outdir/secret.txt", "rel-out.txt", "fifo", "sub", "ok.txt\x00", `..\..\secret.txt`} {
		f, err := Open(s, rel)
		if err == nil {
			b, _ := io.ReadAll(f)
			f.Close()
			t.Errorf("Open(%q) = %q; want an error", rel, b)
			continue
		}
		if strings.Contains(err.Error(), "TOP SECRET") {
			t.Errorf("Open(%q) error leaks content: %v", rel, err)
		}
	}
	for rel, want := range map[string]string{"ok.txt": "fine", "sub/keep.txt": "kept", "sub/up-and-in": "fine", "./sub/../ok.txt": "fine"} {
		b, err := ReadFile(s, rel, 0)
		if err != nil || string(b) != want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", rel, b, err, want)
		}
	}
}

// TestProjectFolderLinkOutsideWorkspace: a project skill folder that is a
// link out of the workspace is refused; the same link in the user layer
// is followed.
func TestProjectFolderLinkOutsideWorkspace(t *testing.T) {
	elsewhere := t.TempDir()
	writeTree(t, filepath.Join(elsewhere, "pdf"), map[string]string{"SKILL.md": goodMD("pdf")})
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{".rein/skills/pdf": "->" + filepath.Join(elsewhere, "pdf")})
	c := Discover(DefaultSources("", ws)...)
	if len(c.Skills()) != 0 {
		t.Fatalf("loaded %v through a link out of the workspace", c.Names())
	}
	p := onlyProblem(t, c.Problems())
	if p.Path != filepath.Join(ws, ".rein", "skills", "pdf") || !p.Skipped || !strings.Contains(p.Message, "outside the workspace") {
		t.Errorf("problem = %+v", p)
	}

	user := t.TempDir()
	writeTree(t, user, map[string]string{"skills/pdf": "->" + filepath.Join(elsewhere, "pdf")})
	c = Discover(DefaultSources(user, "")...)
	if _, ok := c.Get("pdf"); !ok || len(c.Problems()) != 0 {
		t.Errorf("user-layer link not followed: %v %v", c.Names(), c.Problems())
	}
}

// TestDiscoverLayers: later layers shadow earlier ones, one warning each;
// skills come out sorted with their layer and folder.
func TestDiscoverLayers(t *testing.T) {
	user, ws := t.TempDir(), t.TempDir()
	writeTree(t, user, map[string]string{"skills/pdf/SKILL.md": goodMD("pdf"), "skills/zeta/SKILL.md": goodMD("zeta"), "skills/README.md": "not a skill"})
	for _, d := range []string{".agents", ".claude", ".rein"} {
		writeTree(t, ws, map[string]string{d + "/skills/pdf/SKILL.md": goodMD("pdf")})
	}
	writeTree(t, ws, map[string]string{".claude/skills/alpha/SKILL.md": goodMD("alpha")})
	c := Discover(DefaultSources(user, ws)...)
	if got := strings.Join(c.Names(), " "); got != "alpha pdf zeta" {
		t.Fatalf("names = %s", got)
	}
	pdf, _ := c.Get("pdf")
	if pdf.Layer != LayerProject || pdf.Dir != filepath.Join(ws, ".rein", "skills", "pdf") {
		t.Errorf("pdf = %s layer at %s; want the .rein one", pdf.Layer, pdf.Dir)
	}
	zeta, _ := c.Get("zeta")
	if zeta.Layer != LayerUser {
		t.Errorf("zeta layer = %s", zeta.Layer)
	}
	ps := c.Problems()
	if len(ps) != 3 {
		t.Fatalf("problems = %v; want 3 shadowing warnings", ps)
	}
	for i, d := range []string{".agents", ".claude", ".rein"} {
		if ps[i].Skipped || ps[i].Field != "name" || !strings.Contains(ps[i].Message, "shadows") || !strings.HasPrefix(ps[i].Path, filepath.Join(ws, d)) {
			t.Errorf("problem %d = %+v", i, ps[i])
		}
	}
	// A project skill still opens its files through the workspace root.
	if b, err := ReadFile(pdf, "SKILL.md", 0); err != nil || !strings.Contains(string(b), "name: pdf") {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
}

// TestManifestSkill loads a skill.json with every field.
func TestManifestSkill(t *testing.T) {
	root := t.TempDir()
	writeTree(t, filepath.Join(root, "deploy"), map[string]string{
		"skill.json": `{"name":"deploy","description":"Deploys the service. Use when asked to ship.",
			"system_prompt_file":"prompts/system.md","context_file":"context.json",
			"allowed_tools":["read_file","Bash(make deploy)"],
			"mcp_servers":{"ci":{"command":"ci-server","args":["--stdio"]}}}`,
		"prompts/system.md": "Run make deploy.\n",
		"context.json":      "{\n  \"env\": \"staging\"\n}\n",
	})
	c := Discover(Source{Dir: root})
	s, ok := c.Get("deploy")
	if !ok || len(c.Problems()) != 0 {
		t.Fatalf("%v %v", c.Names(), c.Problems())
	}
	if s.Format != FormatManifest || s.Body != "Run make deploy.\n" || string(s.Context) != `{"env":"staging"}` {
		t.Errorf("skill = %+v", s)
	}
	if got := string(s.MCPJSON()); got != `{"mcpServers":{"ci":{"command":"ci-server","args":["--stdio"]}}}` {
		t.Errorf("MCPJSON = %s", got)
	}
	a, err := Activate(s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Prompt != "# Skill: deploy\n\nRun make deploy.\n" || a.Context != "# Skill Context: deploy\n\n{\"env\":\"staging\"}\n" {
		t.Errorf("prompt %q context %q", a.Prompt, a.Context)
	}
}

// TestContextCap: a context section past 16 KiB loads with a warning and
// fails to activate; nothing is truncated.
func TestContextCap(t *testing.T) {
	for _, tc := range []struct {
		size int
		ok   bool
	}{{MaxContextSectionBytes - 200, true}, {MaxContextSectionBytes + 1, false}} {
		root := t.TempDir()
		ctx := `{"k":"` + strings.Repeat("v", tc.size) + `"}`
		writeTree(t, filepath.Join(root, "big"), map[string]string{
			"skill.json": `{"name":"big","description":"d","system_prompt_file":"p.md","context_file":"c.json"}`,
			"p.md":       "x", "c.json": ctx,
		})
		c := Discover(Source{Dir: root})
		s, ok := c.Get("big")
		if !ok {
			t.Fatal(c.Problems())
		}
		a, err := Activate(s)
		if tc.ok {
			if err != nil || len(c.Problems()) != 0 || !strings.Contains(a.Context, ctx) {
				t.Errorf("size %d: %v %v", tc.size, err, c.Problems())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "16 KiB") {
			t.Errorf("size %d: Activate error = %v", tc.size, err)
		}
		if p := onlyProblem(t, c.Problems()); p.Skipped || p.Field != "context_file" {
			t.Errorf("warning = %+v", p)
		}
	}
}

// TestListingBounds: the listing stops at MaxFiles and MaxDepth with one
// warning and FilesTruncated.
func TestListingBounds(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"SKILL.md": goodMD("many")}
	for i := range MaxFiles + 5 {
		files[fmt.Sprintf("assets/f%04d", i)] = "x"
	}
	files[strings.Repeat("d/", MaxDepth+2)+"deep.txt"] = "deep"
	writeTree(t, filepath.Join(root, "many"), files)
	s, ps := Load(filepath.Join(root, "many"), LayerUser)
	if s == nil || !s.FilesTruncated || len(s.Files) != MaxFiles {
		t.Fatalf("files %d truncated %v problems %v", len(s.Files), s != nil && s.FilesTruncated, ps)
	}
	if p := onlyProblem(t, ps); p.Skipped || !strings.Contains(p.Message, "more than the listing shows") {
		t.Errorf("warning = %+v", p)
	}
}
