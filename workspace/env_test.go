package workspace

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrubEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "TERM=xterm",
		"OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=sk-2", "REIN_API_KEY=r",
		"GITHUB_TOKEN=ghp", "GH_TOKEN=gh", "AWS_ACCESS_KEY_ID=A", "AWS_PROFILE=prod",
		"AWS_SECRET_ACCESS_KEY=s", "my_password=p", "DB_PASSWD=p", "NPM_CONFIG__AUTH=x",
		"SSH_AUTH_SOCK=/tmp/agent", "SESSION_COOKIE=c", "KUBECONFIG=/k", "DATABASE_URL=postgres://x",
		"GOOGLE_APPLICATION_CREDENTIALS=/c.json", "HF_TOKEN=h",
		"UPSTREAM=https://user:pw@example.com/repo", "MIRROR=https://example.com/repo",
		"GOFLAGS=-mod=mod", "EDITOR=vi", "KEEP_ME_TOKEN=ok", "novalue", "=bad", "DUP=1", "DUP=2",
		"BASH_FUNC_ls%%=() { echo x; }", "SHELLOPTS=xtrace", "PS4=$(id)", "OLDPWD=/", "IFS=x",
		"LD_PRELOAD=/x.so",
	}
	want := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "TERM=xterm",
		"MIRROR=https://example.com/repo", "GOFLAGS=-mod=mod", "EDITOR=vi",
		"KEEP_ME_TOKEN=ok", "DUP=2",
	}
	got := ScrubEnv(in, []string{"KEEP_ME_TOKEN"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ScrubEnv (-want +got):\n%s", diff)
	}
}

func TestCredentialEnv(t *testing.T) {
	env := []string{
		"GITHUB_TOKEN=ghp_0123456789abcdef", "MY_API_KEY=abcdefgh12", "DB_PASSWORD=short", // too short
		"DATABASE_URL=postgres://u:pw1234@db/x", "PLAIN=https://u:hunter22@h/", "AWS_REGION=us-east-1",
		"REIN_MODEL=claude-sonnet-4", "SSH_AUTH_SOCK=/run/user/1000/keyring/ssh", "HOME=/home/someone",
		"PATH=/usr/bin:/bin", "TOKEN_FILE=/etc/rein/token", "DUP_TOKEN=ghp_0123456789abcdef",
	}
	got := CredentialEnv(env, 8)
	want := []string{"ghp_0123456789abcdef", "abcdefgh12", "postgres://u:pw1234@db/x", "https://u:hunter22@h/", "hunter22"}
	if !slices.Equal(got, want) {
		t.Errorf("CredentialEnv = %q, want %q", got, want)
	}
}

// credentialClasses are the name classes ScrubEnv drops, each with the
// prefixes and suffixes real names put around it.
var credentialClasses = []string{
	"PASS", "PASSWORD", "PASSWD", "PAT", "JWT", "WEBHOOK", "KEY", "API_KEY", "APIKEY", "TOKEN",
	"SECRET", "CREDENTIAL", "CREDENTIALS", "AUTH", "OAUTH", "AUTHORIZATION", "DSN", "PWD", "PW",
	"COOKIE", "SESSION", "PRIVATE", "PASSCODE", "ACCESS_KEY", "SSHKEY",
}

// TestScrubEnvByClass generates credential variable names (every class,
// with prefixes, suffixes and in lower case) and checks that ScrubEnv
// drops each and CredentialEnv registers its value; known harmless names
// that match a class word stay, and are not registered.
func TestScrubEnvByClass(t *testing.T) {
	prefixes := []string{"", "DB_", "SMTP_", "GITLAB_", "CI_JOB_", "DISCORD_", "MY_APP_", "X"}
	suffixes := []string{"", "_URL", "_2", "_VALUE", "_ID"}
	var env, names []string
	for i, class := range credentialClasses {
		for _, p := range prefixes {
			for _, s := range suffixes {
				name := p + class + s
				if p == "X" && s == "" || name == "PWD" {
					continue // XPAT is a word, PWD the working directory
				}
				if p == "X" {
					name = "X_" + class + s
				}
				if i%2 == 1 {
					name = strings.ToLower(name)
				}
				names = append(names, name)
				env = append(env, fmt.Sprintf("%s=v4lue-%s-%d", name, class, len(env)))
			}
		}
	}
	harmless := []string{
		"KEYBOARD=us", "KEYBOARD_LAYOUT=de", "XKB_DEFAULT_LAYOUT=fr", "XDG_SESSION_ID=c2", "XDG_SESSION_TYPE=wayland",
		"TERM_SESSION_ID=w0t0p0:1234abcd-0000", "DESKTOP_SESSION=ubuntu", "TOKENIZERS_PARALLELISM=false",
		"GIT_AUTHOR_NAME=Ann Author", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_COMMITTER_NAME=Ann",
		"PAGER=less", "CI=true", "GITHUB_ACTIONS=true", "PATHEXT=.COM", "MONKEYS_PATCHED=1",
		"MIRROR=https://example.com/x", "PWD=/w",
	}
	got := ScrubEnv(append(slices.Clone(env), harmless...), nil)
	if diff := cmp.Diff(harmless, got); diff != "" {
		t.Errorf("ScrubEnv kept (-want +got):\n%s", diff)
	}
	reg := CredentialEnv(append(slices.Clone(env), harmless...), 8)
	for _, kv := range env {
		if _, v, _ := strings.Cut(kv, "="); !slices.Contains(reg, v) {
			t.Errorf("CredentialEnv does not register %s", kv)
		}
	}
	for _, kv := range harmless {
		if _, v, _ := strings.Cut(kv, "="); slices.Contains(reg, v) {
			t.Errorf("CredentialEnv registers the harmless %s", kv)
		}
	}
	t.Logf("%d credential names", len(names))
}

// TestScrubEnvByValue drops variables whatever their name when the
// value is a credential: a URL with a password, a bearer token, a key of
// a known format, and registers them.
func TestScrubEnvByValue(t *testing.T) {
	env := []string{
		"UPSTREAM=postgres://app:s3cretpw@db:5432/x", "MIRROR=https://u:hunter22@h/", "HDR=Bearer abcdefghijklmnop",
		"OPENAI=sk-proj-abcdefghijklmnop", "GHX=ghp_abcdefghijklmnopqrstuvwxyz0123", "AKID=AKIAABCDEFGHIJKLMNOP",
		"CONN=redis://:p4ssw0rd99@cache:6379/0",
	}
	if got := ScrubEnv(env, nil); len(got) != 0 {
		t.Errorf("ScrubEnv kept %q", got)
	}
	reg := CredentialEnv(env, 8)
	for _, want := range []string{"s3cretpw", "hunter22", "p4ssw0rd99", "sk-proj-abcdefghijklmnop"} {
		if !slices.Contains(reg, want) {
			t.Errorf("CredentialEnv = %q, missing %q", reg, want)
		}
	}
}

// FuzzScrubEnv: whatever the entries, ScrubEnv keeps only entries it was
// given, never one whose name is of a credential class (unless allowed
// or known harmless) or whose value is a URL with a password, and
// CredentialEnv returns only values (or URL passwords) it was given.
func FuzzScrubEnv(f *testing.F) {
	f.Add("DB_PASS=hunter2hunter2\nKEYBOARD=us\nPATH=/bin", "")
	f.Add("GITLAB_PAT=glpat-1234567890\nx=postgres://u:p4ssw0rd@h/db", "GITLAB_PAT")
	f.Add("CI_JOB_JWT=a.b.c\nGIT_AUTHOR_NAME=A\nA_AUTH_B=1", "")
	f.Fuzz(func(t *testing.T, entries, allow string) {
		env := strings.Split(entries, "\n")
		got := ScrubEnv(env, []string{allow})
		for _, kv := range got {
			if !slices.Contains(env, kv) {
				t.Fatalf("ScrubEnv made up %q", kv)
			}
			name, value, _ := strings.Cut(kv, "=")
			up := strings.ToUpper(name)
			if name == allow || slices.Contains(safeNames, up) {
				continue
			}
			if secretName(up) && !harmlessName(up) || hasURLPassword(value) {
				t.Fatalf("ScrubEnv kept the credential %q", kv)
			}
		}
		var passwords []string
		for _, kv := range env {
			_, value, _ := strings.Cut(kv, "=")
			passwords = append(passwords, urlPassword(strings.TrimSpace(value)))
		}
		for _, v := range CredentialEnv(env, 1) {
			if !strings.Contains(entries, v) && !slices.Contains(passwords, v) {
				t.Fatalf("CredentialEnv made up %q", v)
			}
		}
	})
}
