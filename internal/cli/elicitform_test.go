package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// allKindsForm has one field of every kind the MCP elicitation schema
// allows, in non-alphabetical order (the order must be kept).
const allKindsForm = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Full name", "description": "Your legal name", "minLength": 2, "maxLength": 20},
    "email": {"type": "string", "format": "email"},
    "site": {"type": "string", "format": "uri"},
    "born": {"type": "string", "format": "date"},
    "when": {"type": "string", "format": "date-time"},
    "agree": {"type": "boolean", "default": false},
    "age": {"type": "integer", "minimum": 1, "maximum": 120, "default": 42},
    "score": {"type": "number", "minimum": 0, "maximum": 10},
    "friend": {"type": "string", "enum": ["Monica", "Rachel", "Joey"], "default": "Joey"},
    "pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"]},
    "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Wonder Woman"}]},
    "tools": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["Guitar", "Piano", "Drums"]}, "default": ["Guitar"]},
    "fish": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2", "title": "Salmon"}]}}
  },
  "required": ["name", "hero"]
}`

func TestParseFormKeepsOrderAndKinds(t *testing.T) {
	f, err := parseForm(json.RawMessage(allKindsForm))
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Name     string
		Kind     fieldKind
		Required bool
		Format   string
		Options  string
		Default  any
	}
	var got []view
	for _, fd := range f.fields {
		var opts []string
		for _, o := range fd.options {
			opts = append(opts, o.value+"="+o.label)
		}
		got = append(got, view{fd.name, fd.kind, fd.required, fd.format, strings.Join(opts, ","), fd.def})
	}
	want := []view{
		{"name", kindText, true, "", "", nil},
		{"email", kindText, false, "email", "", nil},
		{"site", kindText, false, "uri", "", nil},
		{"born", kindText, false, "date", "", nil},
		{"when", kindText, false, "date-time", "", nil},
		{"agree", kindBool, false, "", "", false},
		{"age", kindInteger, false, "", "", int64(42)},
		{"score", kindNumber, false, "", "", nil},
		{"friend", kindChoice, false, "", "Monica=Monica,Rachel=Rachel,Joey=Joey", "Joey"},
		{"pet", kindChoice, false, "", "pet-1=Cats,pet-2=Dogs", nil},
		{"hero", kindChoice, true, "", "hero-1=Superman,hero-2=Wonder Woman", nil},
		{"tools", kindMulti, false, "", "Guitar=Guitar,Piano=Piano,Drums=Drums", []string{"Guitar"}},
		{"fish", kindMulti, false, "", "fish-1=Tuna,fish-2=Salmon", nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

func TestParseFormRefusesWhatMCPDoesNotAllow(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"not JSON", `{"type":`, "not a JSON object"},
		{"array", `[1,2]`, "not a JSON object"},
		{"not an object schema", `{"type":"string"}`, `type is not "object"`},
		{"properties not an object", `{"properties":[1]}`, "properties: not a JSON object"},
		{"nested object", `{"properties":{"a":{"type":"object"}}}`, `field "a": unsupported type "object"`},
		{"type list", `{"properties":{"a":{"type":["string","null"]}}}`, "single string"},
		{"array without items", `{"properties":{"a":{"type":"array"}}}`, "needs items"},
		{"array without options", `{"properties":{"a":{"type":"array","items":{"type":"string"}}}}`, "at least one value"},
		{"number enum", `{"properties":{"a":{"type":"string","enum":[1,2]}}}`, "must be strings"},
		{"empty const", `{"properties":{"a":{"oneOf":[{"const":"","title":"x"}]}}}`, "non-empty string const"},
		{"format", `{"properties":{"a":{"type":"string","format":"ipv4"}}}`, `unsupported format "ipv4"`},
		{"bounds", `{"properties":{"a":{"type":"number","minimum":5,"maximum":1}}}`, "maximum is less than minimum"},
		{"duplicate", `{"properties":{"a":{"type":"string"},"a":{"type":"number"}}}`, "appears twice"},
		{"wrong member type", `{"properties":{"a":{"type":"string","title":5}}}`, "unusable schema"},
		{"too many", manyFields(maxFormFields + 1), "at most 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseForm(json.RawMessage(tt.schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseForm error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func manyFields(n int) string {
	var b strings.Builder
	b.WriteString(`{"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"f%d":{"type":"string"}`, i)
	}
	b.WriteString("}}")
	return b.String()
}

func TestParseFormEmptyAndBadDefaults(t *testing.T) {
	for _, s := range []string{"", "null", `{}`, `{"type":"object"}`, `{"properties":{}}`} {
		f, err := parseForm(json.RawMessage(s))
		if err != nil || len(f.fields) != 0 {
			t.Errorf("parseForm(%q) = %v, %v; want an empty form", s, f, err)
		}
	}
	// Defaults that do not fit the field are ignored, not sent.
	f, err := parseForm(json.RawMessage(`{"properties":{
		"a":{"type":"integer","default":1.5},
		"b":{"type":"boolean","default":"yes"},
		"c":{"type":"string","enum":["x"],"default":"y"},
		"d":{"type":"array","items":{"type":"string","enum":["x"]},"default":["x","z"]},
		"e":{"type":"number","default":"NaN"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range f.fields {
		if fd.def != nil {
			t.Errorf("field %s: default %v kept, want it ignored", fd.name, fd.def)
		}
	}
}

func TestFormFieldParse(t *testing.T) {
	f, err := parseForm(json.RawMessage(allKindsForm))
	if err != nil {
		t.Fatal(err)
	}
	field := map[string]*formField{}
	for i := range f.fields {
		field[f.fields[i].name] = &f.fields[i]
	}
	tests := []struct {
		field, in string
		want      any
		wantErr   string
	}{
		{"name", "Ann", "Ann", ""},
		{"name", "A", nil, "enter 2–20 characters (this is 1)"},
		{"name", strings.Repeat("é", 21), nil, "this is 21"},
		{"email", "ann@example.com", "ann@example.com", ""},
		{"email", "Ann <ann@example.com>", nil, "email address"},
		{"email", "ann", nil, "email address"},
		{"site", "https://example.com/x", "https://example.com/x", ""},
		{"site", "example.com", nil, "absolute URI"},
		{"born", "1990-02-28", "1990-02-28", ""},
		{"born", "1990-02-30", nil, "YYYY-MM-DD"},
		{"when", "2026-03-31T14:30:00+02:00", "2026-03-31T14:30:00+02:00", ""},
		{"when", "2026-03-31 14:30", nil, "RFC 3339"},
		{"agree", "Y", true, ""},
		{"agree", "no", false, ""},
		{"agree", "maybe", nil, "answer y or n"},
		{"age", "7", int64(7), ""},
		{"age", "121", nil, "1–120"},
		{"age", "7.5", nil, "whole number"},
		{"age", "99999999999999999999", nil, "whole number"},
		{"score", "2.5", 2.5, ""},
		{"score", "-1", nil, "0–10"},
		{"score", "NaN", nil, "enter a number"},
		{"score", "Inf", nil, "enter a number"},
		{"friend", "2", "Rachel", ""},
		{"friend", "joey", "Joey", ""},
		{"friend", "4", nil, "not an option"},
		{"friend", "Phoebe", nil, "not an option"},
		{"pet", "dogs", "pet-2", ""},
		{"pet", "pet-1", "pet-1", ""},
		{"hero", "Wonder Woman", "hero-2", ""},
		{"tools", "piano, 3", []any{"Piano", "Drums"}, ""},
		{"tools", "1,1", []any{"Guitar"}, ""},
		{"tools", "1,2,3", nil, "choose 1–2 options"},
		{"tools", ",", nil, "choose 1–2 options"},
		{"fish", "Tuna,salmon", []any{"fish-1", "fish-2"}, ""},
		{"fish", "Cod", nil, "not an option"},
	}
	for _, tt := range tests {
		t.Run(tt.field+"/"+tt.in, func(t *testing.T) {
			got, err := field[tt.field].parse(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parse(%q) = %v, %v; want error %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parse(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestPickAmbiguousLabel(t *testing.T) {
	f := formField{kind: kindChoice, options: []choice{{"a", "Same"}, {"b", "same"}}}
	if _, err := f.pick("SAME"); err == nil || !strings.Contains(err.Error(), "more than one option") {
		t.Errorf("pick of an ambiguous label: %v", err)
	}
	if i, err := f.pick("same"); err != nil || i != 1 {
		t.Errorf("an exact label wins over a case-insensitive one: %d, %v", i, err)
	}
}

func TestFieldHintsAndHeaders(t *testing.T) {
	f, err := parseForm(json.RawMessage(allKindsForm))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range f.fields {
		got = append(got, fd.header()+" |"+fd.hint())
	}
	want := []string{
		"• Full name (name), required — Your legal name |  text, 2–20 characters: ",
		"• email |  email address, Enter to skip: ",
		"• site |  URI, Enter to skip: ",
		"• born |  date YYYY-MM-DD, Enter to skip: ",
		"• when |  date-time RFC 3339, Enter to skip: ",
		"• agree |  y/n, Enter for no: ",
		"• age |  whole number 1–120, Enter for 42: ",
		"• score |  number 0–10, Enter to skip: ",
		"• friend |  number or value, Enter for Joey: ",
		"• pet |  number or value, Enter to skip: ",
		"• hero, required |  number or value: ",
		"• tools |  numbers or values separated by commas, 1–2 items, Enter for Guitar: ",
		"• fish |  numbers or values separated by commas, one or more items, Enter to skip: ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers and hints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"    1) Cats [pet-1]", "    2) Dogs [pet-2]"}, f.fields[9].optionLines()); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

func TestTermTextDefusesTerminalControls(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 40, "plain"},
		{"\x1b[31mred\x1b[0m", 40, `\x1b[31mred\x1b[0m`},
		{"csi\u009b2J", 40, `csi\u009b2J`},
		{"two\nlines\r\n", 40, "two lines"},
		{"over\rwrite", 40, `over\rwrite`},
		{"rtl\u202Eevil\u200b", 40, `rtl\u202eevil\u200b`},
		{"bad\xffutf8", 40, `bad\xffutf8`},
		{strings.Repeat("x", 12), 10, "xxxxxxxxxx…"},
	}
	for _, tt := range tests {
		if got := termText(tt.in, tt.limit); got != tt.want {
			t.Errorf("termText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := termBlock("a\x1b\nb", 100, "> "); got != "> a\\x1b\n> b" {
		t.Errorf("termBlock = %q", got)
	}
}

// FuzzElicitForm feeds hostile schemas and answers: parsing never
// panics, and an accepted answer always has the type its field sends.
func FuzzElicitForm(f *testing.F) {
	f.Add([]byte(allKindsForm), "2")
	f.Add([]byte(allKindsForm), "piano, 3")
	f.Add([]byte(`{"properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}}}`), "x,X,1")
	f.Add([]byte(`{"properties":{"a":{"type":"integer","minimum":-1e308}}}`), "-9007199254740993")
	f.Add([]byte(`{"properties":{"a":{"type":"string","minLength":-3,"maxLength":-1}}}`), "")
	f.Add([]byte(`{"properties":{"\u001b[2J":{"type":"string","title":"\u009b"}}}`), "\x00")
	f.Fuzz(func(t *testing.T, schema []byte, answer string) {
		form, err := parseForm(schema)
		if err != nil {
			return
		}
		for i := range form.fields {
			fd := &form.fields[i]
			_ = fd.header() + fd.hint() + strings.Join(fd.optionLines(), "")
			v, err := fd.parse(answer)
			if err != nil {
				continue
			}
			ok := false
			switch fd.kind {
			case kindText, kindChoice:
				_, ok = v.(string)
			case kindNumber:
				_, ok = v.(float64)
			case kindInteger:
				_, ok = v.(int64)
			case kindBool:
				_, ok = v.(bool)
			case kindMulti:
				_, ok = v.([]any)
			}
			if !ok {
				t.Fatalf("field %q (kind %d) accepted %q as %T", fd.name, fd.kind, answer, v)
			}
		}
	})
}
