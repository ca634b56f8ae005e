package workspace

import (
	"slices"
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
	want := []string{"ghp_0123456789abcdef", "abcdefgh12", "postgres://u:pw1234@db/x", "https://u:hunter22@h/"}
	if !slices.Equal(got, want) {
		t.Errorf("CredentialEnv = %q, want %q", got, want)
	}
}
