package tool

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// joinKey prefixes the field path rest with the object key k. Keys that are
// not plain identifiers are written as ["key"] so the path stays readable
// and unambiguous.
func joinKey(k, rest string) string {
	if !plainKey(k) {
		k = "[" + strconv.Quote(k) + "]"
	}
	switch {
	case rest == "":
		return k
	case rest[0] == '[':
		return k + rest
	}
	return k + "." + rest
}

// joinIndex prefixes rest with an array index; i < 0 means "some element".
func joinIndex(i int, rest string) string {
	idx := "[]"
	if i >= 0 {
		idx = "[" + strconv.Itoa(i) + "]"
	}
	if rest == "" || rest[0] == '[' {
		return idx + rest
	}
	return idx + "." + rest
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !nameByte(k[i]) {
			return false
		}
	}
	return true
}

// pathSeg is one step of an instance path: an object key or an array
// element.
type pathSeg struct {
	key   string
	index bool
}

// pointerSegments maps a jsonschema-go schema location
// ("/properties/a/items") to instance path steps (a, []). Keywords that do
// not descend into the instance ($defs, anyOf, …) add nothing.
func pointerSegments(ptr string) []pathSeg {
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	var segs []pathSeg
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "patternProperties":
			if i+1 < len(parts) {
				i++
				segs = append(segs, pathSeg{key: unescape.Replace(parts[i])})
			}
		case "items", "prefixItems", "additionalItems", "contains":
			segs = append(segs, pathSeg{index: true})
		case "additionalProperties":
			segs = append(segs, pathSeg{key: "*"})
		}
	}
	return segs
}

func joinSegments(segs []pathSeg) string {
	field := ""
	for i := len(segs) - 1; i >= 0; i-- {
		switch {
		case segs[i].index:
			field = joinIndex(-1, field)
		case segs[i].key == "*":
			field = joinWildcard(field)
		default:
			field = joinKey(segs[i].key, field)
		}
	}
	return field
}

// joinWildcard prefixes rest with "*", standing for any additional key.
func joinWildcard(rest string) string {
	if rest == "" || rest[0] == '[' {
		return "*" + rest
	}
	return "*." + rest
}

// renderValue shows a model-supplied value in a message, compactly and
// bounded: it is model output and may be huge.
func renderValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return fmtFloat(x)
	case string:
		return strconv.Quote(clip(x, 64))
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "a value"
	}
	return clip(strings.TrimSpace(b.String()), 64)
}

// renderList shows allowed values, at most 20 of them.
func renderList(vals []any) string {
	const maxShown = 20
	parts := make([]string, 0, min(len(vals), maxShown)+1)
	for i, v := range vals {
		if i == maxShown {
			parts = append(parts, "…")
			break
		}
		switch v.(type) {
		case []any, map[string]any:
			b, err := json.Marshal(v)
			if err != nil {
				parts = append(parts, "a value")
				continue
			}
			parts = append(parts, clip(string(b), 64))
		default:
			parts = append(parts, renderValue(v))
		}
	}
	return strings.Join(parts, ", ")
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func sortStrings(s []string) { slices.Sort(s) }
