package cli_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
)

// TestBinarySecretsByClassNeverLeak is the attack on the real binary
// with credentials of every class in its environment. A hostile model
// has commands print a workspace .env holding two of them in every
// encoding a tool prints — base64 wrapped at 76, openssl at 64, xxd -p at
// 60, od, Python's quote() and quote_plus(), JavaScript's
// encodeURIComponent — repeats them encoded in its arguments and in its
// answer (streamed in 7-byte deltas), and runs env. No secret can be recovered (by reading or by
// decoding) from stdout, stderr, the event log, sessions.db's bytes,
// `rein sessions show` or a diverging `rein replay`; and the credentials
// only the environment holds (DB_PASS, SMTP_PASS, GITLAB_PAT, CI_JOB_JWT,
// DISCORD_WEBHOOK_URL, DATABASE_URL) never reach the sandbox or the
// model.
func TestBinarySecretsByClassNeverLeak(t *testing.T) {
	secrets := map[string]string{
		"AWS_SECRET_ACCESS_KEY": "wJalrXUtnF/K7MDENG+bPxRfiCY4q2Z9s8pLmNo",
		"MY_APP_DB_PASSWORD":    "p@ss w0rd:&/ with?odd=chars",
	}
	envOnly := map[string]string{
		"DB_PASS":             "dbpass-7Hq2mZ9xK4pW",
		"SMTP_PASS":           "smtp-Zq8x2Lw9Vn4Bc",
		"GITLAB_PAT":          "glpat-aB3dE5fG7hJ9kL1mN",
		"CI_JOB_JWT":          "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.c2lnbmF0dXJl",
		"DISCORD_WEBHOOK_URL": "https://discord.com/api/webhooks/1234/whk-Xy7Zq2Lm9",
		"DATABASE_URL":        "postgres://app:pgpw-Mn4Bv8Cx2@db.internal:5432/prod",
	}
	e := newEnv(t)
	var dotenv strings.Builder
	for k, v := range secrets {
		e.vars[k] = v
		dotenv.WriteString(k + "=" + v + "\n")
	}
	for k, v := range envOnly {
		e.vars[k] = v
	}
	writeFiles(t, e.workspace, map[string]string{".env": dotenv.String()})
	key := secrets["AWS_SECRET_ACCESS_KEY"]
	wrapped := wrapEvery(base64.StdEncoding.EncodeToString([]byte("KEY="+key+"\n")), 76)
	cmds := []string{
		"base64 .env", "openssl base64 -in .env", "xxd -p .env", "od -An -tx1 .env", "env",
		`python3 -c "import urllib.parse;print(urllib.parse.quote(open('.env').read()))"`,
		`python3 -c "import urllib.parse;print(urllib.parse.quote_plus(open('.env').read()))"`,
		`node -e "console.log(encodeURIComponent(require('fs').readFileSync('.env','utf8')))"`,
		"echo " + hex.EncodeToString([]byte(key)) + " " + url.QueryEscape(secrets["MY_APP_DB_PASSWORD"]),
	}
	var steps []modeltest.Step
	for i, c := range cmds {
		b, _ := json.Marshal(map[string]string{"command": c})
		steps = append(steps, sse(toolBody("c"+string(rune('a'+i)), "run_command", string(b))))
	}
	// The answer streams in 7-byte deltas, so every secret in it is split
	// between deltas (and the base64 over lines).
	answer := "Here is the key, encoded:\n" + wrapped + "\nand the password " + url.PathEscape(secrets["MY_APP_DB_PASSWORD"]) + " and " + key
	var pieces []string
	for len(answer) > 7 {
		pieces, answer = append(pieces, answer[:7]), answer[7:]
	}
	steps = append(steps, sse(textBody(append(pieces, answer)...)))
	srv := modeltest.NewServer(t, steps...)
	stateDir := filepath.Join(e.home, "state")
	p := e.start(t, "run", "--preset", "full", "--approve", "auto", "--state-dir", stateDir, "-e", srv.URL, "print the env file")
	p.stdin.Close()
	if code := p.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != len(steps) {
		t.Fatalf("%d model requests, want %d", len(reqs), len(steps))
	}
	last := string(reqs[len(reqs)-1].Body)
	// The model did see the file, encoded: redaction is of what rein
	// prints and stores.
	if !strings.Contains(last, hex.EncodeToString([]byte("AWS_SECRET"))) {
		t.Fatal("the model was not given xxd's output; the test lost its point")
	}
	for name, v := range envOnly {
		for _, r := range reqs {
			if where := recoverableFrom(string(r.Body), v); where != "" || strings.Contains(string(r.Body), name+"=") {
				t.Fatalf("%s reached the model (%s)", name, where)
			}
		}
	}
	all := map[string]string{}
	for k, v := range secrets {
		all[k] = v
	}
	for k, v := range envOnly {
		all[k] = v
	}
	check := func(where, text string) {
		t.Helper()
		for name, v := range all {
			if how := recoverableFrom(text, v); how != "" {
				t.Errorf("%s: %s recovers %s", where, how, name)
			}
		}
	}
	check("stdout", p.stdout.String())
	check("stderr", p.stderr.String())
	files := 0
	filepath.WalkDir(stateDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(path)
		files++
		check(path, string(data))
		return nil
	})
	if files < 2 {
		t.Errorf("%d files in the state directory; want the database and the log", files)
	}

	list := e.start(t, "sessions", "list", "--state-dir", stateDir)
	list.stdin.Close()
	list.wait(t, 30*time.Second)
	check("sessions list", list.stdout.String()+list.stderr.String())
	id := regexp.MustCompile(`(?m)^(\S+)\s+\d{4}-`).FindStringSubmatch(list.stdout.String())
	if id == nil {
		t.Fatalf("sessions list printed no session:\n%s%s", list.stdout, list.stderr)
	}
	show := e.start(t, "sessions", "show", "--state-dir", stateDir, id[1])
	show.stdin.Close()
	if code := show.wait(t, 30*time.Second); code != 0 || !strings.Contains(show.stdout.String(), "[REDACTED]") {
		t.Fatalf("sessions show: exit %d\n%s%s", code, show.stdout, show.stderr)
	}
	check("sessions show", show.stdout.String()+show.stderr.String())
	// Rewritten in another order, .env makes the replayed results differ
	// from the recorded ones, so replay prints a diff of both.
	lines := strings.SplitAfter(dotenv.String(), "\n")
	writeFiles(t, e.workspace, map[string]string{".env": "X=1\n" + lines[1] + lines[0]})
	rep := e.start(t, "replay", "--state-dir", stateDir, id[1])
	rep.stdin.Close()
	if code := rep.wait(t, 90*time.Second); code != 1 || !strings.Contains(rep.stdout.String(), "diverged") {
		t.Fatalf("replay: exit %d, want a divergence\n%s%s", code, rep.stdout, rep.stderr)
	}
	check("replay", rep.stdout.String()+rep.stderr.String())
}

func wrapEvery(s string, width int) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + "\n")
		s = s[width:]
	}
	return b.String() + s
}

// recoverableFrom says how text still yields secret — read as it is,
// base64-decoded at any alignment, hex-decoded or URL-unescaped, with
// whitespace (and JSON's \n escapes) taken out — or "" when it does not.
func recoverableFrom(text, secret string) string {
	flat := strings.NewReplacer(" ", "", "\n", "", "\r", "", "\t", "", `\n`, "", `\r`, "", `\t`, "").Replace(text)
	want := strings.ReplaceAll(secret, " ", "")
	if strings.Contains(flat, want) {
		return "reading"
	}
	for _, run := range regexp.MustCompile(`[A-Za-z0-9+/_-]{8,}`).FindAllString(flat, -1) {
		std := strings.NewReplacer("-", "+", "_", "/").Replace(run)
		for o := 0; o < 4 && o < len(std); o++ {
			part := std[o:]
			if d, err := base64.StdEncoding.DecodeString(part[:len(part)/4*4]); err == nil && strings.Contains(string(d), secret) {
				return "base64-decoding"
			}
		}
	}
	for _, run := range regexp.MustCompile(`[0-9a-fA-F]{8,}`).FindAllString(flat, -1) {
		for o := 0; o < 2; o++ {
			part := run[o:]
			if d, err := hex.DecodeString(part[:len(part)/2*2]); err == nil && strings.Contains(string(d), secret) {
				return "hex-decoding"
			}
		}
	}
	for _, unescape := range []func(string) (string, error){url.QueryUnescape, url.PathUnescape} {
		for _, piece := range strings.Fields(strings.NewReplacer(`"`, " ", "'", " ", ",", " ", "\\", " ").Replace(text)) {
			if d, err := unescape(piece); err == nil && d != piece && strings.Contains(strings.ReplaceAll(d, " ", ""), want) {
				return "URL-unescaping"
			}
		}
	}
	return ""
}

// TestBinarySessionsShowRedactsOldRecordings: a session recorded while a
// credential was not known (by an older rein, or with another
// environment) holds it raw; `rein sessions show` with the credential in
// its environment does not print it.
func TestBinarySessionsShowRedactsOldRecordings(t *testing.T) {
	const pass = "old-dbpass-Zq8x2Lw9Vn4Bc"
	e := newEnv(t)
	stateDir := filepath.Join(e.home, "state")
	ctx := context.Background()
	store, err := session.Open(ctx, session.Config{Path: filepath.Join(stateDir, session.DatabaseFile)})
	if err != nil {
		t.Fatal(err)
	}
	info, err := store.Create(ctx, session.Info{Workspace: e.workspace})
	if err != nil {
		t.Fatal(err)
	}
	j, err := store.Journal(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	user := model.UserText("connect with " + pass)
	answer := model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Text: "I used " + base64.StdEncoding.EncodeToString([]byte("DB_PASS="+pass))}}}
	for _, ev := range []agent.Event{{Type: agent.EventSessionStarted}, {Type: agent.EventMessage, Message: &user}, {Type: agent.EventMessage, Message: &answer}} {
		ev.RunID = info.ID
		if err := j.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	store.Close()
	if data, _ := os.ReadFile(filepath.Join(stateDir, session.DatabaseFile)); !strings.Contains(string(data), pass) {
		t.Fatal("the recording does not hold the password raw; the test lost its point")
	}
	e.vars["DB_PASS"] = pass
	show := e.start(t, "sessions", "show", "--state-dir", stateDir, info.ID)
	show.stdin.Close()
	if code := show.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("sessions show: exit %d\n%s%s", code, show.stdout, show.stderr)
	}
	if how := recoverableFrom(show.stdout.String(), pass); how != "" || !strings.Contains(show.stdout.String(), "[REDACTED]") {
		t.Errorf("sessions show: %s recovers the password:\n%s", how, show.stdout)
	}
}
