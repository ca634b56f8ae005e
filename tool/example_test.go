package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reinharness/rein/tool"
)

// Func turns a Go function into a tool: the input schema comes from the
// argument type, every call is validated against it before the function
// runs, and Invoke turns whatever happens — a result, an error, invalid
// arguments, a panic — into a result the model can read.
func ExampleFunc() {
	type addIn struct {
		A int `json:"a" jsonschema:"the first addend"`
		B int `json:"b" jsonschema:"the second addend"`
	}
	add := tool.Func("add", "Adds two integers.", func(ctx context.Context, in addIn) (map[string]int, error) {
		return map[string]int{"sum": in.A + in.B}, nil
	})
	fmt.Printf("schema: %s\n", add.Spec().InputSchema)

	ctx := context.Background()
	for _, args := range []string{`{"a":2,"b":40}`, `{"a":"two","b":40}`} {
		res := tool.Invoke(ctx, add, json.RawMessage(args), tool.InvokeOptions{})
		fmt.Printf("%s → error %v: %s\n", args, res.IsError, res.Content)
	}
	// Output:
	// schema: {"type":"object","properties":{"a":{"type":"integer","description":"the first addend"},"b":{"type":"integer","description":"the second addend"}},"required":["a","b"],"additionalProperties":false}
	// {"a":2,"b":40} → error false: {"sum":42}
	// {"a":"two","b":40} → error true: invalid arguments for "add": field "a": want integer, got string
}
