package basic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/tool"
)

var fixed = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func clock() time.Time { return fixed }

func TestNow(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no zoneinfo database on this machine: %v", err)
	}
	now := Now(WithClock(clock), WithLocation(berlin))
	tests := []struct {
		args    string
		want    string
		wantErr bool
	}{
		{``, "2026-03-14T16:09:26+01:00", false},
		{`{}`, "2026-03-14T16:09:26+01:00", false},
		{`{"timezone":"UTC"}`, "2026-03-14T15:09:26Z", false},
		{`{"timezone":"America/New_York"}`, "2026-03-14T11:09:26-04:00", false},
		{`{"timezone":"Asia/Kolkata"}`, "2026-03-14T20:39:26+05:30", false},
		{`{"timezone":"Etc/GMT+5"}`, "2026-03-14T10:09:26-05:00", false},
		{`{"timezone":"Mars/Olympus"}`, `unknown time zone "Mars/Olympus": use an IANA name such as "UTC", "Europe/Berlin" or "America/New_York"`, true},
		{`{"timezone":"../../../../etc/passwd"}`, `unknown time zone "../../../../etc/passwd"`, true},
		{`{"timezone":"/etc/localtime"}`, `unknown time zone "/etc/localtime"`, true},
		{`{"timezone":"Europe/Berlin\u0000"}`, `unknown time zone "Europe/Berlin\x00"`, true},
		{`{"timezone":"` + strings.Repeat("A", 5000) + `"}`, `unknown time zone "` + strings.Repeat("A", 64) + `…"`, true},
		{`{"timezone":5}`, `invalid arguments for "now": field "timezone": want string, got number`, true},
		{`{"tz":"UTC"}`, `invalid arguments for "now": field "tz": unknown field; allowed fields: timezone`, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := tool.Invoke(context.Background(), now, json.RawMessage(tt.args), tool.InvokeOptions{})
			if res.IsError != tt.wantErr {
				t.Fatalf("result = %+v; want IsError %v", res, tt.wantErr)
			}
			if !strings.HasPrefix(res.Content, tt.want) {
				t.Errorf("Content = %q; want prefix %q", res.Content, tt.want)
			}
		})
	}
}

func TestNowDefaults(t *testing.T) {
	before := time.Now().Add(-time.Second)
	res := tool.Invoke(context.Background(), Now(WithClock(nil), WithLocation(nil)), nil, tool.InvokeOptions{})
	got, err := time.Parse(time.RFC3339, res.Content)
	if err != nil {
		t.Fatalf("Content %q is not RFC 3339: %v", res.Content, err)
	}
	if got.Before(before) || got.After(time.Now().Add(time.Second)) {
		t.Errorf("default clock says %v; want about now", got)
	}
}

func TestCalculatorTool(t *testing.T) {
	calc := Calculator()
	tests := []struct {
		args    string
		want    string
		wantErr bool
	}{
		{`{"expression":"2*(3+4)"}`, "14", false},
		{`{"expression":"0.1+0.2"}`, "0.3", false},
		{`{"expression":"1/3"}`, "0.333333333333333", false},
		{`{"expression":"2^0.5"}`, "1.4142135623731", false},
		{`{"expression":"(1+2))"}`, "unexpected ')' at column 6", true},
		{`{"expression":"1/0"}`, "division by zero at column 2", true},
		{`{"expression":""}`, "empty expression; write one like 2*(3+4)", true},
		{`{"expression":1}`, `invalid arguments for "calculator": field "expression": want string, got number`, true},
		{`{}`, `invalid arguments for "calculator": field "expression": required field is missing`, true},
		{`{"expression":"1+1","x":1}`, `invalid arguments for "calculator": field "x": unknown field; allowed fields: expression`, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := tool.Invoke(context.Background(), calc, json.RawMessage(tt.args), tool.InvokeOptions{})
			if res.IsError != tt.wantErr || res.Content != tt.want {
				t.Errorf("result = %+v; want IsError %v and Content %q", res, tt.wantErr, tt.want)
			}
		})
	}
}

func TestTools(t *testing.T) {
	set, err := tool.NewSet(Tools(WithClock(clock))...)
	if err != nil {
		t.Fatalf("the built-in tools do not form a valid set: %v", err)
	}
	if diff := cmp.Diff([]string{"now", "calculator"}, set.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, sp := range set.Specs() {
		if sp.Effects.Mutating() || sp.Effects.ReadsFiles {
			t.Errorf("%s declares effects %+v; want none", sp.Name, sp.Effects)
		}
		if a := sp.Annotations; a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations %+v; want read-only, closed-world", sp.Name, a)
		}
		if sp.Description == "" {
			t.Errorf("%s has no description", sp.Name)
		}
		var schema map[string]any
		if err := json.Unmarshal(sp.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema %s is not an object schema", sp.Name, sp.InputSchema)
		}
	}
	calc, _ := set.Spec("calculator")
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(calc.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schema.Properties["expression"].Description, "sqrt") || len(schema.Required) != 1 {
		t.Errorf("calculator schema %s lacks a described, required expression", calc.InputSchema)
	}
}
