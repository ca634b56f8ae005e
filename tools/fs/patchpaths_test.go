package fs

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPatchPaths(t *testing.T) {
	args := func(patch string) json.RawMessage {
		b, err := json.Marshal(ApplyPatchArgs{Patch: patch})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		args    json.RawMessage
		want    []string
		wantErr error
	}{
		{
			name: "modify and create",
			args: args("--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-a\n+b\n" +
				"--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+rm -rf ~\n"),
			want: []string{"main.go", ".git/hooks/pre-commit"},
		},
		{
			name: "rename names both sides once",
			args: args("diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n" +
				"diff --git a/new.txt b/new.txt\n--- a/new.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-x\n+y\n"),
			want: []string{"old.txt", "new.txt"},
		},
		{
			name: "delete",
			args: args("--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"),
			want: []string{"gone.txt"},
		},
		{name: "no patch", args: args("just some text\n"), wantErr: ErrNoPatch},
		{name: "not an object", args: json.RawMessage(`"--- a/x"`)},
		{name: "truncated json", args: json.RawMessage(`{"patch":"--- a/x`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PatchPaths(tt.args)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("PatchPaths = %q, want an error", got)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyPatchDeclaresPaths(t *testing.T) {
	spec := ApplyPatch(nil, Options{}).Spec()
	if spec.Effects.Paths == nil {
		t.Fatal("apply_patch does not declare Effects.Paths: path rules could not see its files")
	}
	got, err := spec.Effects.Paths(json.RawMessage(`{"patch":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}`))
	if err != nil || !cmp.Equal(got, []string{"x"}) {
		t.Errorf("Paths = %q, %v; want [x]", got, err)
	}
}

// FuzzPatchPaths feeds apply_patch arguments of any shape to the policy's
// path extraction: it never panics, and what it returns is a list of
// distinct, non-empty paths or an error, never both.
func FuzzPatchPaths(f *testing.F) {
	f.Add([]byte(`{"patch":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}`))
	f.Add([]byte(`{"patch":"diff --git a/a b/b\nrename from a\nrename to b\n"}`))
	f.Add([]byte(`{"patch":"--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n"}`))
	f.Add([]byte(`{"patch":""}`))
	f.Add([]byte(`{"patch":1}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, args []byte) {
		paths, err := PatchPaths(args)
		if err != nil {
			if paths != nil {
				t.Fatalf("PatchPaths returned %q with error %v", paths, err)
			}
			return
		}
		if len(paths) == 0 {
			t.Fatal("PatchPaths found a patch but no paths")
		}
		seen := map[string]bool{}
		for _, p := range paths {
			if p == "" || seen[p] {
				t.Fatalf("paths %q: empty or repeated entry", paths)
			}
			seen[p] = true
		}
	})
}
