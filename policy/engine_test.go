package policy

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var ctx = context.Background()

func TestLayersProjectAllowIgnoredUnlessApproved(t *testing.T) {
	project := Config{
		Commands: []CommandRule{{Prefix: []string{"make"}, Action: "allow"}},
		Tools:    []ToolRule{{Name: "github__*", Action: "allow"}},
		Paths:    []PathRule{{Pattern: "docs/**", Action: "allow"}},
	}
	e := newEngine(t, PresetEditor, nil, &project, nil)
	if d := e.Decide(ctx, runCall("make")); d.Action != Ask {
		t.Errorf("unapproved project allow: %v (%s); want ask", d.Action, d.Reason)
	}
	if d := e.Decide(ctx, Call{Spec: specMCP}); d.Action != Ask {
		t.Errorf("unapproved project tool allow: %v; want ask", d.Action)
	}
	if w := e.Warnings(); len(w) != 3 || !strings.Contains(w[0], "policy.tools[0] (allow tool github__*) ignored") ||
		!strings.Contains(w[0], ".rein/config.toml") {
		t.Errorf("warnings = %q; want one per ignored allow rule naming it", w)
	}

	approved := NewMemoryApprovedStore()
	fp := project.Commands[0].Fingerprint(testWorkspace)
	if err := approved.Approve(testWorkspace, fp, "make"); err != nil {
		t.Fatal(err)
	}
	e = newEngine(t, PresetEditor, nil, &project, approved)
	if d := e.Decide(ctx, runCall("make")); d.Action != Allow || !strings.HasPrefix(d.Rule, "rule:project:allow make") {
		t.Errorf("approved project allow: %v %q; want allow by the project rule", d.Action, d.Rule)
	}
	if d := e.Decide(ctx, Call{Spec: specMCP}); d.Action != Ask {
		t.Errorf("only the approved rule is lifted; tool rule gave %v", d.Action)
	}

	// The approval is for this workspace only.
	other, err := NewEngine(EngineConfig{Workspace: "/elsewhere", Home: testHome, Approved: approved,
		Layers: []Layer{{Kind: LayerProject, Source: "/elsewhere/.rein/config.toml", Config: project}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := other.Decide(ctx, runCall("make")); d.Action != Ask {
		t.Errorf("approval leaked to another workspace: %v", d.Action)
	}

	// A changed rule is a different rule.
	changed := Config{Commands: []CommandRule{{Prefix: []string{"make"}, Exact: true, Action: "allow"}}}
	if d := newEngine(t, PresetEditor, nil, &changed, approved).Decide(ctx, runCall("make")); d.Action != Ask {
		t.Errorf("a changed rule kept the approval: %v", d.Action)
	}
}

func TestLayersStrictestWins(t *testing.T) {
	user := Config{
		Commands: []CommandRule{{Prefix: []string{"git"}, Action: "allow"}, {Prefix: []string{"go", "test"}, Action: "allow"}},
		Tools:    []ToolRule{{Name: "github__*", Action: "allow"}},
		Paths:    []PathRule{{Pattern: "secrets/**", Action: "allow"}},
	}
	project := Config{
		Commands: []CommandRule{{Prefix: []string{"git", "push"}, Action: "deny"}, {Prefix: []string{"git", "status"}, Action: "ask"}},
		Tools:    []ToolRule{{Name: "github__list_issues", Action: "deny"}, {Name: "run_command", Action: "ask"}},
		Paths:    []PathRule{{Pattern: "secrets/**", Action: "deny"}},
	}
	e := newEngine(t, PresetFull, &user, &project, nil)
	tests := []struct {
		call Call
		want Action
	}{
		{runCall("git log"), Ask}, // the project asks for run_command as a whole
		{runCall("git push origin main"), Deny},
		{runCall("git -C x push"), Deny},
		{runCall("git status"), Ask},
		{Call{Spec: specMCP}, Deny},
		{pathCall(specReadFile, "secrets/key"), Deny},
		{pathCall(specReadFile, "src/key"), Allow},
	}
	for _, tt := range tests {
		if d := e.Decide(ctx, tt.call); d.Action != tt.want {
			t.Errorf("%s %s: %v (%s); want %v", tt.call.Spec.Name, tt.call.Args, d.Action, d.Reason, tt.want)
		}
	}
	// Without the project layer the user's rules allow.
	e = newEngine(t, PresetEditor, &user, nil, nil)
	for _, call := range []Call{runCall("git push origin main"), runCall("go test ./..."), {Spec: specMCP}} {
		if d := e.Decide(ctx, call); d.Action != Allow {
			t.Errorf("user allow %s %s: %v (%s)", call.Spec.Name, call.Args, d.Action, d.Reason)
		}
	}
}

func TestLayersPresets(t *testing.T) {
	mk := func(layers ...Layer) *Engine {
		e, err := NewEngine(EngineConfig{Workspace: testWorkspace, Home: testHome, Layers: layers})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if p := mk().Preset(); p != PresetEditor {
		t.Errorf("default preset %v; want editor", p)
	}
	userFull := Layer{Kind: LayerUser, Source: "user", Config: Config{Preset: "full"}}
	flagsRO := Layer{Kind: LayerUser, Source: "--preset", Config: Config{Preset: "read-only"}}
	if p := mk(userFull, flagsRO).Preset(); p != PresetReadOnly {
		t.Errorf("later user layer: %v; want read-only", p)
	}
	projFull := Layer{Kind: LayerProject, Source: "project", Config: Config{Preset: "full"}}
	e := mk(projFull)
	if e.Preset() != PresetEditor || len(e.Warnings()) != 1 || !strings.Contains(e.Warnings()[0], "can only tighten") {
		t.Errorf("project full: preset %v warnings %q; want editor and a warning", e.Preset(), e.Warnings())
	}
	projRO := Layer{Kind: LayerProject, Source: "project", Config: Config{Preset: "read-only"}}
	if p := mk(userFull, projRO).Preset(); p != PresetReadOnly {
		t.Errorf("project read-only: %v", p)
	}
	projHard := Layer{Kind: LayerProject, Source: "project", Config: Config{HardDeny: []HardDenyRule{{Prefix: []string{"npm", "publish"}}}}}
	d := mk(userFull, projHard).Decide(ctx, runCall("npm publish"))
	if d.Action != Deny || !d.Hard || !strings.Contains(d.Reason, "hard-deny list of project") {
		t.Errorf("project hard deny: %+v", d)
	}
	// A built-in layer given by the caller replaces the default one.
	bare := mk(Layer{Kind: LayerBuiltin, Source: "test", Config: Config{Preset: "full"}})
	if d := bare.Decide(ctx, runCall("echo hi > /etc/motd")); d.Action != Ask {
		t.Errorf("custom built-in layer: %v", d.Action)
	}
}

func TestNewEngineErrors(t *testing.T) {
	if _, err := NewEngine(EngineConfig{}); err == nil || !strings.Contains(err.Error(), "Workspace is empty") {
		t.Errorf("empty workspace: %v", err)
	}
	_, err := NewEngine(EngineConfig{Workspace: testWorkspace, Layers: []Layer{{Kind: LayerUser, Source: "/u/config.toml",
		Config: Config{Commands: []CommandRule{{Prefix: []string{"ls"}, Action: "yes"}}}}}})
	if err == nil || !strings.Contains(err.Error(), "/u/config.toml") || !strings.Contains(err.Error(), "policy.commands[0]") {
		t.Errorf("invalid layer: %v", err)
	}
}

func TestExplain(t *testing.T) {
	user := Config{Commands: []CommandRule{{Prefix: []string{"go", "test"}, Action: "allow"}}}
	e := newEngine(t, PresetEditor, &user, nil, nil)
	steps := e.Explain(runCall("go test ./... && go vet ./..."))
	last := steps[len(steps)-1]
	if last.Stage != "decision" || last.Action != Ask {
		t.Fatalf("last step %+v; want the ask decision", last)
	}
	var stages []string
	for _, s := range steps {
		stages = append(stages, s.Stage+":"+s.Action.String())
	}
	joined := strings.Join(stages, " ")
	for _, want := range []string{"analysis:allow", "tool:ask", "command:allow", "command:ask"} {
		if !strings.Contains(joined, want) {
			t.Errorf("steps %s lack %s", joined, want)
		}
	}
	if d := e.Decide(ctx, runCall("go test ./... && go vet ./...")); d.Action != last.Action || d.Rule != last.Rule {
		t.Errorf("Explain disagrees with Decide: %+v vs %+v", last, d)
	}
}

func TestFileApprovedStoreWithEngine(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	store, err := OpenApprovedStore(filepath.Join(dir, "state", "approved.json"))
	if err != nil {
		t.Fatal(err)
	}
	rule := CommandRule{Prefix: []string{"make", "test"}, Exact: true, Action: "allow"}
	if err := store.Approve(CanonicalWorkspace(ws), rule.Fingerprint(ws), "make test"); err != nil {
		t.Fatal(err)
	}
	reopened, err := OpenApprovedStore(filepath.Join(dir, "state", "approved.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(EngineConfig{Workspace: ws, Home: testHome, Approved: reopened,
		Layers: []Layer{{Kind: LayerProject, Source: "p", Config: Config{Commands: []CommandRule{rule}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide(ctx, runCall("make test")); d.Action != Allow {
		t.Errorf("approved rule from the file store: %v (%s)", d.Action, d.Reason)
	}
}

func TestDecideConcurrently(t *testing.T) {
	user := Config{Commands: []CommandRule{{Prefix: []string{"go", "test"}, Action: "allow"}}}
	e := newEngine(t, PresetEditor, &user, nil, nil)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if d := e.Decide(ctx, runCall("go test ./...")); d.Action != Allow {
					t.Errorf("concurrent decide: %v", d.Action)
					return
				}
				if d := e.Decide(ctx, runCall("sudo ls")); !d.Hard {
					t.Errorf("concurrent decide: %+v", d)
					return
				}
			}
		}()
	}
	wg.Wait()
}
