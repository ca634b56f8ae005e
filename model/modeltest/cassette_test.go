package modeltest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/model/modeltest"
)

// allCassettes lists every recording under testdata.
func allCassettes(t *testing.T) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".yaml") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 29 {
		t.Fatalf("found %d cassettes under testdata, want all 29 copied from the shared fixtures", len(paths))
	}
	return paths
}

func TestLoadCassetteAll(t *testing.T) {
	for _, p := range allCassettes(t) {
		t.Run(p, func(t *testing.T) {
			c, err := modeltest.LoadCassette(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range c.Interactions {
				if in.Request.Method != "POST" || !strings.HasPrefix(in.Request.Path(), "/v1/") {
					t.Errorf("interaction %d: request %s %s, want POST /v1/...", in.ID, in.Request.Method, in.Request.Path())
				}
				if in.Response.Body == "" {
					t.Errorf("interaction %d: empty response body", in.ID)
				}
				if ct := in.Response.Headers.Get("Content-Type"); ct == "" {
					t.Errorf("interaction %d: no Content-Type header", in.ID)
				}
				if strings.HasPrefix(in.Response.Headers.Get("Content-Type"), "text/event-stream") &&
					!strings.HasSuffix(in.Response.Body, "\n\n") {
					t.Errorf("interaction %d: event-stream body lost its final blank line: %q",
						in.ID, in.Response.Body[max(0, len(in.Response.Body)-40):])
				}
			}
		})
	}
}

// TestLoadCassetteExact pins fields of known recordings, including the exact
// framing of a `|+` block-scalar event stream.
func TestLoadCassetteExact(t *testing.T) {
	c, err := modeltest.LoadCassette("testdata/fantasy/TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool_streaming.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.Interactions); got != 2 {
		t.Fatalf("interactions = %d, want 2", got)
	}
	in := c.Interactions[1]
	type summary struct {
		ID          int
		Method, URL string
		Code        int
		Status      string
		ContentType string
		UserAgent   string
		BodyPrefix  string
		BodySuffix  string
	}
	got := summary{
		ID: in.ID, Method: in.Request.Method, URL: in.Request.URL,
		Code: in.Response.Code, Status: in.Response.Status,
		ContentType: in.Response.Headers.Get("content-type"),
		UserAgent:   in.Request.Headers.Get("User-Agent"),
		BodyPrefix:  in.Response.Body[:47],
		BodySuffix:  in.Response.Body[len(in.Response.Body)-16:],
	}
	want := summary{
		ID: 1, Method: "POST", URL: "http://localhost:8080/v1/chat/completions",
		Code: 200, Status: "200 OK",
		ContentType: "text/event-stream",
		UserAgent:   "OpenAI/Go 2.7.1",
		BodyPrefix:  `data: {"choices":[{"finish_reason":null,"index"`,
		BodySuffix:  "\n\ndata: [DONE]\n\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("interaction (-want +got):\n%s", diff)
	}
	if !strings.Contains(in.Request.Body, `"reasoning_content":"User wants weather in Florence, Italy. We can use the weather function."`) {
		t.Errorf("request body lost the reasoning round trip: %s", in.Request.Body)
	}
	if n := strings.Count(in.Response.Body, "\n\n"); n != 18 {
		t.Errorf("event count = %d, want 18", n)
	}

	e, err := modeltest.LoadCassette("testdata/envoy/chat-unknown-model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Interactions[0].Response.Code, 404; got != want {
		t.Errorf("envoy code = %d, want %d", got, want)
	}
	if got, want := e.Interactions[0].Response.Headers.Get("x-request-id"), "req_ae3c59cd7df34e978057035f370e04be"; got != want {
		t.Errorf("envoy X-Request-Id = %q, want %q", got, want)
	}
}

func TestParseCassetteBad(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "not a go-vcr YAML file"},
		{"garbage", "\x00\xff{{{[[[", "not a go-vcr YAML file"},
		{"not yaml map", "- a\n- b\n", "not a go-vcr YAML file"},
		{"version 1", "version: 1\ninteractions:\n- id: 0\n", "version 1"},
		{"no version", "interactions: []\n", "version 0"},
		{"no interactions", "version: 2\n", "no interactions"},
		{"bad code", "version: 2\ninteractions:\n- response:\n    code: 7\n", "status code 7"},
		{"truncated", "version: 2\ninteractions:\n- id: 0\n  request:\n    body: '{\"messa", "not a go-vcr YAML file"},
		{"wrong type", "version: 2\ninteractions:\n- response:\n    code: [1, 2]\n", "not a go-vcr YAML file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := modeltest.ParseCassette([]byte(tt.in))
			if err == nil {
				t.Fatalf("ParseCassette = %+v, want error", c)
			}
			if !errors.Is(err, modeltest.ErrBadCassette) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want ErrBadCassette mentioning %q", err, tt.want)
			}
		})
	}
}

func TestLoadCassetteMissingFile(t *testing.T) {
	_, err := modeltest.LoadCassette(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, modeltest.ErrBadCassette) {
		t.Errorf("error = %v, want ErrBadCassette", err)
	}
}

func FuzzParseCassette(f *testing.F) {
	for _, p := range []string{
		"testdata/envoy/chat-basic.yaml",
		"testdata/fantasy/TestOpenAICommon/openai-gpt-4o/simple_streaming.yaml",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("version: 2\ninteractions:\n- response:\n    code: 200\n    body: |+\n      data: x\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := modeltest.ParseCassette(data)
		if err != nil {
			if !errors.Is(err, modeltest.ErrBadCassette) {
				t.Fatalf("error %v does not wrap ErrBadCassette", err)
			}
			return
		}
		if len(c.Interactions) == 0 {
			t.Fatal("accepted a cassette without interactions")
		}
		for _, in := range c.Interactions {
			if in.Response.Code < 100 || in.Response.Code > 999 {
				t.Fatalf("accepted status code %d", in.Response.Code)
			}
		}
	})
}
