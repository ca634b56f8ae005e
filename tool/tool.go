// Package tool defines the Tool interface the agent calls, typed function
// tools whose input schema comes from Go types, tool sets, and the guarded
// invocation (validation, timeout, panic recovery, truncation) every call
// goes through.
package tool

import (
	"context"
	"encoding/json"
)

// Tool is something the model can call.
//
// Spec must be cheap and return the same value for the life of the tool.
// Call may be invoked concurrently from several goroutines. An error returned
// by Call is a tool failure: the harness turns it into an is_error result the
// model sees; it never ends a run. Call must honour ctx cancellation.
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, args json.RawMessage) (*Result, error)
}

// Spec describes a tool to the model and to the policy.
type Spec struct {
	// Name matches ^[a-zA-Z0-9_-]{1,64}$ (what model APIs accept).
	Name        string
	Description string
	// InputSchema is a JSON Schema object for the arguments.
	InputSchema json.RawMessage
	// Annotations are advisory hints (MCP's tool annotations). An absent
	// hint means "no claim", never "safe".
	Annotations Annotations
	// Effects declares what the tool can touch; the policy uses it.
	Effects Effects
}

// Annotations mirrors MCP tool annotations. Nil means the tool makes no claim.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Effects declares the side effects a tool may have. It is the harness's own
// declaration, not the model's or a server's claim.
type Effects struct {
	// ReadsFiles and WritesFiles say the tool reads or changes files.
	ReadsFiles  bool `json:"reads_files,omitempty"`
	WritesFiles bool `json:"writes_files,omitempty"`
	// PathArgs names the top-level argument fields holding workspace paths,
	// so path rules can check them per call.
	PathArgs []string `json:"path_args,omitempty"`
	// Paths, when set, extracts the workspace paths a call touches from
	// its arguments, for tools whose paths are not top-level argument
	// fields (apply_patch names its files inside the patch text). The
	// policy checks them like PathArgs values; an error means the paths
	// cannot be known, and the call then needs approval. It must be safe
	// for concurrent use, do no I/O and not keep args. It is not part of
	// the wire form of a spec.
	Paths func(args json.RawMessage) ([]string, error) `json:"-"`
	// Exec says the tool runs processes; CommandArg names the argument field
	// holding the shell command, so command rules can parse it.
	Exec       bool   `json:"exec,omitempty"`
	CommandArg string `json:"command_arg,omitempty"`
	// DirArg names the argument field holding the workspace-relative
	// directory the command runs in, so paths in the command are decided
	// where they lead.
	DirArg string `json:"dir_arg,omitempty"`
	// Network says the tool reaches the network; URLArg names the
	// argument field holding the URL it fetches, so the [network] host
	// rules can decide each call.
	Network bool   `json:"network,omitempty"`
	URLArg  string `json:"url_arg,omitempty"`
	// External says the tool is provided by an outside server (MCP) whose
	// behaviour rein cannot see.
	External bool `json:"external,omitempty"`
	// WritesState says the tool changes rein's own state outside the
	// workspace (the memory store's remember and forget): the read-only
	// preset asks before such a call.
	WritesState bool `json:"writes_state,omitempty"`
}

// Mutating reports whether a call may change state outside the
// conversation; such calls carry an idempotency key and are never replayed.
func (e Effects) Mutating() bool {
	return e.WritesFiles || e.Exec || e.Network || e.External || e.WritesState
}

// Result is what a tool returns to the model.
type Result struct {
	// Content is the text the model sees.
	Content string
	// IsError marks a failed call; the model sees it as an error result.
	IsError bool
	// Structured is an optional machine-readable result (MCP
	// structuredContent); Content stays the model-facing rendering.
	Structured json.RawMessage
	// Truncated is set when Content was cut to the result cap.
	Truncated bool
	// Finish asks the agent to end the run after this turn with outcome
	// Complete (a tool-signalled finish).
	Finish bool
}
