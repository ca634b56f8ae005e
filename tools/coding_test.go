package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/tool"
	"github.com/reinharness/rein/workspace"
)

func TestCoding(t *testing.T) {
	ws, err := workspace.Open(t.TempDir(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ts := Coding(ws, Options{})
	set, err := tool.NewSet(ts...)
	if err != nil {
		t.Fatalf("the toolset does not form a valid set: %v", err)
	}
	want := []string{"read_file", "list_dir", "glob", "grep", "git_status", "git_diff",
		"write_file", "edit_file", "apply_patch", "run_command"}
	var got []string
	for _, tl := range ts {
		got = append(got, tl.Spec().Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if set.Len() != len(want) {
		t.Errorf("set holds %d tools", set.Len())
	}
	// Every tool declares what it touches; only run_command executes.
	for _, tl := range ts {
		e := tl.Spec().Effects
		if !e.ReadsFiles && !e.WritesFiles && !e.Exec {
			t.Errorf("%s declares no effects", tl.Spec().Name)
		}
		if e.Exec != (tl.Spec().Name == "run_command") {
			t.Errorf("%s: Exec = %v", tl.Spec().Name, e.Exec)
		}
	}
}
