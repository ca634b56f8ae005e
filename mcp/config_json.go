package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// MaxMCPJSONBytes bounds a .mcp.json file.
const MaxMCPJSONBytes = 1 << 20

// jsonServer is one entry of .mcp.json's "mcpServers", the format Claude
// Code and other MCP clients share. Keys rein does not know (alwaysAllow,
// description, …) are ignored so that one file can serve several clients.
type jsonServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Disabled is Cline's spelling of "configured but off".
	Disabled bool `json:"disabled"`
	// Tasks is rein's own key (see ServerConfig.Tasks).
	Tasks string `json:"tasks"`
	// Sampling is rein's own key (see ServerConfig.Sampling).
	Sampling string `json:"sampling"`
	// Sandbox and Network are rein's own keys (ServerConfig.Unconfined
	// and Network), honoured only where the caller treats the file as
	// the user's own (a user skill's skill.json): a workspace's
	// servers are Project, and SplitTrusted replaces both.
	Sandbox *bool `json:"sandbox"`
	Network *bool `json:"network"`
}

// LoadMCPJSON reads a .mcp.json file; a missing file yields no servers.
// See ParseMCPJSON.
func LoadMCPJSON(path string, getenv func(string) string) ([]ServerConfig, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidConfig, path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxMCPJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrInvalidConfig, path, err)
	}
	if len(data) > MaxMCPJSONBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d KiB", ErrInvalidConfig, path, MaxMCPJSONBytes>>10)
	}
	return ParseMCPJSON(data, path, getenv)
}

// ParseMCPJSON parses the .mcp.json format:
//
//	{"mcpServers": {"NAME": {"command": "…", "args": […], "env": {…},
//	  "cwd": "…"} | {"type": "http"|"sse", "url": "…", "headers": {…}}}}
//
// "type" may be "stdio", "http" (Streamable HTTP), "streamable-http", "sse"
// or absent (stdio for a command, auto for a url). ${VAR} and
// ${VAR:-default} are expanded with getenv. source names the file in
// errors, which name the server and key and never a secret's value. The
// result is sorted by name.
func ParseMCPJSON(data []byte, source string, getenv func(string) string) ([]ServerConfig, error) {
	var top struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: %s: %s; the file must be a JSON object with an \"mcpServers\" object", ErrInvalidConfig, source, jsonProblem(data, err))
	}
	out := map[string]ServerConfig{}
	for _, name := range slices.Sorted(maps.Keys(top.Servers)) {
		sc, err := fromJSON(name, top.Servers[name], source, getenv)
		if err != nil {
			return nil, err
		}
		out[name] = sc
	}
	return sortedConfigs(out), nil
}

func fromJSON(name string, raw json.RawMessage, source string, getenv func(string) string) (ServerConfig, error) {
	fail := func(fe *fieldError) error {
		return fmt.Errorf("%w: %s: mcpServers.%s.%s", ErrInvalidConfig, source, clip(name, 80), fe.Error())
	}
	if err := ValidateServerName(name); err != nil {
		return ServerConfig{}, fmt.Errorf("%s: %w", source, err)
	}
	var js jsonServer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&js); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return ServerConfig{}, fail(ferr(te.Field, "expected %s, got a JSON %s", goKind(te.Field), te.Value))
		}
		return ServerConfig{}, fail(ferr("", "expected an object: %s", jsonProblem(raw, err)))
	}
	sc := ServerConfig{
		Name:     name,
		Command:  js.Command,
		Args:     js.Args,
		Env:      Secrets(js.Env),
		Cwd:      js.Cwd,
		URL:      js.URL,
		Headers:  Secrets(js.Headers),
		Disabled: js.Disabled,
		Tasks:    TaskMode(strings.ToLower(js.Tasks)),
		Sampling: SamplingMode(strings.ToLower(js.Sampling)),
		Source:   source,
		Network:  js.Network,

		Unconfined: js.Sandbox != nil && !*js.Sandbox,
	}
	switch strings.ToLower(js.Type) {
	case "":
	case "stdio":
		sc.Transport = TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		sc.Transport = TransportStreamable
	case "sse":
		sc.Transport = TransportSSE
	default:
		return ServerConfig{}, fail(ferr("type", "%q is not stdio, http or sse", clip(js.Type, 40)))
	}
	if fe := sc.expandAll(getenv); fe != nil {
		return ServerConfig{}, fail(fe)
	}
	if fe := sc.check(); fe != nil {
		return ServerConfig{}, fail(fe)
	}
	return sc, nil
}

// goKind describes the JSON type a jsonServer field wants.
func goKind(field string) string {
	switch field {
	case "args":
		return "an array of strings"
	case "env", "headers":
		return "an object of strings"
	case "disabled":
		return "true or false"
	}
	return "a string" // command, cwd, url, type and the values of env and headers

}

// jsonProblem describes a JSON decoding error in one line, with the byte
// offset when the decoder knows it.
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("invalid JSON at line %d: %v", line, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("a JSON %s where %s was expected", te.Value, te.Type)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "the JSON ends early"
	}
	return err.Error()
}
