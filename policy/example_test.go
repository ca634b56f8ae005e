package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/reinharness/rein/policy"
	"github.com/reinharness/rein/tool"
)

// An Engine decides calls from the tools' declared effects and the layered
// configuration: under the editor preset reads and edits inside the
// workspace run, a user path rule denies secrets, writes to git's config
// ask (a built-in rule), a user command rule allows `go test`, other
// commands ask, and a hard denial (sudo) holds whatever the rules say.
// Ask is resolved by an Approver (agent.Config.Approver); Decide never
// waits for anyone.
func ExampleEngine_Decide() {
	ws, err := os.MkdirTemp("", "policy-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(ws)

	user, err := policy.ParseConfig([]byte(`
[policy]
preset = "editor"
[[policy.paths]]
pattern = "secrets/**"
access = "any"
action = "deny"
[[policy.commands]]
prefix = ["go", "test"]
action = "allow"
`))
	if err != nil {
		log.Fatal(err)
	}
	engine, err := policy.NewEngine(policy.EngineConfig{
		Workspace: ws,
		Home:      os.TempDir(),
		Layers:    []policy.Layer{{Kind: policy.LayerUser, Source: "example config", Config: user}},
	})
	if err != nil {
		log.Fatal(err)
	}

	read := tool.Spec{Name: "read_file", Effects: tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}}
	write := tool.Spec{Name: "write_file", Effects: tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}}
	run := tool.Spec{Name: "run_command", Effects: tool.Effects{Exec: true, CommandArg: "command"}}
	calls := []policy.Call{
		{ID: "1", Spec: read, Args: json.RawMessage(`{"path":"main.go"}`)},
		{ID: "2", Spec: write, Args: json.RawMessage(`{"path":"main.go"}`)},
		{ID: "3", Spec: read, Args: json.RawMessage(`{"path":"secrets/token"}`)},
		{ID: "4", Spec: write, Args: json.RawMessage(`{"path":".git/config"}`)},
		{ID: "5", Spec: run, Args: json.RawMessage(`{"command":"go test ./..."}`)},
		{ID: "6", Spec: run, Args: json.RawMessage(`{"command":"rm -rf build"}`)},
		{ID: "7", Spec: run, Args: json.RawMessage(`{"command":"sudo go test ./..."}`)},
	}
	for _, c := range calls {
		d := engine.Decide(context.Background(), c)
		fmt.Printf("%s %s: %s by %s\n", c.Spec.Name, c.Args, d.Action, d.Rule)
		if d.Hard {
			fmt.Println("  nothing lifts it:", d.Reason)
		}
	}
	// Output:
	// read_file {"path":"main.go"}: allow by preset:editor
	// write_file {"path":"main.go"}: allow by preset:editor
	// read_file {"path":"secrets/token"}: deny by rule:user:deny path secrets/** (any)
	// write_file {"path":".git/config"}: ask by rule:builtin:ask path **/.git/config (write)
	// run_command {"command":"go test ./..."}: allow by rule:user:allow go test
	// run_command {"command":"rm -rf build"}: ask by preset:editor
	// run_command {"command":"sudo go test ./..."}: deny by hard-deny:privilege
	//   nothing lifts it: run_command is denied: privilege escalation (sudo) is never allowed (a hard denial: no rule or approval lifts it)
}
