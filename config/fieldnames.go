package config

import (
	"reflect"
	"strings"
)

// fieldNames returns the TOML key names of the struct that v (a pointer to
// a struct, possibly nested in maps, slices and pointers) holds at path
// below its top, so that an unknown key's error can suggest the key the
// user meant. It returns nil where the shape has no fixed names (a map's
// keys are the user's).
func fieldNames(v any, path []string) []string {
	t := reflect.TypeOf(v)
	for _, name := range path {
		t = elemStruct(t)
		if t == nil {
			return nil
		}
		f, ok := fieldByKey(t, name)
		if !ok {
			// Under a map the path names an entry: skip to its value.
			return nil
		}
		t = f.Type
	}
	t = elemStruct(t)
	if t == nil {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		if n := keyName(t.Field(i)); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// elemStruct unwraps pointers, slices and map values down to a struct
// type, nil when there is none.
func elemStruct(t reflect.Type) reflect.Type {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			return t
		default:
			return nil
		}
	}
	return nil
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); keyName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// keyName is the key the TOML decoder maps to f: its toml tag, else its
// name; "" for unexported or skipped fields.
func keyName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	switch tag {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return tag
}
