package tool

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type point struct {
	X int    `json:"x"`
	S string `json:"s,omitempty"`
}

// outTool returns a no-argument Func whose fn returns out, err.
func outTool[Out any](out Out, err error) Tool {
	return Func("out", "", func(context.Context, struct{}) (Out, error) { return out, err })
}

func TestFuncOutputRendering(t *testing.T) {
	shared := &Result{Content: "shared", Finish: true}
	tests := []struct {
		name string
		tool Tool
		want *Result
	}{
		{"string", outTool("hello", nil), &Result{Content: "hello"}},
		{"bytes", outTool([]byte("raw\x00bytes"), nil), &Result{Content: "raw\x00bytes"}},
		{"*Result passes through", outTool(shared, nil), shared},
		{"nil *Result", outTool[*Result](nil, nil), &Result{}},
		{"Result value", outTool(Result{Content: "v", IsError: true}, nil), &Result{Content: "v", IsError: true}},
		{"struct as compact JSON", outTool(point{X: 1, S: "<a&b>"}, nil),
			&Result{Content: `{"x":1,"s":"<a&b>"}`, Structured: json.RawMessage(`{"x":1,"s":"<a&b>"}`)}},
		{"number", outTool(42, nil), &Result{Content: "42"}},
		{"slice", outTool([]int{1, 2}, nil), &Result{Content: "[1,2]"}},
		{"map", outTool(map[string]int{"b": 2, "a": 1}, nil),
			&Result{Content: `{"a":1,"b":2}`, Structured: json.RawMessage(`{"a":1,"b":2}`)}},
		{"raw JSON", outTool(json.RawMessage(" {\"k\":true}\n"), nil),
			&Result{Content: `{"k":true}`, Structured: json.RawMessage(`{"k":true}`)}},
		{"nil any", outTool[any](nil, nil), &Result{}},
		{"nil pointer", outTool[*point](nil, nil), &Result{Content: "null"}},
		{"unencodable", outTool(math.Inf(1), nil),
			&Result{IsError: true, Content: `tool "out" returned a result that cannot be encoded as JSON: json: unsupported value: +Inf`}},
		{"fn error", outTool("ignored", errors.New("disk full")), &Result{Content: "disk full", IsError: true}},
		{"fn error without text", outTool("", errors.New("")), &Result{Content: `tool "out" failed without a message`, IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tool.Call(context.Background(), nil)
			if err != nil {
				t.Fatalf("Call error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFuncRawInputIsPassedThrough(t *testing.T) {
	var got json.RawMessage
	tl := Func("raw", "", func(_ context.Context, in json.RawMessage) (string, error) { got = in; return "", nil })
	args := json.RawMessage(` {"anything":[1,{"x":null}]} `)
	if res, _ := tl.Call(context.Background(), args); res.IsError {
		t.Fatalf("Call = %+v", res)
	}
	if string(got) != `{"anything":[1,{"x":null}]}` {
		t.Errorf("fn got %s", got)
	}
	args[2] = 'X' // the caller's buffer may be reused; fn's copy must not change
	if string(got) != `{"anything":[1,{"x":null}]}` {
		t.Errorf("fn's input aliases the caller's buffer: %s", got)
	}
	if res, _ := tl.Call(context.Background(), json.RawMessage(`[1]`)); !res.IsError {
		t.Error("a non-object was passed to a raw-input tool")
	}
}

func TestFuncPointerAndMapInputs(t *testing.T) {
	var gotPtr *calcIn
	ptrTool := Func("p", "", func(_ context.Context, in *calcIn) (string, error) { gotPtr = in; return "", nil })
	if res, _ := ptrTool.Call(context.Background(), json.RawMessage(`{"expression":"1"}`)); res.IsError {
		t.Fatalf("pointer input: %s", res.Content)
	}
	if gotPtr == nil || gotPtr.Expression != "1" {
		t.Errorf("pointer input decoded as %+v", gotPtr)
	}
	var gotMap map[string]any
	mapTool := Func("m", "", func(_ context.Context, in map[string]any) (string, error) { gotMap = in; return "", nil })
	if res, _ := mapTool.Call(context.Background(), json.RawMessage(`{"a":[1]}`)); res.IsError {
		t.Fatalf("map input: %s", res.Content)
	}
	if diff := cmp.Diff(map[string]any{"a": []any{1.0}}, gotMap); diff != "" {
		t.Errorf("map input (-want +got):\n%s", diff)
	}
}

func TestFuncPassesContext(t *testing.T) {
	type key struct{}
	ctx := WithIdempotencyKey(context.WithValue(context.Background(), key{}, "v"), "call-7")
	tl := Func("ctx", "", func(ctx context.Context, _ struct{}) (string, error) {
		return ctx.Value(key{}).(string) + "/" + IdempotencyKey(ctx), nil
	})
	res, _ := tl.Call(ctx, nil)
	if res.Content != "v/call-7" {
		t.Errorf("Content = %q; want v/call-7", res.Content)
	}
	if IdempotencyKey(context.Background()) != "" {
		t.Error("IdempotencyKey of a bare context is not empty")
	}
}

// FuzzFuncCall feeds arbitrary arguments to a Func: fn must run only with
// arguments that are a JSON object matching the schema, and every other
// input must come back as an is_error result naming the tool.
func FuzzFuncCall(f *testing.F) {
	var ran bool
	tl := Func("rich", "", func(_ context.Context, in richIn) (string, error) {
		ran = true
		if in.Unit != "" && in.Unit != "c" && in.Unit != "f" {
			return "", errors.New("enum not enforced")
		}
		return "ok", nil
	})
	for _, seed := range []string{``, `null`, `{}`, `{"name":"x"}`, `{"name":"x","count":127}`, `{"name":"x","count":128}`,
		`{"name":"x","many":[{"city":"a"}]}`, `{"name":"x","labels":{"a":1e400}}`, `{"name":"\ud800"}`, `{"name":"x"} `,
		`{"name":"x","unit":"k"}`, `[]`, `{"name":`, "{\"name\":\"\xff\"}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		ran = false
		res, err := tl.Call(context.Background(), args)
		if err != nil || res == nil {
			t.Fatalf("Call = %v, %v", res, err)
		}
		if ran != !res.IsError {
			t.Fatalf("ran=%v but result %+v", ran, res)
		}
		if res.IsError && !strings.HasPrefix(res.Content, `invalid arguments for "rich": `) {
			t.Fatalf("unexpected error text %q", res.Content)
		}
		if ran && !json.Valid(NormalizeArgs(args)) {
			t.Fatalf("fn ran for invalid JSON %q", args)
		}
	})
}
