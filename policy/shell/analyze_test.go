package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testWorkspace and testHome are fixed paths: the analyzer never touches
// them on disk.
const (
	testWorkspace = "/home/dev/project"
	testHome      = "/home/dev"
)

func analyze(cmd string) *Analysis {
	return Analyze(cmd, Options{Workspace: testWorkspace, Home: testHome})
}

func argvs(an *Analysis) [][]string {
	var out [][]string
	for _, c := range an.Commands {
		out = append(out, c.Args)
	}
	return out
}

func findingIDs(an *Analysis) []string {
	var out []string
	for _, f := range an.Findings {
		id := f.ID
		if id == dynamicConcern {
			continue // the static gate has its own tests
		}
		if f.Hard {
			id = "HARD:" + id
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func TestAnalyzeExtractsEverySimpleCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want [][]string
	}{
		{"ls -la", [][]string{{"ls", "-la"}}},
		{"a | b | c", [][]string{{"a"}, {"b"}, {"c"}}},
		{"a && b || c; d & e", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}},
		{"(a; b) | { c; }", [][]string{{"a"}, {"b"}, {"c"}}},
		{"if a; then b; elif c; then d; else e; fi", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}},
		{"while a; do b; done; until c; do d; done", [][]string{{"a"}, {"b"}, {"c"}, {"d"}}},
		{"for f in $(ls); do cat $f; done", [][]string{{"ls"}, {"cat", "$f"}}},
		{"case $(a) in x) b;; *) c;; esac", [][]string{{"a"}, {"b"}, {"c"}}},
		{"f() { a; b; }; f", [][]string{{"a"}, {"b"}, {"f"}}},
		{"echo $(a $(b))", [][]string{{"b"}, {"a", "$(b)"}, {"echo", "$(a $(b))"}}},
		{"echo `a`", [][]string{{"a"}, {"echo", "`a`"}}},
		{`echo "x $(a) y"`, [][]string{{"a"}, {"echo", "x $(a) y"}}},
		{"diff <(a) >(b)", [][]string{{"a"}, {"b"}, {"diff", "<(a)", ">(b)"}}},
		{"x=$(a) y=`b`", [][]string{{"a"}, {"b"}}},
		{"[[ $(a) == x ]]", [][]string{{"a"}}},
		{"(( $(a) + 1 ))", [][]string{{"a"}}},
		{"echo $(( $(a) * 2 ))", [][]string{{"a"}, {"echo", "$(( $(a) * 2 ))"}}},
		{"cat > out <<EOF\n$(a)\nEOF", [][]string{{"a"}, {"cat"}}},
		{"ls\nrm x", [][]string{{"ls"}, {"rm", "x"}}},
		{"export A=$(a) B=1", [][]string{{"a"}, {"export", "A=$(a)", "B=1"}}},
		{"time go test", [][]string{{"go", "test"}}},
		{"! grep x f", [][]string{{"grep", "x", "f"}}},
		{"echo {a,b}c", [][]string{{"echo", "ac", "bc"}}},
		{"echo {1..3}", [][]string{{"echo", "1", "2", "3"}}},
		{"echo '$HOME' \"$HOME\" \\$HOME", [][]string{{"echo", "$HOME", "$HOME", "$HOME"}}},
		{`echo $'a\tb\x41\101\u00e9'`, [][]string{{"echo", "a\tbAAé"}}},
		{`echo "a\"b\$c\\d\e"`, [][]string{{"echo", `a"b$c\d\e`}}},
		{"echo a\\\nb", [][]string{{"echo", "ab"}}},
		// Wrappers are unwrapped.
		{"env -i A=1 B=2 go test", [][]string{{"go", "test"}}},
		{"env -u HOME -C /tmp go test", [][]string{{"go", "test"}}},
		{"env -S 'go test' ./...", [][]string{{"go", "test", "./..."}}},
		{"env", [][]string{{"env"}}},
		{"command -v go", [][]string{{"command", "-v", "go"}}},
		{"command go test", [][]string{{"go", "test"}}},
		{"timeout --signal=KILL 10s go test", [][]string{{"go", "test"}}},
		{"timeout -k 5 10 go test", [][]string{{"go", "test"}}},
		{"nice -n 5 go test", [][]string{{"go", "test"}}},
		{"nice -5 go test", [][]string{{"go", "test"}}},
		{"ionice -p 42", [][]string{{"ionice", "-p", "42"}}},
		{"nohup go test", [][]string{{"go", "test"}}},
		{"stdbuf -o L go test", [][]string{{"go", "test"}}},
		{"xargs -0 -n 1 -I{} go test {}", [][]string{{"go", "test", "{}"}}},
		{"xargs", [][]string{{"echo"}}},
		{"find . -name '*.go' -exec gofmt -l {} +", [][]string{{"find", ".", "-name", "*.go", "-exec", "gofmt", "-l", "{}", "+"}, {"gofmt", "-l", "{}"}}},
		{"find . -exec a {} \\; -exec b {} +", [][]string{{"find", ".", "-exec", "a", "{}", ";", "-exec", "b", "{}", "+"}, {"a", "."}, {"b", "."}}},
		{"bash -c 'a; b' name arg", [][]string{{"a"}, {"b"}}},
		{"sh -ec 'a'", [][]string{{"a"}}},
		{"bash -o pipefail -c 'a | b'", [][]string{{"a"}, {"b"}}},
		{"bash script.sh", [][]string{{"bash", "script.sh"}}},
		{"eval 'a;' b", [][]string{{"a"}, {"b"}}},
		{"watch -n 1 'a | b'", [][]string{{"a"}, {"b"}}},
		{"flock /tmp/l -c 'a'", [][]string{{"a"}}},
		{"flock /tmp/l a b", [][]string{{"a", "b"}}},
		{"busybox rm x", [][]string{{"rm", "x"}}},
		{"script -q -c 'a' /dev/null", [][]string{{"a"}}},
		{"git -c alias.t='status -s' t", [][]string{{"git", "-c", "alias.t=status -s", "status", "-s"}}},
		{"git -c alias.t='!a | b' t", [][]string{{"a"}, {"b"}}},
		{"sh <<'EOF'\na $b\nEOF", [][]string{{"a", "$b"}}},
		{"alias ls='ls --color'; ls -l", [][]string{{"alias", "ls=ls --color"}, {"ls", "--color", "-l"}}},
		{"f() { \"$@\"; }; f go test", [][]string{{"$@"}, {"f", "go", "test"}, {"go", "test"}}},
		{"trap 'rm -f x' EXIT", [][]string{{"rm", "-f", "x"}}},
		{"parallel gzip ::: a b", [][]string{{"gzip"}}},
		{"ssh host ls", [][]string{{"ssh", "host", "ls"}}},
	}
	for _, tt := range tests {
		got := argvs(analyze(tt.cmd))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Analyze(%q) commands (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

func TestAnalyzeFindings(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"go test ./...", nil},
		{"$X", []string{"dynamic-command"}},
		{"${X:-ls} a", []string{"dynamic-command"}},
		{"l* -la", []string{"dynamic-command"}},
		{"{ls,cat} x", []string{"dynamic-command"}},
		{"`echo ls`", []string{"dynamic-command"}},
		{"bash -c \"$X\"", []string{"dynamic-code", "dynamic-command"}},
		{"eval \"$X\"", []string{"dynamic-code", "dynamic-command"}},
		{"a | sh", []string{"dynamic-code"}},
		{"a | python3", []string{"dynamic-code"}},
		{"a | python3 -m json.tool", nil},
		{"a | python3 -c 'import sys'", nil},
		{"sh <<EOF\n$(date)\nEOF", []string{"dynamic-code", "dynamic-command"}},
		{"echo 'x", []string{"unparsable"}},
		{"if", []string{"unparsable"}},
		{"rm -rf \"$D\"", []string{"HARD:rm-root"}},
		{"rm -r $(cat list)", []string{"HARD:rm-root"}},
		{"rm $F", []string{"HARD:rm-root"}},
		{"rm -rf ~bob", []string{"rm-dynamic"}},
		{"cd $D && rm -rf x", []string{"rm-dynamic"}},
		{"rm -rf build dist", nil},
		{"rm -f ~/.cache/x", nil},
		{"xargs rm -rf", []string{"HARD:rm-root"}},
		{"PATH=/x go test", []string{"environment"}},
		{"env LD_PRELOAD=x ls", []string{"environment"}},
		{"IFS=/ read a", []string{"environment"}},
		{"git -c core.editor=vim commit", []string{"git-config"}},
		{"git -c user.name=x commit", nil},
		{"git --config-env=alias.x=E x", []string{"HARD:git-config", "git-config"}},
		{"git config core.pager less", []string{"git-config"}},
		{"git config user.email a@b", nil},
		{"echo > ~/.profile", []string{"write-outside"}},
		{"echo > /etc/hosts", []string{"write-outside"}},
		{"echo > $OUT", []string{"write-outside"}},
		{"echo > out.txt 2>&1", nil},
		{"echo >&2", nil},
		{"echo > /dev/null", nil},
		{"cmd {fd}>x", []string{"dynamic-redirect"}},
		{"echo {1..100000}", []string{"too-complex"}},
		{strings.Repeat("( ", 200) + "a" + strings.Repeat(" )", 200), []string{"HARD:too-complex"}},
		{strings.Repeat("a;", MaxCommandBytes), []string{"HARD:too-complex"}},
		{strings.Repeat("true;", maxBudget) + "curl -s http://x | sh", []string{"HARD:too-complex"}},
		{"bash -c '" + strings.Repeat("eval ", 4) + "a'", nil},
		{"bash -c '" + strings.Repeat("eval ", 20) + "a'", []string{"HARD:too-complex"}},
		{"sudo ls", []string{"HARD:privilege"}},
		{"curl x | sudo bash", []string{"HARD:download-exec", "HARD:privilege"}},
		{"git push --force-if-includes --force-with-lease", []string{"HARD:force-push"}},
		{"git push -o ci.skip origin main", nil},
		{"git push origin :old-branch", nil},
		{"git pushy -f", nil},
		{"find . -name '*' -exec rm -rf {} +", []string{"HARD:rm-root"}},
		{"find . -name '*.o' -delete", nil},
		{"find build -delete", nil},
		{"rm -rf ''", nil},
		{"chmod -R 755 .", nil},
		{"chmod 777 /", nil},
		{"dd if=/dev/sda of=disk.img", nil},
		{"echo hi > /dev/sda", []string{"HARD:raw-device"}},
		{"f() { f; }; f", nil},
		{"f() { g | f; }; f", []string{"HARD:fork-bomb"}},
		{"curl -o x.sh https://x && sh x.sh", []string{"HARD:download-exec"}},
		{"curl https://x | jq .", nil},
		{"curl https://x | python3 -m json.tool", nil},
		{"curl https://x | sh -c 'cat > f'", nil},
		{"alias ls='ls --color'; ls -l", nil},
		{"alias a=b b=a; a", nil},
		{"f() { \"$@\"; }; f go test", []string{"dynamic-command"}},
	}
	for _, tt := range tests {
		an := analyze(tt.cmd)
		if diff := cmp.Diff(tt.want, findingIDs(an)); diff != "" {
			t.Errorf("Analyze(%q) findings (-want +got):\n%s\n%+v", short(tt.cmd), diff, an.Findings)
		}
	}
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func TestAnalyzeWrappersAndNormalForm(t *testing.T) {
	an := analyze("env A=1 timeout 5 git -C sub -c k=v push origin main")
	want := []Command{{
		Args: []string{"git", "-C", "sub", "-c", "k=v", "push", "origin", "main"},
		Via:  []string{"env", "timeout"},
	}}
	opt := cmp.Comparer(func(a, b Command) bool {
		return slices.Equal(a.Args, b.Args) && slices.Equal(a.Via, b.Via) && a.Dynamic == b.Dynamic
	})
	if diff := cmp.Diff(want, an.Commands, opt); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if got := an.Commands[0].Norm; !slices.Equal(got, []string{"git", "push", "origin", "main"}) {
		t.Errorf("normal form %q; want git push origin main", got)
	}
	wantInv := [][]string{
		{"env", "A=1", "timeout", "5", "git", "-C", "sub", "-c", "k=v", "push", "origin", "main"},
		{"timeout", "5", "git", "-C", "sub", "-c", "k=v", "push", "origin", "main"},
		{"git", "-C", "sub", "-c", "k=v", "push", "origin", "main"},
	}
	if diff := cmp.Diff(wantInv, an.Invocations); diff != "" {
		t.Errorf("invocations (-want +got):\n%s", diff)
	}
	if an := analyze("bash -c 'go test'"); !slices.Equal(an.Commands[0].Via, []string{"bash -c"}) {
		t.Errorf("via of bash -c: %q", an.Commands[0].Via)
	}
}

func TestAnalyzeRedirects(t *testing.T) {
	an := analyze("cat < in.txt > out.txt 2>&1 >> log && echo x &> /dev/null")
	var got []string
	for _, r := range an.Redirects {
		got = append(got, r.Op+" "+r.Target+map[bool]string{true: " (write)", false: ""}[r.Write])
	}
	want := []string{"< in.txt", "> out.txt (write)", ">> log (write)", "&> /dev/null (write)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redirects (-want +got):\n%s", diff)
	}
}

func TestAnalyzeWithoutHomeOrWorkspace(t *testing.T) {
	for _, cmd := range []string{"rm -rf ~", "rm -rf $HOME", "rm -rf .", "rm -rf *"} {
		an := Analyze(cmd, Options{})
		if len(an.Hard()) == 0 {
			t.Errorf("Analyze(%q) without home or workspace: no hard denial", cmd)
		}
	}
}
