package cli_test

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestTUIPromptArgumentTab: in the real `rein chat`, Tab inside a
// /prompt argument's value asks server-everything (completion/complete):
// a unique value is completed and its string closed, several are listed,
// and the earlier argument narrows the later one; the filled-in prompt
// then goes to the model.
func TestTUIPromptArgumentTab(t *testing.T) {
	srv := modeltest.NewServer(t, sse(textBody("Bob will lead Engineering.")))
	e := newEnv(t)
	e.writeUserConfig(t, everythingConfig(t, false))
	tm := e.startTUI(t, 140, 30, "-e", srv.URL)
	tm.waitText("MCP server everything connected")
	const head = `/prompt everything completable-prompt {"department":"`
	tm.typ(head + "En")
	tm.key("Tab")
	tm.waitText(head + `Engineering"`)
	tm.typ(`,"name":"`)
	tm.key("Tab")
	tm.waitText("Alice  Bob  Charlie")
	tm.typ("B")
	tm.key("Tab")
	tm.waitText(`"name":"Bob"`)
	tm.typ("}")
	tm.key("Enter")
	tm.waitText("Bob will lead Engineering.")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "Bob") || !strings.Contains(body, "Engineering") {
		t.Errorf("the completed prompt did not reach the model:\n%s", body)
	}
	tm.key("C-d")
	tm.waitText("REIN-EXITED 0")
}
