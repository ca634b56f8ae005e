package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// realSkills are the skills of skill/testdata, copied from the public
// anthropics/skills repository (Apache-2.0, see its NOTICE).
var realSkills = []string{"brand-guidelines", "mcp-builder", "skill-creator", "webapp-testing"}

// installSkills copies the real skills into dir (a skills folder).
func installSkills(t *testing.T, dir string) {
	t.Helper()
	for _, name := range realSkills {
		if err := os.CopyFS(filepath.Join(dir, name), os.DirFS(filepath.Join("..", "..", "skill", "testdata", "anthropic", name))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSkillsListRealSkills(t *testing.T) {
	e := newEnv(t)
	installSkills(t, filepath.Join(e.workspace, ".claude", "skills"))
	writeFiles(t, filepath.Join(e.home, ".config", "rein", "skills"), map[string]string{
		"Bad_Name/SKILL.md": "---\nname: Bad_Name\ndescription: x\n---\nbody",
	})
	res := e.run(t, "skills", "list")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	// Aligned columns: each row's source and description start where
	// the header's titles do.
	out := lines(res.stdout)
	src, desc := strings.Index(out[0], "SOURCE"), strings.Index(out[0], "DESCRIPTION")
	if !strings.HasPrefix(out[0], "NAME ") || src < 0 || desc < 0 || strings.Contains(res.stdout, "\t") {
		t.Errorf("header %q (or a tab in the output)", out[0])
	}
	for i, name := range realSkills {
		row := out[1+i]
		if !strings.HasPrefix(row, name+" ") || !strings.HasPrefix(row[src:], "project ") ||
			!strings.Contains(row[src:desc], filepath.Join(".claude", "skills", name)+" ") || row[desc-1] != ' ' || row[desc] == ' ' {
			t.Errorf("row %d is not aligned with the header:\n%s\n%s", i, out[0], row)
		}
	}
	if !strings.Contains(res.stdout, "1 problem:\n  ") || !strings.Contains(res.stdout, "Bad_Name") {
		t.Errorf("the malformed skill is not listed as a problem:\n%s", res.stdout)
	}

	// --output-format json, which the command offers, prints the same.
	res = e.run(t, "skills", "list", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("json: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	var got struct {
		Skills   []struct{ Name, Description, Source, Dir, File string }
		Problems []struct {
			Path, Message string
			Skipped       bool
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, res.stdout)
	}
	var names []string
	for _, sk := range got.Skills {
		names = append(names, sk.Name)
		if sk.Source != "project" || sk.Description == "" || !strings.HasSuffix(sk.File, "SKILL.md") {
			t.Errorf("json skill %+v", sk)
		}
	}
	if diff := cmp.Diff(realSkills, names); diff != "" {
		t.Errorf("json skills (-want +got):\n%s", diff)
	}
	if len(got.Problems) != 1 || !strings.Contains(got.Problems[0].Path, "Bad_Name") || !got.Problems[0].Skipped {
		t.Errorf("json problems %+v", got.Problems)
	}
	if res := e.run(t, "skills", "list", "--output-format", "yaml"); res.code != 2 || !strings.Contains(res.stderr, "text or json") {
		t.Errorf("yaml: exit %d, stderr %q", res.code, res.stderr)
	}
}

// Every real skill activates through rein run --skill: the request's
// system prompt has its "# Skill: NAME" section, and every request
// discloses all of them by name.
func TestRunSkillActivatesEveryRealSkill(t *testing.T) {
	e := newEnv(t)
	installSkills(t, filepath.Join(e.workspace, ".agents", "skills"))
	for _, name := range realSkills {
		srv := modeltest.NewServer(t, sse(textBody("ok")))
		res := e.run(t, "run", "-e", srv.URL, "--skill", name, "use it")
		if res.code != 0 {
			t.Fatalf("%s: exit %d; stderr:\n%s", name, res.code, res.stderr)
		}
		body := srv.Requests()[0].Body
		system := systemText(t, body)
		if !strings.Contains(system, "\n# Skill: "+name+"\n\n") {
			t.Errorf("%s: the system prompt lacks its section", name)
		}
		for _, other := range realSkills {
			if !strings.Contains(system, "- "+other+": ") {
				t.Errorf("%s: the disclosure lacks %s", name, other)
			}
			if other != name && strings.Contains(system, "# Skill: "+other) {
				t.Errorf("%s: %s is active too", name, other)
			}
		}
		if !strings.Contains(strings.Join(requestTools(t, body), " "), "skill") {
			t.Errorf("%s: the skill tool is not offered", name)
		}
	}
	res := e.run(t, "run", "-e", "http://127.0.0.1:1", "--skill", "mcp-bulder", "x")
	if res.code != 2 || !strings.Contains(res.stderr, `unknown skill "mcp-bulder" (did you mean "mcp-builder"?)`) {
		t.Errorf("unknown skill: exit %d; stderr:\n%s", res.code, res.stderr)
	}
}

// The acceptance run of issue 10: the model calls skill, then read_file on
// a reference file of the skill, and gets both contents back; hostile
// skill:// paths and writes get errors and reach nothing outside.
func TestSkillToolThenReadFile(t *testing.T) {
	e := newEnv(t)
	skills := filepath.Join(e.workspace, ".claude", "skills")
	installSkills(t, skills)
	secret := filepath.Join(filepath.Dir(e.workspace), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(skills, "mcp-builder", "reference", "leak.md")); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t,
		sse(toolBody("s1", "skill", `{"name":"mcp-builder"}`)),
		sse(twoToolBody("r1", "read_file", `{"path":"skill://mcp-builder/reference/evaluation.md","limit":5}`,
			"r2", "read_file", `{"path":"skill://mcp-builder/../../../secret.txt"}`)),
		sse(twoToolBody("r3", "read_file", `{"path":"skill://mcp-builder//`+secret[1:]+`"}`,
			"r4", "read_file", `{"path":"skill://mcp-builder/reference/leak.md"}`)),
		sse(twoToolBody("r5", "read_file", `{"path":"skill://`+secret+`"}`,
			"w1", "write_file", `{"path":"skill://mcp-builder/SKILL.md","content":"pwned"}`)),
		sse(textBody("done")),
	)
	res := e.run(t, "run", "-e", srv.URL, "--preset", "full", "read the skill")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	got := map[string]string{}
	for _, r := range reqs {
		for k, v := range toolResults(t, r.Body) {
			got[k] = v
		}
	}
	if s := got["s1"]; !strings.Contains(s, "# MCP Server Development Guide") || !strings.Contains(s, "reference/evaluation.md") || !strings.Contains(s, "skill://mcp-builder/") {
		t.Errorf("skill tool result lacks the body or the listing:\n%.600s", s)
	}
	if r := got["r1"]; !strings.Contains(r, "1\t# MCP Server Evaluation Guide") {
		t.Errorf("read_file of the reference: %q", r)
	}
	for _, id := range []string{"r2", "r3", "r4", "r5", "w1"} {
		if strings.Contains(got[id], "TOP-SECRET") || got[id] == "" {
			t.Errorf("%s: %q", id, got[id])
		}
	}
	for id, want := range map[string]string{"r2": "leaves the skill folder", "r3": "leaves the skill folder", "r4": "leaves the skill folder", "r5": "no skill is called", "w1": "is read-only"} {
		if !strings.Contains(got[id], want) {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(skills, "mcp-builder", "SKILL.md")); strings.Contains(string(data), "pwned") {
		t.Error("SKILL.md was written")
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "skill:")); err == nil {
		t.Error("a skill:// write created a folder in the workspace")
	}
}

// In chat, /skills lists; /NAME ARGS runs one turn with the skill active;
// /NAME alone activates it for the next message only.
func TestChatSkills(t *testing.T) {
	e := newEnv(t)
	installSkills(t, filepath.Join(e.workspace, ".rein", "skills"))
	srv := modeltest.NewServer(t, sse(textBody("a")), sse(textBody("b")), sse(textBody("c")))
	res := e.invoke("/skills\n/brand-guidelines make a poster\n/webapp-testing\ntest the app\nplain\n").run(t, "chat", "-e", srv.URL)
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, name := range realSkills {
		if !strings.Contains(res.stderr, "  /"+name+"  ") {
			t.Errorf("/skills lacks %s:\n%s", name, res.stderr)
		}
	}
	reqs := srv.Requests()
	active := func(i int) []string {
		var out []string
		for _, name := range realSkills {
			if strings.Contains(systemText(t, reqs[i].Body), "# Skill: "+name) {
				out = append(out, name)
			}
		}
		return out
	}
	want := [][]string{{"brand-guidelines"}, {"webapp-testing"}, nil}
	for i, w := range want {
		if diff := cmp.Diff(w, active(i)); diff != "" {
			t.Errorf("turn %d active skills (-want +got):\n%s", i, diff)
		}
	}
	if got := firstUserAt(t, reqs[0].Body, 0); got != "make a poster" {
		t.Errorf("first message %q", got)
	}
}

func firstUserAt(t *testing.T, body []byte, n int) string {
	t.Helper()
	var users []string
	for _, m := range historyTexts(t, body) {
		if s, ok := strings.CutPrefix(m, "user:"); ok {
			users = append(users, s)
		}
	}
	if n >= len(users) {
		t.Fatalf("no user message %d", n)
	}
	return users[n]
}

// A skill's allowed-tools narrows an explicitly activated run.
func TestSkillAllowedToolsNarrow(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, filepath.Join(e.workspace, ".claude", "skills"), map[string]string{
		"reader/SKILL.md": "---\nname: reader\ndescription: Reads things.\nallowed-tools: Read Grep\n---\nOnly read.\n",
	})
	srv := modeltest.NewServer(t, sse(toolBody("w1", "write_file", `{"path":"x.txt","content":"x"}`)), sse(textBody("ok")))
	res := e.run(t, "run", "-e", srv.URL, "--preset", "full", "--output-format", "stream-json", "--skill", "reader", "go")
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff([]string{"grep", "read_file"}, offeredTools(t, srv.Requests()[0].Body)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	d := decisions(t, res.stdout)
	if len(d) != 1 || d[0].Decision.Action != "deny" || !strings.Contains(d[0].Decision.Reason, "not allowed by the skill's allowed-tools") {
		t.Errorf("decisions %+v", d)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "x.txt")); err == nil {
		t.Error("x.txt was written")
	}
}
