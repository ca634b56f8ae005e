package config_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/config"
)

type mcpServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
}

func TestSectionsPerLayer(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), `
[mcp_servers.fs]
command = "npx"
args = ["-y", "server-filesystem"]

[policy]
preset = "editor"
`)
	project := write(t, f.projectFile(), `[mcp_servers.mem]
command = "npx"
env = { DEBUG = "1" }
`)
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	secs := c.Sections("mcp_servers")
	if len(secs) != 2 {
		t.Fatalf("got %d mcp_servers sections, want 2 (user, project)", len(secs))
	}
	var got []map[string]mcpServer
	for _, s := range secs {
		var m map[string]mcpServer
		if err := s.Decode(&m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	want := []map[string]mcpServer{
		{"fs": {Command: "npx", Args: []string{"-y", "server-filesystem"}}},
		{"mem": {Command: "npx", Env: map[string]string{"DEBUG": "1"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if got, want := secs[1].Source, (config.Source{Layer: config.LayerProject, Name: project, Line: 1}); got != want {
		t.Errorf("Source = %v, want %v", got, want)
	}
	if got := c.Sections("policy"); len(got) != 1 || got[0].Source.Layer != config.LayerUser {
		t.Errorf("policy sections = %+v", got)
	}
	if got := c.Sections("telemetry"); len(got) != 0 {
		t.Errorf("telemetry sections = %+v, want none", got)
	}
}

func TestSectionDecodeIsStrict(t *testing.T) {
	f := newFixture(t)
	path := write(t, f.userFile(), `[policy]
preset = "editor"

[policy.rules]
deny = ["git push"]
alow = ["ls"]
`)
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Preset string `toml:"preset"`
		Rules  struct {
			Deny  []string `toml:"deny"`
			Allow []string `toml:"allow"`
		} `toml:"rules"`
	}
	sec := c.Sections("policy")[0]
	err = sec.Decode(&p)
	want := fmt.Sprintf(`config: %s:6: unknown key "policy.rules.alow" in [policy.rules] (did you mean "allow"?)`, path)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if got := sec.Position("rules", "deny"); got.Line != 5 {
		t.Errorf("Position(rules, deny) = %v, want line 5", got)
	}
	if got := sec.Position("nope"); got.Line != 1 {
		t.Errorf("Position(nope) = %v, want the header's line 1", got)
	}
	err = sec.Errorf([]string{"preset"}, "preset %q is unknown", "editor")
	if want := fmt.Sprintf(`config: %s:2: preset "editor" is unknown`, path); err.Error() != want {
		t.Errorf("Errorf = %v, want %s", err, want)
	}
}

func TestSectionDecodeTypeError(t *testing.T) {
	f := newFixture(t)
	path := write(t, f.userFile(), "[session]\n\nkeep = \"forever\"\n")
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Keep int `toml:"keep"`
	}
	err = c.Sections("session")[0].Decode(&s)
	if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("config: %s", path)) || !strings.Contains(err.Error(), "keep") {
		t.Errorf("err = %v, want one naming the file and key", err)
	}
	if strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("error is not one line: %q", err)
	}
}

func TestSectionDecodeConcurrent(t *testing.T) {
	f := newFixture(t)
	write(t, f.userFile(), "[policy]\npreset = \"editor\"\n[telemetry]\njsonl = true\n")
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var p struct {
				Preset string `toml:"preset"`
			}
			var tl struct {
				JSONL bool `toml:"jsonl"`
			}
			if err := c.Sections("policy")[0].Decode(&p); err != nil || p.Preset != "editor" {
				t.Errorf("policy: %v %+v", err, p)
			}
			if err := c.Sections("telemetry")[0].Decode(&tl); err != nil || !tl.JSONL {
				t.Errorf("telemetry: %v %+v", err, tl)
			}
		})
	}
	wg.Wait()
}

func TestSectionImpliedByDottedKeys(t *testing.T) {
	f := newFixture(t)
	path := write(t, f.userFile(), "[model]\nmodel = \"m\"\n\npolicy.preset = \"editor\"\n")
	_, err := f.load(config.Settings{})
	// Inside [model], "policy.preset" is a key of model.
	if want := fmt.Sprintf(`config: %s:4: unknown key "model.policy"`, path); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	path = write(t, f.userFile(), "policy.preset = \"editor\"\npolicy.bogus = 1\n")
	c, err := f.load(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Preset string `toml:"preset"`
	}
	sec := c.Sections("policy")[0]
	if sec.Source.Line != 1 {
		t.Errorf("implied table line = %d, want 1", sec.Source.Line)
	}
	err = sec.Decode(&p)
	if want := fmt.Sprintf(`config: %s:2: unknown key "policy.bogus" in [policy]`, path); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	// Position does not disturb later strict decoding.
	_ = sec.Position("bogus")
	if err2 := sec.Decode(&p); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second Decode = %v, want %v", err2, err)
	}
}
