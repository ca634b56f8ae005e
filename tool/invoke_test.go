package tool

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func callTool(name string, call func(ctx context.Context, args json.RawMessage) (*Result, error)) *fakeTool {
	t := named(name)
	t.call = call
	return t
}

func TestInvokeOutcomes(t *testing.T) {
	shared := &Result{Content: "shared"}
	tests := []struct {
		name string
		tool Tool
		want *Result
	}{
		{"success", callTool("ok", func(context.Context, json.RawMessage) (*Result, error) {
			return &Result{Content: "fine", Finish: true}, nil
		}), &Result{Content: "fine", Finish: true}},
		{"error", callTool("e", func(context.Context, json.RawMessage) (*Result, error) {
			return nil, errors.New("permission denied")
		}), &Result{Content: "permission denied", IsError: true}},
		{"error wins over result", callTool("e", func(context.Context, json.RawMessage) (*Result, error) {
			return &Result{Content: "partial"}, errors.New("broken pipe")
		}), &Result{Content: "broken pipe", IsError: true}},
		{"empty error", callTool("e", func(context.Context, json.RawMessage) (*Result, error) {
			return nil, errors.New("")
		}), &Result{Content: `tool "e" failed without a message`, IsError: true}},
		{"nil nil", callTool("n", func(context.Context, json.RawMessage) (*Result, error) { return nil, nil }), &Result{}},
		{"panic", callTool("p", func(context.Context, json.RawMessage) (*Result, error) {
			panic("index out of range [3] with length 2")
		}), &Result{Content: `tool "p" panicked: index out of range [3] with length 2`, IsError: true}},
		{"panic with error value", callTool("p", func(context.Context, json.RawMessage) (*Result, error) {
			panic(errors.New("boom"))
		}), &Result{Content: `tool "p" panicked: boom`, IsError: true}},
		{"goexit", callTool("g", func(context.Context, json.RawMessage) (*Result, error) {
			runtime.Goexit()
			return nil, nil
		}), &Result{Content: `tool "g" stopped without returning a result`, IsError: true}},
		{"shared result", callTool("s", func(context.Context, json.RawMessage) (*Result, error) { return shared, nil }),
			&Result{Content: "shared"}},
		{"nil tool", nil, &Result{Content: "tool call failed: the tool is missing or its description panicked", IsError: true}},
		{"typed nil tool", (*fakeTool)(nil), &Result{Content: "tool call failed: the tool is missing or its description panicked", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Invoke(context.Background(), tt.tool, nil, InvokeOptions{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvokeResultIsACopy(t *testing.T) {
	shared := &Result{Content: strings.Repeat("x", 100)}
	tl := callTool("s", func(context.Context, json.RawMessage) (*Result, error) { return shared, nil })
	got := Invoke(context.Background(), tl, nil, InvokeOptions{MaxResultBytes: 10})
	if !got.Truncated {
		t.Fatal("result not truncated")
	}
	if got == shared || shared.Truncated || len(shared.Content) != 100 {
		t.Error("Invoke modified the tool's own result")
	}
}

func TestInvokePanicHook(t *testing.T) {
	var gotName string
	var gotStack []byte
	tl := callTool("p", func(context.Context, json.RawMessage) (*Result, error) { panic("secret-free value") })
	res := Invoke(context.Background(), tl, nil, InvokeOptions{OnPanic: func(name string, v any, stack []byte) {
		gotName, gotStack = name, stack
	}})
	if gotName != "p" || !strings.Contains(string(gotStack), "invoke_test.go") {
		t.Errorf("OnPanic got name %q and a stack without the panicking frame:\n%s", gotName, gotStack)
	}
	if strings.Contains(res.Content, "goroutine") || strings.Contains(res.Content, ".go:") {
		t.Errorf("the stack leaked to the model: %q", res.Content)
	}
	// A hook that panics itself must not take Invoke down.
	res = Invoke(context.Background(), tl, nil, InvokeOptions{OnPanic: func(string, any, []byte) { panic("hook") }})
	if !res.IsError || !strings.Contains(res.Content, "panicked: secret-free value") {
		t.Errorf("with a panicking hook, result = %+v", res)
	}
}

func TestInvokeSpecPanics(t *testing.T) {
	res := Invoke(context.Background(), panicSpec{}, nil, InvokeOptions{})
	if !res.IsError {
		t.Errorf("result = %+v; want is_error", res)
	}
}

type panicSpec struct{}

func (panicSpec) Spec() Spec { panic("no spec") }
func (panicSpec) Call(context.Context, json.RawMessage) (*Result, error) {
	return &Result{Content: "ran"}, nil
}

func TestInvokeTimeoutIgnoringContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	tl := callTool("stuck", func(context.Context, json.RawMessage) (*Result, error) {
		<-release // ignores ctx on purpose
		return &Result{Content: "late"}, nil
	})
	const timeout = 50 * time.Millisecond
	start := time.Now()
	res := Invoke(context.Background(), tl, nil, InvokeOptions{Timeout: timeout})
	elapsed := time.Since(start)
	if elapsed > timeout+100*time.Millisecond {
		t.Errorf("Invoke returned after %v; want within %v", elapsed, timeout+100*time.Millisecond)
	}
	want := &Result{Content: `tool "stuck" timed out after 50ms`, IsError: true}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestInvokeTimeoutMutatingToolWarns(t *testing.T) {
	tl := callTool("write", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	tl.spec.Effects.WritesFiles = true
	res := Invoke(context.Background(), tl, nil, InvokeOptions{Timeout: 10 * time.Millisecond})
	want := `tool "write" timed out after 10ms; it may still complete in the background, so check its effects before calling it again`
	if res.Content != want || !res.IsError {
		t.Errorf("result = %+v; want is_error %q", res, want)
	}
}

func TestInvokeContextAwareTimeoutIsReportedAsTimeout(t *testing.T) {
	// A Func whose fn returns ctx.Err() produces an is_error result itself;
	// Invoke still reports the timeout, the real cause.
	tl := Func("slow", "", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	res := Invoke(context.Background(), tl, nil, InvokeOptions{Timeout: 10 * time.Millisecond})
	if res.Content != `tool "slow" timed out after 10ms` {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestInvokeFuncTimeoutWins(t *testing.T) {
	tl := Func("quick", "", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, WithTimeout(20*time.Millisecond))
	if d := tl.(Timeouter).Timeout(); d != 20*time.Millisecond {
		t.Fatalf("Timeout() = %v", d)
	}
	start := time.Now()
	res := Invoke(context.Background(), tl, nil, InvokeOptions{Timeout: time.Hour})
	if time.Since(start) > time.Second {
		t.Errorf("the tool's 20ms timeout did not override the option's hour")
	}
	if res.Content != `tool "quick" timed out after 20ms` {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestInvokeDefaultTimeout(t *testing.T) {
	var deadline time.Duration
	tl := callTool("d", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
		dl, _ := ctx.Deadline()
		deadline = time.Until(dl)
		return nil, nil
	})
	Invoke(context.Background(), tl, nil, InvokeOptions{})
	if deadline <= DefaultTimeout-time.Minute || deadline > DefaultTimeout {
		t.Errorf("deadline in %v; want about %v", deadline, DefaultTimeout)
	}
}

func TestInvokeCancelled(t *testing.T) {
	var ran atomic.Bool
	tl := callTool("c", func(ctx context.Context, _ json.RawMessage) (*Result, error) {
		ran.Store(true)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Invoke(ctx, tl, nil, InvokeOptions{})
	if ran.Load() || res.Content != `tool "c" was not run: context canceled` {
		t.Errorf("pre-cancelled: ran=%v result=%+v", ran.Load(), res)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	res = Invoke(ctx, tl, nil, InvokeOptions{})
	if res.Content != `tool "c" was cancelled: context canceled` || !res.IsError {
		t.Errorf("cancelled mid-call: %+v", res)
	}
}

func TestInvokeTruncates(t *testing.T) {
	big := strings.Repeat("a", 200) + strings.Repeat("z", 56)
	tl := callTool("big", func(context.Context, json.RawMessage) (*Result, error) {
		return &Result{Content: big, Structured: json.RawMessage(`{"k":"` + big + `"}`)}, nil
	})
	res := Invoke(context.Background(), tl, nil, InvokeOptions{MaxResultBytes: 64})
	want := strings.Repeat("a", 56) + "\n… [truncated: 256 bytes total, showing first 56 and last 8] …\n" + strings.Repeat("z", 8)
	if res.Content != want || !res.Truncated || res.Structured != nil {
		t.Errorf("result = %+v\nwant Content %q, Truncated, no Structured", res, want)
	}
	res = Invoke(context.Background(), tl, nil, InvokeOptions{MaxResultBytes: -1})
	if res.Content != big || res.Truncated {
		t.Error("MaxResultBytes -1 still truncated")
	}
	res = Invoke(context.Background(), tl, nil, InvokeOptions{})
	if res.Content != big || res.Truncated {
		t.Error("the default cap truncated a small result")
	}
}

func TestInvokeArgsReachTool(t *testing.T) {
	tl := Func("echo", "", func(_ context.Context, in calcIn) (string, error) { return in.Expression, nil })
	res := Invoke(context.Background(), tl, json.RawMessage(`{"expression":"2+2"}`), InvokeOptions{})
	if res.Content != "2+2" || res.IsError {
		t.Errorf("result = %+v", res)
	}
	res = Invoke(context.Background(), tl, json.RawMessage(`{"expression":2}`), InvokeOptions{})
	if res.Content != `invalid arguments for "echo": field "expression": want string, got number` {
		t.Errorf("invalid args result = %+v", res)
	}
}

// BenchmarkInvoke measures the harness overhead around a no-op Func: args
// normalisation, validation, decoding, the call goroutine, the timeout
// context and result capping.
func BenchmarkInvoke(b *testing.B) {
	tl := Func("noop", "", func(context.Context, calcIn) (string, error) { return "ok", nil })
	args := json.RawMessage(`{"expression":"1+1"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := Invoke(ctx, tl, args, InvokeOptions{}); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkFuncCall is the same call without Invoke's guards.
func BenchmarkFuncCall(b *testing.B) {
	tl := Func("noop", "", func(context.Context, calcIn) (string, error) { return "ok", nil })
	args := json.RawMessage(`{"expression":"1+1"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r, _ := tl.Call(ctx, args); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkValidateRich validates a nested argument object.
func BenchmarkValidateRich(b *testing.B) {
	tl := Func("rich", "", func(context.Context, richIn) (string, error) { return "", nil })
	v := tl.(*funcTool[richIn, string]).validator
	args := json.RawMessage(`{"name":"x","count":3,"tags":["a","b"],"many":[{"city":"a"},{"city":"b","zip":"1"}],"labels":{"a":1},"unit":"c"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

// boom panics when decoded, standing in for a buggy custom unmarshaler.
type boom string

func (*boom) UnmarshalJSON([]byte) error { panic("kaboom") }

func TestInvokePanicWhileDecoding(t *testing.T) {
	var hooked any
	tl := Func("dec", "", func(context.Context, struct {
		B boom `json:"b"`
	}) (string, error) {
		return "ran", nil
	})
	res := Invoke(context.Background(), tl, json.RawMessage(`{"b":"x"}`), InvokeOptions{
		OnPanic: func(_ string, v any, _ []byte) { hooked = v },
	})
	want := &Result{Content: `tool "dec" panicked while reading its arguments: kaboom`, IsError: true}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if hooked != "kaboom" {
		t.Errorf("OnPanic got %v", hooked)
	}
}
