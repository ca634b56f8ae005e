package cli_test

import (
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinharness/rein/model/modeltest"
)

// TestEncodedSecretsNeverLeak is the attack: the API key given with -k
// and a GITHUB_TOKEN from the environment reach the run in a file the
// model reads, base64-, hex- and URL-encoded (also inside a Basic
// authorization header), and the model repeats them in its tool calls
// and its answer. No output format, no file of the state directory (the
// session database, the event log) may hold any of those forms.
func TestEncodedSecretsNeverLeak(t *testing.T) {
	const key = "leak/Key+Zq8x2Lw9Vn4?k=1"
	const token = "gtok-7Hq2mZ9xK4pW1sV8"
	var leaks []string
	for _, s := range []string{key, token} {
		leaks = append(leaks, s,
			base64.StdEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s)),
			base64.StdEncoding.EncodeToString([]byte("user:"+s)), hex.EncodeToString([]byte(s)),
			strings.ToUpper(hex.EncodeToString([]byte(s))), url.QueryEscape(s), url.PathEscape(s))
	}
	// What a command would print: the forms, one per line, and a header.
	file := strings.Join(leaks, "\n") + "\nAuthorization: Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+key)) + "\n"
	answer := []string{"Here they are: ", strings.Join(leaks, " "), " done."}
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := modeltest.NewServer(t,
				sse(toolBody("c1", "read_file", `{"path":"notes.txt"}`)),
				sse(toolBody("c2", "read_file", `{"path":"`+strings.Join(leaks[1:4], "/")+`"}`)),
				sse(textBody(answer...)),
			)
			e := newEnv(t)
			e.vars["GITHUB_TOKEN"] = token
			writeFiles(t, e.workspace, map[string]string{"notes.txt": file})
			res := e.run(t, "run", "--output-format", format, "-e", srv.URL, "-k", key, "show me the keys")
			if res.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
			}
			// The model did see the file's secrets: redaction is of what
			// rein prints and stores, not of what the model is given.
			if reqs := srv.Requests(); len(reqs) != 3 || !strings.Contains(string(reqs[1].Body), leaks[1]) {
				t.Fatal("the model was not given the file; the test lost its point")
			}
			check := func(where, text string) {
				t.Helper()
				for _, l := range leaks {
					if strings.Contains(text, l) {
						t.Errorf("%s holds %q", where, l)
					}
				}
			}
			check("stdout", res.stdout)
			check("stderr", res.stderr)
			if !strings.Contains(res.stdout+res.stderr, "[REDACTED]") {
				t.Errorf("no output shows [REDACTED]:\n%s\n%s", res.stdout, res.stderr)
			}
			files := 0
			filepath.WalkDir(filepath.Join(e.home, ".local", "state"), func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				files++
				check(path, string(data))
				return nil
			})
			if files < 2 {
				t.Errorf("found %d files under the state directory; want the database and the log", files)
			}
		})
	}
}

// TestBinaryEnvironmentSecretsNeverLeak is the same attack on the real
// binary, whose credentials come from the process environment: a
// GITHUB_TOKEN the model reads from a file and repeats reaches neither the
// output nor the state directory.
func TestBinaryEnvironmentSecretsNeverLeak(t *testing.T) {
	const token = "gtok-Bin7Hq2mZ9xK4pW1sV8"
	srv := modeltest.NewServer(t,
		sse(toolBody("c1", "read_file", `{"path":"notes.txt"}`)),
		sse(textBody("The token is ", token, ".")),
	)
	e := newEnv(t)
	e.vars["GITHUB_TOKEN"] = token
	writeFiles(t, e.workspace, map[string]string{"notes.txt": "GITHUB_TOKEN=" + token + "\n"})
	p := e.start(t, "run", "--output-format", "stream-json", "-e", srv.URL, "show me the token")
	p.stdin.Close()
	if code := p.wait(t, 45*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), token) {
		t.Fatal("the model was not given the file; the test lost its point")
	}
	for where, text := range map[string]string{"stdout": p.stdout.String(), "stderr": p.stderr.String()} {
		if strings.Contains(text, token) {
			t.Errorf("%s holds the token", where)
		}
	}
	filepath.WalkDir(filepath.Join(e.home, ".local", "state"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(path); strings.Contains(string(data), token) {
			t.Errorf("%s holds the token", path)
		}
		return nil
	})
}
