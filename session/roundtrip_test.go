package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/session"
)

// agentEventTypes reads the EventType constants the agent package
// declares, from its source, so that an event type added later is
// covered without anyone remembering this test.
func agentEventTypes(t *testing.T) []agent.EventType {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "agent", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var types []agent.EventType
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "EventType" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: an EventType constant that is not a string literal", fset.Position(v.Pos()))
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					types = append(types, agent.EventType(s))
				}
			}
		}
	}
	if len(types) < 16 {
		t.Fatalf("found %d EventType constants in ../agent; the parser above no longer sees them", len(types))
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	return types
}

// filler sets every exported, serialised field of a value to a distinct
// non-zero value, so that a field that does not survive the store's
// encoding (json) and decoding (json/v2) shows in a diff.
type filler struct{ n int }

func (f *filler) fill(v reflect.Value, path string) {
	f.n++
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(time.Date(2026, 3, 4, 5, 6, 7, f.n*1000, time.UTC)))
		return
	case time.Duration:
		v.SetInt(int64(1500*time.Millisecond) + int64(f.n))
		return
	case json.RawMessage:
		v.SetBytes([]byte(fmt.Sprintf(`{"k":%d}`, f.n)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s value %d", path, f.n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.n) + 0.25)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			f.fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(k, path+".key")
		f.fill(e, path+".value")
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			f.fill(v.Field(i), path+"."+sf.Name)
		}
	default:
		panic(fmt.Sprintf("filler: %s has kind %s; teach the filler", path, v.Kind()))
	}
}

// TestEveryEventTypeRoundTrips appends one event of every type the agent
// declares, with every field set, and reads them back: what the store
// returns is what was appended. Written with encoding/json and read with
// json/v2, a verify.result's duration once failed to decode, so that
// `rein sessions show` and `rein replay` refused every session that had
// run a [verify] check.
func TestEveryEventTypeRoundTrips(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, func(c *session.Config) { c.StoreDeltas = true })
	info := create(t, s, "/src/roundtrip")
	j, err := s.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	var want []agent.Event
	f := &filler{}
	for _, typ := range agentEventTypes(t) {
		var ev agent.Event
		f.fill(reflect.ValueOf(&ev).Elem(), "Event")
		ev.Type = typ
		ev.RunID = info.ID
		if err := j.Append(ctx, ev); err != nil {
			t.Fatalf("Append(%s): %v", typ, err)
		}
		want = append(want, ev)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	var got []agent.Event
	for r, err := range s.Events(ctx, info.ID) {
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		got = append(got, r.Event)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("events read back (-appended +read):\n%s", diff)
	}
	if _, err := s.Load(ctx, info.ID); err != nil {
		t.Errorf("Load: %v", err)
	}
}
