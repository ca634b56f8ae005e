package cli_test

import (
	"strings"
	"testing"

	"github.com/reinharness/rein/model/modeltest"
)

// TestRunSamplingPolicy: in rein run a server's sampling request is
// decided by the policy: a [[policy.tools]] rule on mcp_sampling:NAME
// allows it without any sampling setting, and a deny rule refuses it
// even where the server's setting is "allow"; each decision is one line
// on stderr.
func TestRunSamplingPolicy(t *testing.T) {
	args := `{"prompt":"What is MCP?","maxTokens":64}`
	for _, tc := range []struct {
		name, extra, note string
		answered          bool
	}{
		{"rule allows", "\n[[policy.tools]]\nname = \"mcp_sampling:everything\"\naction = \"allow\"\n",
			"MCP server everything: rein's model answers its sampling request (allowed by rule:user:allow tool mcp_sampling:everything, at most 64 tokens)", true},
		{"rule denies over the setting", "\n[[policy.tools]]\nname = \"mcp_sampling:*\"\naction = \"deny\"\nreason = \"no spending for servers\"\n",
			"MCP server everything: its sampling request is refused: mcp_sampling:everything is denied: no spending for servers", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			cfg := everythingConfig(t, true)
			if !tc.answered {
				cfg = strings.Replace(cfg, "\"stdio\"]\n", "\"stdio\"]\nsampling = \"allow\"\n", 1)
			}
			e.writeUserConfig(t, cfg+tc.extra)
			bodies := []modeltest.Step{sse(toolBody("c1", "everything__trigger-sampling-request", args))}
			if tc.answered {
				bodies = append(bodies, sse(textBody("MCP is the Model Context Protocol.")))
			}
			bodies = append(bodies, sse(textBody("Done.")))
			srv := modeltest.NewServer(t, bodies...)
			res := e.run(t, "run", "-e", srv.URL, "-m", "test-model", "sample please")
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != len(bodies) {
				t.Fatalf("the model got %d requests, want %d\nstderr: %s", len(reqs), len(bodies), res.stderr)
			}
			if !strings.Contains(res.stderr, tc.note) {
				t.Errorf("stderr lacks %q:\n%s", tc.note, res.stderr)
			}
			got := toolResults(t, reqs[len(reqs)-1].Body)["c1"]
			if tc.answered != strings.Contains(got, "MCP is the Model Context Protocol.") || tc.answered == strings.Contains(got, "rejected") {
				t.Errorf("answered=%v but the server's result is %q", tc.answered, got)
			}
		})
	}
}

// TestChatSamplingPolicyDenies: in chat a request the policy denies is
// refused without a question, with the reason shown; the default still
// asks (TestChatSampling).
func TestChatSamplingPolicyDenies(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(t, everythingConfig(t, true)+"\n[[policy.tools]]\nname = \"mcp_sampling:everything\"\naction = \"deny\"\n")
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "everything__trigger-sampling-request", `{"prompt":"What is MCP?","maxTokens":64}`)),
		sse(textBody("The policy said no.")),
	)
	term := e.startTerminal(t, "chat", "-e", srv.URL)
	term.send("sample please")
	term.expectText("MCP server everything: its sampling request is refused: mcp_sampling:everything is denied")
	term.expectAnswer("The policy said no.")
	res := term.finish()
	if res.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stderr, "Let the model answer?") {
		t.Errorf("a denied request was still asked:\n%s", res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2 (no sampling call)", len(reqs))
	}
	if got := toolResults(t, reqs[1].Body)["c1"]; !strings.Contains(got, "rejected") {
		t.Errorf("the server's result = %q, want the rejection", got)
	}
}
