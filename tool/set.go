package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// ErrDuplicateName reports two tools with the same name in one Set.
var ErrDuplicateName = errors.New("duplicate tool name")

// emptyObjectSchema stands in for a tool that declares no input schema.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// Set is an ordered collection of tools with unique names: the registry the
// agent offers to the model. Order is insertion order, so the tool list a
// provider sends is deterministic (and prompt caches stay warm).
//
// A Set is safe for concurrent use: reads may run alongside each other and
// alongside Add, which is atomic (all tools are added or none). The nil *Set
// is an empty set for reading.
type Set struct {
	mu    sync.RWMutex
	tools []Tool
	specs []Spec // cached at Add: Spec must not change for a tool's life
	index map[string]int
	// version counts the changes made by Add and Remove.
	version uint64
}

// NewSet returns a set holding tools, in order. It fails on a nil tool, an
// invalid name, a duplicate name, or an input schema that is not a JSON
// object.
func NewSet(tools ...Tool) (*Set, error) {
	s := &Set{}
	if err := s.Add(tools...); err != nil {
		return nil, err
	}
	return s, nil
}

// Add appends tools, checking them as NewSet does. On error nothing is
// added. A tool with an empty InputSchema is given the empty object schema,
// which model APIs require.
func (s *Set) Add(tools ...Tool) error {
	specs := make([]Spec, len(tools))
	for i, t := range tools {
		spec, ok := safeSpec(t)
		if !ok {
			return fmt.Errorf("tool %d of %d is nil or its Spec panicked", i+1, len(tools))
		}
		if err := ValidateName(spec.Name); err != nil {
			return err
		}
		schema := bytes.TrimSpace(spec.InputSchema)
		switch {
		case len(schema) == 0:
			spec.InputSchema = emptyObjectSchema
		case schema[0] != '{' || !json.Valid(schema):
			return fmt.Errorf("tool %q: the input schema is not a JSON object; model APIs require an object schema", spec.Name)
		}
		specs[i] = spec
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		s.index = make(map[string]int, len(tools))
	}
	seen := make(map[string]bool, len(specs))
	for _, spec := range specs {
		if _, dup := s.index[spec.Name]; dup || seen[spec.Name] {
			return fmt.Errorf("%w: %q is registered twice; rename one of the tools or filter the set", ErrDuplicateName, spec.Name)
		}
		seen[spec.Name] = true
	}
	for i, t := range tools {
		s.index[specs[i].Name] = len(s.tools)
		s.tools = append(s.tools, t)
		s.specs = append(s.specs, specs[i])
	}
	if len(tools) > 0 {
		s.version++
	}
	return nil
}

// Remove takes the named tools out of the set, keeping the order of the
// rest, and returns how many it removed (unknown names are ignored). A
// tool provider whose tools went away (an MCP server's list changed) uses
// it; the agent reads the change before its next model call.
func (s *Set) Remove(names ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	drop := make(map[string]bool, len(names))
	for _, n := range names {
		if _, ok := s.index[n]; ok {
			drop[n] = true
		}
	}
	if len(drop) == 0 {
		return 0
	}
	tools, specs := s.tools[:0:0], s.specs[:0:0]
	for i, spec := range s.specs {
		if !drop[spec.Name] {
			tools = append(tools, s.tools[i])
			specs = append(specs, spec)
		}
	}
	s.tools, s.specs = tools, specs
	s.index = make(map[string]int, len(specs))
	for i, spec := range specs {
		s.index[spec.Name] = i
	}
	s.version++
	return len(drop)
}

// Version returns a number that changes whenever Add or Remove changes
// the set, so a reader that keeps a copy of the specs (the agent, between
// model calls) can tell cheaply whether to read them again. The nil Set
// is at version 0 forever.
func (s *Set) Version() uint64 {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// SpecsVersion returns the specs (as Specs) and the version they belong
// to, read together under one lock.
func (s *Set) SpecsVersion() ([]Spec, uint64) {
	if s == nil {
		return nil, 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Spec(nil), s.specs...), s.version
}

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.index[name]
	if !ok {
		return nil, false
	}
	return s.tools[i], true
}

// Spec returns the cached spec of the tool called name.
func (s *Set) Spec(name string) (Spec, bool) {
	if s == nil {
		return Spec{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.index[name]
	if !ok {
		return Spec{}, false
	}
	return s.specs[i], true
}

// Len returns the number of tools.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.tools)
}

// Tools returns the tools in insertion order, as a new slice.
func (s *Set) Tools() []Tool {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Tool(nil), s.tools...)
}

// Specs returns the tools' specs in insertion order, as a new slice. The
// specs' schema bytes and slices are shared and must not be modified.
func (s *Set) Specs() []Spec {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Spec(nil), s.specs...)
}

// Names returns the tool names in insertion order.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, len(s.specs))
	for i, sp := range s.specs {
		names[i] = sp.Name
	}
	return names
}

// Filter returns a new set holding the tools whose spec satisfies pred, in
// the same order. pred is called without the set's lock held.
func (s *Set) Filter(pred func(Spec) bool) *Set {
	tools, specs := s.snapshot()
	out := &Set{index: make(map[string]int)}
	for i, sp := range specs {
		if pred(sp) {
			out.index[sp.Name] = len(out.tools)
			out.tools = append(out.tools, tools[i])
			out.specs = append(out.specs, sp)
		}
	}
	return out
}

// Merge returns a new set with s's tools followed by other's. A name in
// both is an error wrapping ErrDuplicateName; neither set changes.
func (s *Set) Merge(other *Set) (*Set, error) {
	tools, specs := s.snapshot()
	otherTools, otherSpecs := other.snapshot()
	out := &Set{index: make(map[string]int, len(specs)+len(otherSpecs))}
	add := func(tools []Tool, specs []Spec) error {
		for i, sp := range specs {
			if _, dup := out.index[sp.Name]; dup {
				return fmt.Errorf("%w: %q is in both sets; rename one of the tools or filter a set before merging", ErrDuplicateName, sp.Name)
			}
			out.index[sp.Name] = len(out.tools)
			out.tools = append(out.tools, tools[i])
			out.specs = append(out.specs, sp)
		}
		return nil
	}
	if err := add(tools, specs); err != nil {
		return nil, err
	}
	if err := add(otherTools, otherSpecs); err != nil {
		return nil, err
	}
	return out, nil
}

// snapshot copies the set's contents under the read lock, so callers can
// work (and call user code) without holding it.
func (s *Set) snapshot() ([]Tool, []Spec) {
	if s == nil {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Tool(nil), s.tools...), append([]Spec(nil), s.specs...)
}
