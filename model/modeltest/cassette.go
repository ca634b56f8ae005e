// Package modeltest provides loopback fakes for testing model providers and
// the code built on them: a reader for recorded provider traffic (go-vcr
// cassettes), an HTTP server that replays recordings and scripted faults in
// order, and a scripted in-process Provider.
//
// Everything here binds to 127.0.0.1 and is torn down through t.Cleanup, so
// tests stay hermetic and parallel-safe.
package modeltest

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// ErrBadCassette reports a cassette file that cannot be used: unreadable,
// not YAML, not go-vcr version 2, or missing interactions.
var ErrBadCassette = errors.New("bad cassette")

// Cassette is a go-vcr (version 2) recording of HTTP exchanges with a model
// server. Bodies are kept byte for byte, including the raw server-sent-event
// framing of streamed responses.
type Cassette struct {
	// Path is the file the cassette was loaded from.
	Path string
	// Interactions are the recorded exchanges in recording order.
	Interactions []Interaction
}

// Interaction is one recorded request and the response it received.
type Interaction struct {
	ID       int
	Request  RecordedRequest
	Response RecordedResponse
}

// RecordedRequest is the request half of an Interaction.
type RecordedRequest struct {
	Method  string
	URL     string
	Headers http.Header
	Body    string
}

// Path returns the URL path of the recorded request ("/v1/chat/completions"),
// or "" when the URL does not parse.
func (r RecordedRequest) Path() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return ""
	}
	return u.Path
}

// RecordedResponse is the response half of an Interaction.
type RecordedResponse struct {
	// Code is the HTTP status code; Status is the full status line text
	// ("200 OK").
	Code    int
	Status  string
	Headers http.Header
	Body    string
	// Duration is how long the real server took, when recorded.
	Duration time.Duration
}

// cassetteFile mirrors the YAML layout go-vcr v2 writes. Only the fields a
// replay needs are decoded; the rest (proto, content_length, …) are ignored.
type cassetteFile struct {
	Version      int `yaml:"version"`
	Interactions []struct {
		ID      int `yaml:"id"`
		Request struct {
			Method  string              `yaml:"method"`
			URL     string              `yaml:"url"`
			Headers map[string][]string `yaml:"headers"`
			Body    string              `yaml:"body"`
		} `yaml:"request"`
		Response struct {
			Status   string              `yaml:"status"`
			Code     int                 `yaml:"code"`
			Headers  map[string][]string `yaml:"headers"`
			Body     string              `yaml:"body"`
			Duration string              `yaml:"duration"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// LoadCassette reads a go-vcr version 2 cassette. Block-scalar bodies
// (`body: |+`) keep their exact bytes, so replayed event streams are
// identical to what the server sent.
func LoadCassette(path string) (*Cassette, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCassette, err)
	}
	c, err := ParseCassette(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// ParseCassette decodes cassette YAML held in memory; LoadCassette is the
// usual entry point.
func ParseCassette(data []byte) (*Cassette, error) {
	var f cassetteFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: not a go-vcr YAML file: %v", ErrBadCassette, err)
	}
	if f.Version != 2 {
		return nil, fmt.Errorf("%w: version %d, want go-vcr version 2", ErrBadCassette, f.Version)
	}
	if len(f.Interactions) == 0 {
		return nil, fmt.Errorf("%w: no interactions recorded", ErrBadCassette)
	}
	c := &Cassette{Interactions: make([]Interaction, 0, len(f.Interactions))}
	for i, in := range f.Interactions {
		code := in.Response.Code
		if code < 100 || code > 999 {
			return nil, fmt.Errorf("%w: interaction %d has status code %d, want 100-999", ErrBadCassette, i, code)
		}
		var d time.Duration
		if in.Response.Duration != "" {
			// A malformed duration is cosmetic; replay does not depend on it.
			d, _ = time.ParseDuration(in.Response.Duration)
		}
		c.Interactions = append(c.Interactions, Interaction{
			ID: in.ID,
			Request: RecordedRequest{
				Method:  in.Request.Method,
				URL:     in.Request.URL,
				Headers: canonicalHeader(in.Request.Headers),
				Body:    in.Request.Body,
			},
			Response: RecordedResponse{
				Code:     code,
				Status:   in.Response.Status,
				Headers:  canonicalHeader(in.Response.Headers),
				Body:     in.Response.Body,
				Duration: d,
			},
		})
	}
	return c, nil
}

func canonicalHeader(m map[string][]string) http.Header {
	h := make(http.Header, len(m))
	for k, vs := range m {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	return h
}
