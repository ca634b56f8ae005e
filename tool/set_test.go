package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeTool is a hand-written Tool with a fixed spec.
type fakeTool struct {
	spec Spec
	call func(ctx context.Context, args json.RawMessage) (*Result, error)
}

func (f *fakeTool) Spec() Spec { return f.spec }

func (f *fakeTool) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	if f.call == nil {
		return &Result{Content: f.spec.Name}, nil
	}
	return f.call(ctx, args)
}

func named(name string) *fakeTool {
	return &fakeTool{spec: Spec{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
}

func names(s *Set) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Spec().Name)
	}
	return out
}

func TestNewSetOrderAndLookup(t *testing.T) {
	s, err := NewSet(named("zeta"), named("alpha"), named("mid-1"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid-1"}, names(s)); diff != "" {
		t.Errorf("Tools order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid-1"}, s.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	var specNames []string
	for _, sp := range s.Specs() {
		specNames = append(specNames, sp.Name)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid-1"}, specNames); diff != "" {
		t.Errorf("Specs order (-want +got):\n%s", diff)
	}
	if s.Len() != 3 {
		t.Errorf("Len = %d; want 3", s.Len())
	}
	if tl, ok := s.Get("alpha"); !ok || tl.Spec().Name != "alpha" {
		t.Errorf("Get(alpha) = %v, %v", tl, ok)
	}
	if _, ok := s.Get("missing"); ok {
		t.Error("Get(missing) found a tool")
	}
	if sp, ok := s.Spec("zeta"); !ok || sp.Name != "zeta" {
		t.Errorf("Spec(zeta) = %+v, %v", sp, ok)
	}
	if err := s.Add(named("omega")); err != nil {
		t.Fatal(err)
	}
	if got := names(s); got[len(got)-1] != "omega" {
		t.Errorf("Add did not append: %v", got)
	}
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		name    string
		tools   []Tool
		want    string
		wantErr error
	}{
		{"duplicate", []Tool{named("a"), named("b"), named("a")}, `"a" is registered twice`, ErrDuplicateName},
		{"invalid name", []Tool{named("has space")}, `"has space"`, ErrInvalidName},
		{"empty name", []Tool{named("")}, "empty", ErrInvalidName},
		{"too long", []Tool{named(strings.Repeat("x", 65))}, "at most 64", ErrInvalidName},
		{"unicode name", []Tool{named("café")}, "café", ErrInvalidName},
		{"nil tool", []Tool{named("a"), nil}, "tool 2 of 2 is nil", nil},
		{"schema not object", []Tool{&fakeTool{spec: Spec{Name: "a", InputSchema: json.RawMessage(`[]`)}}}, "not a JSON object", nil},
		{"schema not JSON", []Tool{&fakeTool{spec: Spec{Name: "a", InputSchema: json.RawMessage(`{"type":`)}}}, "not a JSON object", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSet(tt.tools...)
			if err == nil {
				t.Fatalf("NewSet succeeded; want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q; want it to contain %q", err, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
		})
	}
}

func TestSetAddIsAtomic(t *testing.T) {
	s, _ := NewSet(named("a"))
	if err := s.Add(named("b"), named("a")); !errors.Is(err, ErrDuplicateName) {
		t.Fatalf("Add = %v; want ErrDuplicateName", err)
	}
	if diff := cmp.Diff([]string{"a"}, names(s)); diff != "" {
		t.Errorf("a failed Add changed the set (-want +got):\n%s", diff)
	}
}

func TestSetDefaultsEmptySchema(t *testing.T) {
	s, err := NewSet(&fakeTool{spec: Spec{Name: "bare"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.Specs()[0].InputSchema); got != `{"type":"object","properties":{}}` {
		t.Errorf("InputSchema = %s; want the empty object schema", got)
	}
}

func TestSetFilterAndMerge(t *testing.T) {
	ro := &fakeTool{spec: Spec{Name: "read", Effects: Effects{ReadsFiles: true}}}
	wr := &fakeTool{spec: Spec{Name: "write", Effects: Effects{WritesFiles: true}}}
	ex := &fakeTool{spec: Spec{Name: "exec", Effects: Effects{Exec: true}}}
	s, _ := NewSet(ro, wr, ex)

	safe := s.Filter(func(sp Spec) bool { return !sp.Effects.Mutating() })
	if diff := cmp.Diff([]string{"read"}, names(safe)); diff != "" {
		t.Errorf("Filter (-want +got):\n%s", diff)
	}
	if _, ok := safe.Get("write"); ok {
		t.Error("filtered set still finds write")
	}
	if s.Len() != 3 {
		t.Error("Filter changed the original set")
	}

	extra, _ := NewSet(named("z"), named("y"))
	merged, err := s.Merge(extra)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read", "write", "exec", "z", "y"}, names(merged)); diff != "" {
		t.Errorf("Merge order (-want +got):\n%s", diff)
	}
	if tl, ok := merged.Get("y"); !ok || tl.Spec().Name != "y" {
		t.Error("merged set cannot find y")
	}
	if _, err := s.Merge(safe); !errors.Is(err, ErrDuplicateName) || !strings.Contains(err.Error(), `"read"`) {
		t.Errorf("Merge with overlap = %v; want ErrDuplicateName naming read", err)
	}
	if _, err := s.Merge(s); !errors.Is(err, ErrDuplicateName) {
		t.Errorf("Merge with itself = %v; want ErrDuplicateName", err)
	}
	if m, err := s.Merge(nil); err != nil || m.Len() != 3 {
		t.Errorf("Merge(nil) = %v, %v; want a copy", m, err)
	}
}

func TestNilSetReads(t *testing.T) {
	var s *Set
	if s.Len() != 0 || s.Tools() != nil || s.Specs() != nil || s.Names() != nil {
		t.Error("nil set is not empty")
	}
	if _, ok := s.Get("x"); ok {
		t.Error("nil set found a tool")
	}
	if _, ok := s.Spec("x"); ok {
		t.Error("nil set found a spec")
	}
	if f := s.Filter(func(Spec) bool { return true }); f.Len() != 0 {
		t.Error("Filter of nil set is not empty")
	}
}

func TestSetConcurrentUse(t *testing.T) {
	s, _ := NewSet(named("base"))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := s.Add(named(fmt.Sprintf("t%d_%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, ok := s.Get("base"); !ok {
					t.Error("base vanished")
					return
				}
				_ = s.Specs()
				_ = s.Filter(func(sp Spec) bool { return strings.HasPrefix(sp.Name, "t") })
			}
		}()
	}
	wg.Wait()
	if s.Len() != 201 {
		t.Errorf("Len = %d; want 201", s.Len())
	}
}

func TestSetRemove(t *testing.T) {
	s, _ := NewSet(named("a"), named("b"), named("c"), named("d"))
	before := s.Specs()
	if n := s.Remove("b", "nosuch", "d"); n != 2 {
		t.Errorf("Remove = %d, want 2", n)
	}
	if diff := cmp.Diff([]string{"a", "c"}, names(s)); diff != "" {
		t.Errorf("after Remove (-want +got):\n%s", diff)
	}
	if _, ok := s.Get("b"); ok {
		t.Error("a removed tool is still found")
	}
	if got, ok := s.Get("c"); !ok || got.Spec().Name != "c" {
		t.Error("the index was not rebuilt: c is lost")
	}
	if len(before) != 4 {
		t.Errorf("Remove changed specs handed out earlier: %d", len(before))
	}
	if err := s.Add(named("b")); err != nil {
		t.Errorf("re-adding a removed name: %v", err)
	}
	if diff := cmp.Diff([]string{"a", "c", "b"}, names(s)); diff != "" {
		t.Errorf("after re-Add (-want +got):\n%s", diff)
	}
}
