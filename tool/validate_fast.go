package tool

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// node is a compiled schema for the fast validation path. Problems are
// built as *ValidationError at the leaf with an empty Field; each enclosing
// object or array prefixes its key on the way out, so a valid call
// allocates nothing for paths.
type node struct {
	never bool     // the false schema: nothing is valid
	types typeMask // 0 accepts any type
	enum  []any    // normalised (numbers as float64); nil means no enum
	cnst  *any

	minimum, maximum, exclMin, exclMax *float64

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp

	items              *node
	minItems, maxItems int // -1 when absent

	props        map[string]*node
	order        []string // property names in schema order
	required     []string
	requiredSet  map[string]bool
	additional   *node // schema for other properties; nil accepts any
	noAdditional bool  // additionalProperties: false
}

type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeNames = []struct {
	m    typeMask
	name string
}{
	{tObject, "object"}, {tArray, "array"}, {tString, "string"}, {tNumber, "number"},
	{tInteger, "integer"}, {tBoolean, "boolean"}, {tNull, "null"},
}

func typeMaskOf(name string) (typeMask, bool) {
	for _, t := range typeNames {
		if t.name == name {
			return t.m, true
		}
	}
	return 0, false
}

// String lists the types, e.g. "array or null"; integer is folded into
// number when both are present.
func (m typeMask) String() string {
	var parts []string
	for _, t := range typeNames {
		if m&t.m != 0 && !(t.m == tInteger && m&tNumber != 0) {
			parts = append(parts, t.name)
		}
	}
	return strings.Join(parts, " or ")
}

// fastFields lists the Schema fields the fast path understands, either by
// checking them or because they are annotations with no effect on
// validation when no $ref is present. Any other non-zero field sends the
// schema to the full validator; fields added to jsonschema-go later are
// therefore handled correctly without changes here.
var fastFields = map[string]bool{
	"ID": true, "Schema": true, "Comment": true, "Defs": true, "Definitions": true,
	"Anchor": true, "DynamicAnchor": true, "Vocabulary": true, "Title": true,
	"Description": true, "Default": true, "Deprecated": true, "ReadOnly": true,
	"WriteOnly": true, "Examples": true, "ContentEncoding": true,
	"ContentMediaType": true, "ContentSchema": true, "Format": true, "Extra": true,
	"PropertyOrder": true,

	"Type": true, "Types": true, "Enum": true, "Const": true, "Minimum": true,
	"Maximum": true, "ExclusiveMinimum": true, "ExclusiveMaximum": true,
	"MinLength": true, "MaxLength": true, "Pattern": true, "Items": true,
	"MinItems": true, "MaxItems": true, "Required": true, "Properties": true,
	"AdditionalProperties": true, "Not": true,
}

// maxFastDepth bounds the schema nesting the fast path accepts; deeper
// (hostile or generated) schemas go to the full validator.
const maxFastDepth = 128

// fastSupported reports whether s and its subschemas use only fastFields,
// with "not" allowed solely as the false schema {"not": {}}.
func fastSupported(s *jsonschema.Schema, depth int) bool {
	if s == nil {
		return true
	}
	if depth > maxFastDepth {
		return false
	}
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if !t.Field(i).IsExported() || v.Field(i).IsZero() {
			continue
		}
		if !fastFields[t.Field(i).Name] {
			return false
		}
	}
	if s.Not != nil && !isEmptySchema(s.Not) {
		return false
	}
	for _, p := range s.Properties {
		if !fastSupported(p, depth+1) {
			return false
		}
	}
	return fastSupported(s.Items, depth+1) && fastSupported(s.AdditionalProperties, depth+1)
}

func isEmptySchema(s *jsonschema.Schema) bool {
	return reflect.ValueOf(s).Elem().IsZero()
}

// compileNode builds the fast-path node for s (already fastSupported).
func compileNode(s *jsonschema.Schema) (*node, error) {
	if s == nil {
		return nil, nil
	}
	n := &node{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, never: s.Not != nil}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, name := range types {
		m, ok := typeMaskOf(name)
		if !ok {
			return nil, fmt.Errorf("tool input schema has unknown type %q", name)
		}
		n.types |= m
	}
	if s.Enum != nil {
		n.enum = make([]any, len(s.Enum))
		for i, e := range s.Enum {
			n.enum[i] = normalizeJSON(e)
		}
	}
	if s.Const != nil {
		c := normalizeJSON(*s.Const)
		n.cnst = &c
	}
	n.minimum, n.maximum, n.exclMin, n.exclMax = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum
	n.minLen, n.maxLen = intOr(s.MinLength, -1), intOr(s.MaxLength, -1)
	n.minItems, n.maxItems = intOr(s.MinItems, -1), intOr(s.MaxItems, -1)
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("tool input schema has a pattern Go cannot compile: %w", err)
		}
		n.pattern = re
	}
	var err error
	if n.items, err = compileNode(s.Items); err != nil {
		return nil, err
	}
	if s.Properties != nil {
		n.props = make(map[string]*node, len(s.Properties))
		n.order = propertyOrder(s)
		for _, name := range n.order {
			if n.props[name], err = compileNode(s.Properties[name]); err != nil {
				return nil, err
			}
		}
	}
	n.required = s.Required
	if len(s.Required) > 0 {
		n.requiredSet = make(map[string]bool, len(s.Required))
		for _, k := range s.Required {
			n.requiredSet[k] = true
		}
	}
	if a := s.AdditionalProperties; a != nil {
		if a.Not != nil && isEmptySchema(a.Not) {
			n.noAdditional = true
		} else if n.additional, err = compileNode(a); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// propertyOrder returns s's property names, PropertyOrder first and the
// rest sorted, so messages and checks are deterministic.
func propertyOrder(s *jsonschema.Schema) []string {
	order := make([]string, 0, len(s.Properties))
	seen := make(map[string]bool, len(s.Properties))
	for _, name := range s.PropertyOrder {
		if _, ok := s.Properties[name]; ok && !seen[name] {
			order = append(order, name)
			seen[name] = true
		}
	}
	var rest []string
	for name := range s.Properties {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sortStrings(rest)
	return append(order, rest...)
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// check validates a decoded JSON value (numbers as float64).
func (n *node) check(v any) *ValidationError {
	if n == nil {
		return nil
	}
	if n.never {
		return &ValidationError{Problem: "no value is allowed here"}
	}
	got := valueType(v)
	if n.types != 0 && n.types&got == 0 && !(got == tInteger && n.types&tNumber != 0) {
		return &ValidationError{Problem: fmt.Sprintf("want %s, got %s", n.types, typeWord(got))}
	}
	if n.enum != nil && !inEnum(n.enum, v) {
		return &ValidationError{Problem: fmt.Sprintf("want one of %s, got %s", renderList(n.enum), renderValue(v))}
	}
	if n.cnst != nil && !jsonEqual(*n.cnst, v) {
		return &ValidationError{Problem: fmt.Sprintf("want %s, got %s", renderValue(*n.cnst), renderValue(v))}
	}
	switch x := v.(type) {
	case float64:
		return n.checkNumber(x)
	case string:
		return n.checkString(x)
	case []any:
		return n.checkArray(x)
	case map[string]any:
		return n.checkObject(x)
	}
	return nil
}

func (n *node) checkNumber(f float64) *ValidationError {
	var op string
	var b float64
	switch {
	case n.minimum != nil && !(f >= *n.minimum):
		op, b = ">=", *n.minimum
	case n.maximum != nil && !(f <= *n.maximum):
		op, b = "<=", *n.maximum
	case n.exclMin != nil && !(f > *n.exclMin):
		op, b = ">", *n.exclMin
	case n.exclMax != nil && !(f < *n.exclMax):
		op, b = "<", *n.exclMax
	default:
		return nil
	}
	return &ValidationError{Problem: fmt.Sprintf("want %s %s, got %s", op, fmtFloat(b), fmtFloat(f))}
}

func (n *node) checkString(x string) *ValidationError {
	if n.minLen >= 0 || n.maxLen >= 0 {
		c := utf8.RuneCountInString(x)
		if n.minLen >= 0 && c < n.minLen {
			return &ValidationError{Problem: fmt.Sprintf("want at least %s, got %d", plural(n.minLen, "character"), c)}
		}
		if n.maxLen >= 0 && c > n.maxLen {
			return &ValidationError{Problem: fmt.Sprintf("want at most %s, got %d", plural(n.maxLen, "character"), c)}
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(x) {
		return &ValidationError{Problem: fmt.Sprintf("want a string matching %q", n.pattern.String())}
	}
	return nil
}

func (n *node) checkArray(x []any) *ValidationError {
	if n.minItems >= 0 && len(x) < n.minItems {
		return &ValidationError{Problem: fmt.Sprintf("want at least %s, got %d", plural(n.minItems, "item"), len(x))}
	}
	if n.maxItems >= 0 && len(x) > n.maxItems {
		return &ValidationError{Problem: fmt.Sprintf("want at most %s, got %d", plural(n.maxItems, "item"), len(x))}
	}
	if n.items == nil {
		return nil
	}
	for i, e := range x {
		if err := n.items.check(e); err != nil {
			err.Field = joinIndex(i, err.Field)
			return err
		}
	}
	return nil
}

// checkObject reports unknown fields first (a misspelt name is the usual
// cause of a following "missing" error), then each declared property in
// schema order (missing or invalid), then other required names and
// additional properties, so the reported problem is deterministic.
func (n *node) checkObject(x map[string]any) *ValidationError {
	if n.noAdditional {
		unknown := ""
		for k := range x {
			if _, ok := n.props[k]; !ok && (unknown == "" || k < unknown) {
				unknown = k
			}
		}
		if unknown != "" {
			p := "unknown field"
			if len(n.order) > 0 {
				p += "; allowed fields: " + strings.Join(n.order, ", ")
			}
			return &ValidationError{Field: joinKey(clip(unknown, MaxNameLen), ""), Problem: p}
		}
	}
	for _, k := range n.order {
		v, ok := x[k]
		if !ok {
			if n.requiredSet[k] {
				return &ValidationError{Field: joinKey(k, ""), Problem: "required field is missing"}
			}
			continue
		}
		if err := n.props[k].check(v); err != nil {
			err.Field = joinKey(k, err.Field)
			return err
		}
	}
	for _, k := range n.required {
		if _, ok := x[k]; !ok {
			return &ValidationError{Field: joinKey(k, ""), Problem: "required field is missing"}
		}
	}
	if n.additional == nil {
		return nil
	}
	var bad *ValidationError
	badKey := ""
	for k, v := range x {
		if _, ok := n.props[k]; ok {
			continue
		}
		if err := n.additional.check(v); err != nil && (bad == nil || k < badKey) {
			bad, badKey = err, k
		}
	}
	if bad != nil {
		bad.Field = joinKey(clip(badKey, MaxNameLen), bad.Field)
	}
	return bad
}

// valueType classifies a decoded value; integral numbers are tInteger, as
// JSON Schema counts 1.0 as an integer.
func valueType(v any) typeMask {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return tInteger
		}
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

func typeWord(m typeMask) string {
	if m == tInteger {
		return "number"
	}
	if m == 0 {
		return "unknown"
	}
	return m.String()
}

// normalizeJSON converts numbers to float64 (recursively) so enum and const
// values compare equal to decoded instances whatever Go type produced them.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case float32:
		return float64(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeJSON(e)
		}
		return out
	}
	return v
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if jsonEqual(e, v) {
			return true
		}
	}
	return false
}

// jsonEqual compares a normalised schema value with a decoded instance.
func jsonEqual(want, got any) bool {
	switch w := want.(type) {
	case float64:
		f, ok := got.(float64)
		return ok && f == w
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !jsonEqual(w[i], g[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !jsonEqual(wv, gv) {
				return false
			}
		}
		return true
	}
	return want == got
}
