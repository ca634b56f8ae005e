package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJoinResumeIDs: the word after -r/--resume becomes its value unless
// it is a flag or holds a space; values of other flags and everything
// after "--" are never taken for it.
func TestJoinResumeIDs(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"-r"}, []string{"-r"}},
		{[]string{"-r", "s1f"}, []string{"--resume=s1f"}},
		{[]string{"--resume", "s1f", "do it"}, []string{"--resume=s1f", "do it"}},
		{[]string{"-r", "do it now"}, []string{"-r", "do it now"}},
		{[]string{"-r", "-p", "hi"}, []string{"-r", "-p", "hi"}},
		{[]string{"-r=s1f", "hi"}, []string{"-r=s1f", "hi"}},
		{[]string{"-m", "-r", "x"}, []string{"-m", "-r", "x"}},
		{[]string{"--system", "-r", "x"}, []string{"--system", "-r", "x"}},
		{[]string{"--", "-r", "s1f"}, []string{"--", "-r", "s1f"}},
		{[]string{"run", "-r", "s1f", "hi"}, []string{"run", "--resume=s1f", "hi"}},
		{[]string{"chat", "--resume", "s1f"}, []string{"chat", "--resume=s1f"}},
		{[]string{"sessions", "-r", "x"}, []string{"sessions", "-r", "x"}},
	}
	a := &App{}
	a.defaults()
	for _, tt := range tests {
		got := joinResumeIDs(a.rootCommand(), tt.args)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("joinResumeIDs(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}

// FuzzJoinResumeIDs: the rewrite only ever joins "-r"/"--resume" with
// the next argument, keeps everything after "--" as it is, and a second
// pass changes nothing.
func FuzzJoinResumeIDs(f *testing.F) {
	f.Add("-r\x00s1f\x00hi")
	f.Add("run\x00--resume\x00x\x00--\x00-r\x00y")
	f.Add("-m\x00-r\x00--resume")
	a := &App{}
	a.defaults()
	root := a.rootCommand()
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		if len(args) > 32 {
			return
		}
		got := joinResumeIDs(root, args)
		if again := joinResumeIDs(root, got); !slices.Equal(got, again) {
			t.Fatalf("not idempotent: %q -> %q -> %q", args, got, again)
		}
		var undone []string
		for _, g := range got {
			if v, ok := strings.CutPrefix(g, "--resume="); ok && !slices.Contains(args, g) {
				undone = append(undone, "--resume", v)
				continue
			}
			undone = append(undone, g)
		}
		// Undoing the joins gives the input back, up to the spelling of
		// the flag (-r or --resume).
		norm := func(s []string) []string {
			out := slices.Clone(s)
			for i := range out {
				if out[i] == "-r" {
					out[i] = "--resume"
				}
			}
			return out
		}
		if len(undone) != len(args) || (!slices.Equal(norm(undone), norm(args))) {
			t.Fatalf("%q -> %q does not undo to the input", args, got)
		}
		if i := slices.Index(args, "--"); i >= 0 {
			j := slices.Index(got, "--")
			if j < 0 || !slices.Equal(args[i:], got[j:]) {
				t.Fatalf("after --: %q -> %q", args, got)
			}
		}
	})
}
