package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/jsonschema-go/jsonschema"
)

// FuncOption configures a Func.
type FuncOption func(*funcConfig)

type funcConfig struct {
	annotations  Annotations
	effects      Effects
	timeout      time.Duration
	allowUnknown bool
	schemaEdits  []func(*jsonschema.Schema) error
}

// WithAnnotations sets the tool's advisory hints.
func WithAnnotations(a Annotations) FuncOption { return func(c *funcConfig) { c.annotations = a } }

// WithEffects declares what the tool can touch, for the policy.
func WithEffects(e Effects) FuncOption { return func(c *funcConfig) { c.effects = e } }

// WithTimeout sets the tool's own per-call timeout; it overrides
// InvokeOptions.Timeout. Zero or negative leaves the default.
func WithTimeout(d time.Duration) FuncOption { return func(c *funcConfig) { c.timeout = d } }

// WithUnknownFields accepts argument fields the input type does not
// declare (they are ignored). By default they are rejected, because a
// misspelt optional field silently ignored is a bug the model cannot see.
func WithUnknownFields() FuncOption { return func(c *funcConfig) { c.allowUnknown = true } }

// WithSchemaEdit adjusts the inferred input schema before it is fixed, for
// constraints Go types cannot express (minimum, pattern, an enum on a named
// type). The validator enforces the edited schema; the edit must keep it an
// object schema.
func WithSchemaEdit(edit func(*jsonschema.Schema) error) FuncOption {
	return func(c *funcConfig) { c.schemaEdits = append(c.schemaEdits, edit) }
}

// Timeouter is implemented by tools that carry their own per-call timeout.
// Invoke uses a positive Timeout in place of InvokeOptions.Timeout.
type Timeouter interface {
	Timeout() time.Duration
}

// Func returns a tool that calls fn with the arguments decoded into In. It
// panics if NewFunc would return an error: that is a programming error,
// found the first time the program starts.
func Func[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...FuncOption) Tool {
	t, err := NewFunc(name, description, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// NewFunc returns a tool that calls fn with the arguments decoded into In.
//
// The input schema is inferred from In once, here (see the package
// documentation of github.com/google/jsonschema-go for the rules; an
// `enum:"a,b"` tag adds an enum). In must be a struct, a map with string
// keys, any, or json.RawMessage (passed through undecoded); pointers to
// these are allowed.
//
// Every call validates the arguments against the schema before fn runs; a
// violation becomes an is_error result naming the field, and fn is not
// called. fn's result becomes the result text: a string or []byte as is, a
// *Result unchanged, anything else as compact JSON (also kept as Structured
// when it is a JSON object). An error from fn becomes an is_error result
// with the error's text.
func NewFunc[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...FuncOption) (Tool, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("tool %q: the function is nil", name)
	}
	var cfg funcConfig
	for _, o := range opts {
		o(&cfg)
	}
	s, raw, err := inputSchema(reflect.TypeFor[In](), &cfg)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	schemaJSON, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tool %q: encoding the input schema: %w", name, err)
	}
	v, err := newValidator(s)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	return &funcTool[In, Out]{
		spec: Spec{
			Name:        name,
			Description: description,
			InputSchema: schemaJSON,
			Annotations: cfg.annotations,
			Effects:     cfg.effects,
		},
		fn:        fn,
		validator: v,
		raw:       raw,
		timeout:   cfg.timeout,
	}, nil
}

type funcTool[In, Out any] struct {
	spec      Spec
	fn        func(context.Context, In) (Out, error)
	validator *Validator
	raw       bool
	timeout   time.Duration
}

// Spec returns the spec fixed at construction.
func (f *funcTool[In, Out]) Spec() Spec { return f.spec }

// Timeout returns the per-call timeout set with WithTimeout, or zero.
func (f *funcTool[In, Out]) Timeout() time.Duration { return f.timeout }

// Call validates and decodes args, runs fn and renders its result. Failures
// are returned as is_error results, never as errors, so direct callers see
// the same thing the model would.
func (f *funcTool[In, Out]) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	run, early := f.prepare(args)
	if early != nil {
		return early, nil
	}
	res, _, err := run.call(ctx)
	return res, err
}

// prepare validates and decodes args. Invoke calls it on the caller's
// goroutine: decoding needs a deep stack, and growing the fresh stack of
// the call goroutine on every call would cost more than the call itself.
func (f *funcTool[In, Out]) prepare(args json.RawMessage) (caller, *Result) {
	args = NormalizeArgs(args)
	if err := f.validator.Validate(args); err != nil {
		return nil, f.invalid(err)
	}
	// One allocation holds the decoded input and is the call.
	p := &preparedCall[In, Out]{f: f}
	if f.raw {
		p.in = any(json.RawMessage(bytes.Clone(args))).(In)
	} else if err := decodeInput(args, &p.in); err != nil {
		return nil, f.invalid(decodeProblem(err))
	}
	return p, nil
}

// decodeInput decodes args into in as encoding/json.Unmarshal does. It
// decodes with the json/v2 engine's encoding/json semantics (go-json-
// experiment's v1 package): twice as fast, and without the four
// allocations of encoding/json's decoder state. When that fails, the
// decode is redone with encoding/json itself, whose outcome stands: every
// error a tool's caller sees keeps its wording (the v1 package names a
// map value's field "labels.b", encoding/json "labels"), and an input the
// two would judge differently is judged as encoding/json judges it.
// FuzzDecodeInput holds the two to the same values where both succeed.
func decodeInput[In any](args []byte, in *In) error {
	if jsonv1.Unmarshal(args, in) == nil {
		return nil
	}
	var zero In
	*in = zero
	return json.Unmarshal(args, in)
}

// preparedCall is a Func call whose arguments were checked and decoded.
type preparedCall[In, Out any] struct {
	callSlot
	f   *funcTool[In, Out]
	in  In
	res Result // a string output's result, in the call's own memory (it keeps in alive only as long as the result)
}

func (p *preparedCall[In, Out]) call(ctx context.Context) (*Result, bool, error) {
	out, err := p.f.fn(ctx, p.in)
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = fmt.Sprintf("tool %q failed without a message", p.f.spec.Name)
		}
		return &Result{Content: msg, IsError: true}, true, nil
	}
	// The common case first, without boxing out into an interface.
	if s, ok := any(out).(string); ok {
		p.res = Result{Content: s}
		return &p.res, true, nil
	}
	// render passes a *Result through: that one the tool may still hold.
	_, shared := any(out).(*Result)
	return render(p.f.spec.Name, out), !shared, nil
}

func (f *funcTool[In, Out]) invalid(err error) *Result {
	return ErrorResult("invalid arguments for %q: %v", f.spec.Name, err)
}

// decodeProblem words an encoding/json error met after validation passed
// (an integer that overflows its Go type, a 1.5 for an int field) as a
// ValidationError naming the field.
func decodeProblem(err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return &ValidationError{
			Field:   ute.Field,
			Problem: fmt.Sprintf("cannot use %s as %s", clip(ute.Value, 32), goTypeWord(ute.Type)),
		}
	}
	return &ValidationError{Problem: strings.TrimPrefix(err.Error(), "json: ")}
}

// goTypeWord names a Go type in model terms.
func goTypeWord(t reflect.Type) string {
	if t == nil {
		return "the expected type"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("an integer of %d bits", t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("a non-negative integer of %d bits", t.Bits())
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// render turns a Func's output into a Result.
func render(name string, out any) *Result {
	switch v := out.(type) {
	case string:
		return &Result{Content: v}
	case []byte:
		return &Result{Content: string(v)}
	case *Result:
		if v == nil {
			return &Result{}
		}
		return v
	case Result:
		return &v
	case json.RawMessage:
		return jsonResult(bytes.Clone(bytes.TrimSpace(v)))
	case nil:
		return &Result{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// The model reads this text: "<" is clearer than "\u003c".
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return ErrorResult("tool %q returned a result that cannot be encoded as JSON: %v", name, err)
	}
	return jsonResult(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// jsonResult keeps a JSON object also as Structured (MCP structuredContent
// must be an object). It takes ownership of j.
func jsonResult(j []byte) *Result {
	r := &Result{Content: string(j)}
	if len(j) > 0 && j[0] == '{' {
		r.Structured = j
	}
	return r
}
