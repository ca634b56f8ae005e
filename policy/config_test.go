package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

const sampleConfig = `
[mcp_servers.github]
command = "gh-mcp"

[policy]
preset = "editor"

[[policy.tools]]
name = "write_file"
action = "ask"

[[policy.tools]]
name = "github__*"
action = "allow"
reason = "our own server"

[[policy.commands]]
prefix = ["go", "test"]
action = "allow"
match = ["go test ./...", "go test -run X ./pkg", "env CGO_ENABLED=0 go test ."]
not_match = ["go testify", "go vet ./..."]

[[policy.commands]]
prefix = ["make", "test"]
exact = true
action = "allow"

[[policy.paths]]
pattern = "**/.env"
access = "any"
action = "deny"

[[policy.hard_deny]]
prefix = ["terraform", "destroy"]
match = ["terraform destroy -auto-approve"]
`

func TestParseConfig(t *testing.T) {
	got, err := ParseConfig([]byte(sampleConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Preset: "editor",
		Tools:  []ToolRule{{Name: "write_file", Action: "ask"}, {Name: "github__*", Action: "allow", Reason: "our own server"}},
		Commands: []CommandRule{
			{Prefix: []string{"go", "test"}, Action: "allow",
				Match:    []string{"go test ./...", "go test -run X ./pkg", "env CGO_ENABLED=0 go test ."},
				NotMatch: []string{"go testify", "go vet ./..."}},
			{Prefix: []string{"make", "test"}, Exact: true, Action: "allow"},
		},
		Paths:    []PathRule{{Pattern: "**/.env", Access: "any", Action: "deny"}},
		HardDeny: []HardDenyRule{{Prefix: []string{"terraform", "destroy"}, Match: []string{"terraform destroy -auto-approve"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseConfig (-want +got):\n%s", diff)
	}
}

func TestDecodeConfigFromPrimitive(t *testing.T) {
	var doc struct {
		MCP    map[string]any `toml:"mcp_servers"`
		Policy toml.Primitive `toml:"policy"`
	}
	md, err := toml.Decode(sampleConfig, &doc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeConfig(doc.Policy, md)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Commands) != 2 || c.Preset != "editor" {
		t.Errorf("DecodeConfig: %+v", c)
	}
}

func TestParseConfigWithoutPolicy(t *testing.T) {
	for _, doc := range []string{"", "[other]\nx = 1\n"} {
		c, err := ParseConfig([]byte(doc))
		if err != nil || !cmp.Equal(c, Config{}) {
			t.Errorf("ParseConfig(%q) = %+v, %v; want empty", doc, c, err)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // substrings of the error
	}{
		{"syntax", "[policy\n", []string{"fix the TOML syntax"}},
		{"unknown key", "[policy]\npresett = \"full\"\n", []string{`unknown key "policy.presett"`}},
		{"unknown rule key", "[[policy.commands]]\nprefix = [\"ls\"]\nacton = \"allow\"\n", []string{"policy.commands.acton"}},
		{"bad preset", "[policy]\npreset = \"yolo\"\n", []string{"policy.preset", `unknown preset "yolo"`}},
		{"wrong type", "[policy]\npreset = 3\n", []string{"[policy]"}},
		{"bad action", "[[policy.tools]]\nname = \"x\"\naction = \"maybe\"\n", []string{`policy.tools[0] ("x")`, `action "maybe"`}},
		{"empty tool name", "[[policy.tools]]\naction = \"allow\"\n", []string{"name is empty"}},
		{"bad tool glob", "[[policy.tools]]\nname = \"a[\"\naction = \"allow\"\n", []string{"not a valid glob"}},
		{"empty prefix", "[[policy.commands]]\naction = \"allow\"\n", []string{"policy.commands[0] (empty prefix)", "prefix is empty"}},
		{"empty word", "[[policy.commands]]\nprefix = [\"go\", \"\"]\naction = \"allow\"\n", []string{"empty word"}},
		{"match fails", "[[policy.commands]]\nprefix = [\"go\", \"test\"]\naction = \"allow\"\nmatch = [\"go vet ./...\"]\n",
			[]string{"policy.commands[0] (go test)", `match example "go vet ./..." does not match`}},
		{"not_match matches", "[[policy.commands]]\nprefix = [\"go\"]\naction = \"deny\"\nnot_match = [\"cd x && go build\"]\n",
			[]string{"policy.commands[0] (go)", `not_match example "cd x && go build" matches`}},
		{"exact match fails", "[[policy.commands]]\nprefix = [\"make\"]\nexact = true\naction = \"allow\"\nmatch = [\"make all\"]\n",
			[]string{`match example "make all" does not match`}},
		{"bad pattern", "[[policy.paths]]\npattern = \"a[\"\naction = \"deny\"\n", []string{"policy.paths[0]", "doublestar"}},
		{"bad access", "[[policy.paths]]\npattern = \"x\"\naccess = \"exec\"\naction = \"deny\"\n", []string{`access "exec"`}},
		{"hard deny example", "[[policy.hard_deny]]\nprefix = [\"terraform\", \"destroy\"]\nmatch = [\"terraform plan\"]\n",
			[]string{"policy.hard_deny[0] (terraform destroy)", `"terraform plan"`}},
		{"inline and table", "[policy]\ncommands = []\n[[policy.commands]]\nprefix = [\"ls\"]\naction = \"allow\"\n", []string{"fix the TOML syntax"}},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.doc))
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: error %v does not wrap ErrInvalidConfig", tt.name, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tt.name, err, w)
			}
		}
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Config{
		Tools:    []ToolRule{{Name: "", Action: "allow"}},
		Commands: []CommandRule{{Prefix: []string{"ls"}, Action: "nope"}},
	}
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "policy.tools[0]") || !strings.Contains(err.Error(), "policy.commands[0]") {
		t.Errorf("Validate = %v; want both problems", err)
	}
}

func TestParseActionAndPreset(t *testing.T) {
	for s, want := range map[string]Action{"allow": Allow, "ask": Ask, "deny": Deny} {
		if got, err := ParseAction(s); err != nil || got != want || got.String() != s {
			t.Errorf("ParseAction(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseAction("Allow"); err == nil {
		t.Error("ParseAction is case-sensitive: Allow must fail")
	}
	if p, err := ParsePreset(""); err != nil || p != PresetEditor {
		t.Errorf("ParsePreset(\"\") = %v, %v; want editor", p, err)
	}
	if _, err := ParsePreset("root"); err == nil {
		t.Error("ParsePreset(root) did not fail")
	}
}

func TestParseConfigTruncated(t *testing.T) {
	ok := 0
	for n := 0; n <= len(sampleConfig); n += 7 {
		c, err := ParseConfig([]byte(sampleConfig[:n]))
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("cut at %d: error %v does not wrap ErrInvalidConfig", n, err)
			}
			continue
		}
		if verr := c.Validate(); verr != nil {
			t.Errorf("cut at %d: accepted an invalid config: %v", n, verr)
		}
		ok++
	}
	if ok == 0 {
		t.Error("no prefix of the sample parsed; the test checks nothing")
	}
}
