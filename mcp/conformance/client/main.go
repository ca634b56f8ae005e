// Command client is rein's fixture for the client half of the official MCP
// conformance suite (@modelcontextprotocol/conformance). The suite runs it
// as
//
//	client <server-url>
//
// with MCP_CONFORMANCE_SCENARIO naming the scenario,
// MCP_CONFORMANCE_PROTOCOL_VERSION the wire revision to speak and, for some
// scenarios, MCP_CONFORMANCE_CONTEXT a JSON object of extra inputs. It does
// what each scenario expects through rein's own mcp package — the Manager,
// its tool adapters and its Interaction — not through the SDK directly, so
// the suite judges the layer rein runs. It exits non-zero when a step the
// scenario depends on fails.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/reinharness/rein/mcp"
	"github.com/reinharness/rein/tool"
)

// serverName is the name the fixture gives the server under test; its
// tools appear as conformance__<tool>.
const serverName = "conformance"

func main() {
	if len(os.Args) == 3 && os.Args[1] == browseFlag {
		os.Exit(browse(os.Args[2]))
	}
	if len(os.Args) != 2 {
		fail("usage: client <server-url> (with MCP_CONFORMANCE_SCENARIO set)")
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	run, ok := scenarios[scenario]
	if strings.HasPrefix(scenario, "auth/") {
		run, ok = runAuth, true
		if rein := os.Getenv(cliEnv); rein != "" {
			run = func(ctx context.Context, f *fixture) error { return runAuthViaCLI(ctx, f, rein) }
		}
	}
	if !ok {
		fail(fmt.Sprintf("unknown scenario %q", scenario))
	}
	var extra map[string]any
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &extra); err != nil {
			fail(fmt.Sprintf("MCP_CONFORMANCE_CONTEXT: %v", err))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := &fixture{url: os.Args[1], version: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"), extra: extra}
	err := run(ctx, f)
	if f.m != nil {
		f.m.Close()
	}
	if err != nil {
		fail(fmt.Sprintf("scenario %s: %v", scenario, err))
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "conformance client:", msg)
	os.Exit(1)
}

// fixture is one scenario run.
type fixture struct {
	url     string
	version string
	extra   map[string]any
	m       *mcp.Manager
}

// connect starts a Manager for the server under test, speaking the
// revision the suite asks for, and returns its tools.
func (f *fixture) connect(ctx context.Context, in mcp.Interaction, oauth *mcp.OAuthConfig, auth mcp.Authorizer) ([]tool.Tool, error) {
	sc := mcp.ServerConfig{
		Name:            serverName,
		URL:             f.url,
		Transport:       mcp.TransportStreamable,
		ProtocolVersion: f.version,
		StartupTimeout:  30 * time.Second,
		Required:        true,
		OAuth:           oauth,
	}
	m, err := mcp.New(mcp.Config{
		Servers:       []mcp.ServerConfig{sc},
		ClientName:    "rein-conformance-client",
		ClientVersion: "1.0.0",
		Interaction:   in,
		Authorizer:    auth,
		OnProblem:     func(p mcp.Problem) { fmt.Fprintln(os.Stderr, "problem:", p.Err) },
	})
	if err != nil {
		return nil, err
	}
	f.m = m
	return m.Tools(ctx)
}

// call invokes a tool through rein's adapter, as the agent would.
func call(ctx context.Context, tools []tool.Tool, name string, args any) (*tool.Result, error) {
	exposed := serverName + "__" + name
	i := slices.IndexFunc(tools, func(t tool.Tool) bool { return t.Spec().Name == exposed })
	if i < 0 {
		return nil, fmt.Errorf("tool %q is not offered", name)
	}
	data, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res := tool.Invoke(ctx, tools[i], data, tool.InvokeOptions{Timeout: 30 * time.Second})
	if res.IsError {
		return res, fmt.Errorf("tool %q failed: %s", name, res.Content)
	}
	return res, nil
}

var scenarios = map[string]func(context.Context, *fixture) error{
	"initialize":                          connectOnly,
	"request-metadata":                    connectOnly,
	"json-schema-ref-no-deref":            connectOnly,
	"tools_call":                          callTool("add_numbers", map[string]any{"a": 5, "b": 3}, nil),
	"sse-retry":                           callTool("test_reconnection", map[string]any{}, nil),
	"elicitation-sep1034-client-defaults": callTool("test_client_elicitation_defaults", map[string]any{}, accept{}),
	"sep-2322-client-request-state":       requestState,
	"http-standard-headers":               standardHeaders,
	"http-custom-headers":                 customHeaders,
	"http-invalid-tool-headers":           invalidToolHeaders,
	"json-schema-2020-12-preservation":    schemaPreservation,
}

func connectOnly(ctx context.Context, f *fixture) error {
	_, err := f.connect(ctx, nil, nil, nil)
	return err
}

func callTool(name string, args any, in mcp.Interaction) func(context.Context, *fixture) error {
	return func(ctx context.Context, f *fixture) error {
		tools, err := f.connect(ctx, in, nil, nil)
		if err != nil {
			return err
		}
		_, err = call(ctx, tools, name, args)
		return err
	}
}

// accept accepts every elicitation with the content given, leaving the
// schema's defaults to fill the rest.
type accept struct {
	mcp.Decline
	content map[string]any
}

// Elicit implements mcp.Interaction.
func (a accept) Elicit(context.Context, *mcp.Elicitation) (*mcp.ElicitationResponse, error) {
	return &mcp.ElicitationResponse{Action: "accept", Content: a.content}, nil
}

// requestState drives the multi-round-trip tools; some are expected to be
// refused, so only the connection must succeed.
func requestState(ctx context.Context, f *fixture) error {
	tools, err := f.connect(ctx, accept{content: map[string]any{"confirmed": true}}, nil, nil)
	if err != nil {
		return err
	}
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		if _, err := call(ctx, tools, name, map[string]any{}); err != nil {
			fmt.Fprintln(os.Stderr, "expected for some cases:", err)
		}
	}
	return nil
}

// standardHeaders uses every verb once: a tool, a resource, a prompt.
func standardHeaders(ctx context.Context, f *fixture) error {
	tools, err := f.connect(ctx, nil, nil, nil)
	if err != nil {
		return err
	}
	for _, t := range tools {
		name := strings.TrimPrefix(t.Spec().Name, serverName+"__")
		if name == "list_resources" || name == "read_resource" {
			continue
		}
		_, _ = call(ctx, tools, name, map[string]any{})
		break
	}
	if res, err := call(ctx, tools, "list_resources", map[string]any{}); err == nil {
		if uri := firstURI(res.Content); uri != "" {
			_, _ = call(ctx, tools, "read_resource", map[string]any{"uri": uri})
		}
	}
	if prompts, err := f.m.Prompts(ctx, serverName); err == nil && len(prompts) > 0 {
		_, _ = f.m.GetPrompt(ctx, serverName, prompts[0].Name, map[string]string{})
	}
	return nil
}

// firstURI picks the first "- <uri>" line of a list_resources result.
func firstURI(listing string) string {
	for _, line := range strings.Split(listing, "\n") {
		if rest, ok := strings.CutPrefix(line, "- "); ok {
			uri, _, _ := strings.Cut(rest, " ")
			return uri
		}
	}
	return ""
}

// customHeaders makes the tool calls the suite lists in its context.
func customHeaders(ctx context.Context, f *fixture) error {
	if _, err := f.connect(ctx, nil, nil, nil); err != nil {
		return err
	}
	calls, _ := f.extra["toolCalls"].([]any)
	for _, c := range calls {
		obj, _ := c.(map[string]any)
		name, _ := obj["name"].(string)
		args, _ := json.Marshal(obj["arguments"])
		if res, err := f.m.CallTool(ctx, serverName, name, args); err != nil {
			fmt.Fprintln(os.Stderr, "call:", err)
		} else if res.IsError {
			fmt.Fprintln(os.Stderr, "call:", res.Content)
		}
	}
	return nil
}

// invalidToolHeaders calls every tool that survived listing.
func invalidToolHeaders(ctx context.Context, f *fixture) error {
	tools, err := f.connect(ctx, nil, nil, nil)
	if err != nil {
		return err
	}
	for _, t := range tools {
		res := tool.Invoke(ctx, t, json.RawMessage(`{"region":"us-west1"}`), tool.InvokeOptions{Timeout: 30 * time.Second})
		if res.IsError {
			fmt.Fprintln(os.Stderr, "call:", res.Content)
		}
	}
	return nil
}

// schemaPreservation echoes the focal tool's input schema, as rein hands
// it to the model, back to the suite.
func schemaPreservation(ctx context.Context, f *fixture) error {
	tools, err := f.connect(ctx, nil, nil, nil)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(tools, func(t tool.Tool) bool { return t.Spec().Name == serverName+"__json_schema_2020_12_tool" })
	if i < 0 {
		return errors.New("json_schema_2020_12_tool is not offered")
	}
	_, err = call(ctx, tools, "json_schema_echo", map[string]any{"schema": json.RawMessage(tools[i].Spec().InputSchema)})
	return err
}

// runAuth connects with OAuth (client ID metadata document, the
// pre-registered client from the context, or dynamic registration) and
// calls the protected tool.
func runAuth(ctx context.Context, f *fixture) error {
	o := &mcp.OAuthConfig{
		RedirectURL:       "http://localhost:3000/callback",
		ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
	}
	if id, ok := f.extra["client_id"].(string); ok {
		o.ClientID = id
		if sec, ok := f.extra["client_secret"].(string); ok {
			o.ClientSecret = mcp.Secret(sec)
		}
	}
	tools, err := f.connect(ctx, nil, o, mcp.AuthorizerFunc(followRedirect))
	if err != nil {
		return err
	}
	_, err = call(ctx, tools, "test-tool", map[string]any{})
	return err
}

// followRedirect plays the user: the suite's authorization server
// redirects at once to the redirect URL with the code.
func followRedirect(ctx context.Context, _, authURL string) (*mcp.AuthorizationResponse, error) {
	loc, err := authorizationRedirect(ctx, authURL)
	if err != nil {
		return nil, err
	}
	q := loc.Query()
	return &mcp.AuthorizationResponse{Code: q.Get("code"), State: q.Get("state"), Issuer: q.Get("iss")}, nil
}

// authorizationRedirect fetches the authorization URL and returns where
// the authorization server redirects.
func authorizationRedirect(ctx context.Context, authURL string) (*url.URL, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Scheme == "" {
		return nil, fmt.Errorf("authorization redirect: %q (HTTP %d)", resp.Header.Get("Location"), resp.StatusCode)
	}
	return loc, nil
}
