package secret

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestStreamSplitSecrets streams texts holding registered secrets, raw
// and in every spelling (wrapped as tools wrap), cut into random pieces
// — as a model's answer arrives delta by delta. What the Stream
// releases, put together, recovers no secret, and equals Redact of the
// whole text.
func TestStreamSplitSecrets(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 7))
	cases := 0
	for range 12 {
		secret := randomSecret(r)
		Register(secret)
		for _, sp := range spellers {
			for _, w := range wrappers {
				text := "Here it is:\n" + w.wrap(sp.encode("AWS_SECRET_ACCESS_KEY="+secret+"\n")) + "\nand raw " + secret + " done.\n"
				if sp.kind == 'r' || sp.kind == 'u' {
					text = "Here it is:\n" + w.wrap(sp.encode(secret)) + "\nthat is all.\n"
				}
				for _, maxPiece := range []int{1, 3, 17, 80} {
					var out strings.Builder
					var s Stream
					for rest := text; rest != ""; {
						n := min(len(rest), 1+r.IntN(maxPiece))
						out.WriteString(s.Write(rest[:n]))
						rest = rest[n:]
					}
					out.WriteString(s.Flush())
					cases++
					if where := recoverable(out.String(), secret); where != "" {
						t.Fatalf("%s, %s, pieces of up to %d: %s recovers %q from\n%s", sp.name, w.name, maxPiece, where, secret, out.String())
					}
					if got, want := out.String(), Redact(text); got != want {
						t.Fatalf("%s, %s, pieces of up to %d: streamed\n%q\nwhole\n%q", sp.name, w.name, maxPiece, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d streams", cases)
}

// TestStreamReleasesLines: with nothing registered that could continue,
// a Stream releases every finished line at once (and the finished words
// of the unfinished one) and keeps only the rest.
func TestStreamReleasesLines(t *testing.T) {
	var s Stream
	Register("stream-test-secret-0001")
	got := s.Write("first line\nsecond ")
	if !strings.HasPrefix(got, "first line\n") || !strings.HasPrefix("first line\nsecond ", got) {
		t.Errorf("Write = %q, want at least the finished line", got)
	}
	long := strings.Repeat("word ", 40) + "\n"
	got += s.Write("half\n" + long + "tail")
	got += s.Flush()
	if want := "first line\nsecond half\n" + long + "tail"; got != want {
		t.Errorf("released %q, want %q", got, want)
	}
}

// FuzzStream: however a text is cut, streaming it gives Redact of the
// whole text when only registered values (no pattern) are involved.
func FuzzStream(f *testing.F) {
	Register("fuzz-stream-secret-42")
	enc := base64.StdEncoding.EncodeToString([]byte("K=fuzz-stream-secret-42\n"))
	f.Add("say "+enc[:30]+"\n"+enc[30:]+"\nbye", uint8(3))
	f.Add("fuzz-stream-\nsecret-42 x", uint8(1))
	f.Fuzz(func(t *testing.T, text string, step uint8) {
		if len(text) > 4096 || Redact(text) != RedactKnown(text) {
			return // the patterns are line by line; see Stream
		}
		var out strings.Builder
		var s Stream
		n := int(step%32) + 1
		for rest := text; rest != ""; {
			k := min(n, len(rest))
			out.WriteString(s.Write(rest[:k]))
			rest = rest[k:]
		}
		out.WriteString(s.Flush())
		if got, want := out.String(), RedactKnown(text); got != want {
			t.Fatalf("streamed %q, whole %q", got, want)
		}
	})
}

// replaceReference is matcher.replace written the slow, obvious way:
// take the whitespace out, keeping each kept byte's position, and try
// every form, longest first, at every position.
func replaceReference(values []string, s, repl string) string {
	var all []string
	for _, v := range values {
		all = append(all, forms(v)...)
	}
	slices.SortStableFunc(all, func(a, b string) int { return len(b) - len(a) })
	var kept []byte
	var at []int
	for i := 0; i < len(s); i++ {
		if k := spaceAt(s, i); k > 0 {
			i += k - 1
			continue
		}
		kept, at = append(kept, s[i]), append(at, i)
	}
	var out strings.Builder
	last := 0
	for i := 0; i < len(kept); i++ {
		for _, f := range all {
			if strings.HasPrefix(string(kept[i:]), f) {
				out.WriteString(s[last:at[i]] + repl)
				last = at[i+len(f)-1] + 1
				i += len(f) - 1
				break
			}
		}
	}
	if len(s) < MinLength {
		return s
	}
	return out.String() + s[last:]
}

// FuzzMatcherReference: the matcher's one-pass scan gives what the
// obvious search gives, on any text and any registered values.
func FuzzMatcherReference(f *testing.F) {
	f.Add("abcdefgh", "xx abc\ndefgh yy abcdefgh", "")
	f.Add("hunter2hunter2", "aHVudGVy\nMmh1bnRlcjI=", "p@ss word")
	f.Add("k3y-value", `{"a":"k3y-\nvalue"} k3y\\nvalue`, "k3y-valu")
	f.Fuzz(func(t *testing.T, v1, s, v2 string) {
		var values []string
		for _, v := range []string{v1, v2} {
			if len(v) >= MinLength && len(v) < 64 {
				values = append(values, v)
			}
		}
		if len(values) == 0 || len(s) > 2048 {
			return
		}
		if got, want := newMatcher(values).replace(s, "#"), replaceReference(values, s, "#"); got != want {
			t.Fatalf("values %q, text %q:\nmatcher   %q\nreference %q", values, s, got, want)
		}
	})
}

// TestStreamSplitPatterns streams lines where a pattern (not a registered
// value) matches — header, bearer, JSON key, URL credentials, query
// parameter, well-known key shapes — cut into random pieces: the output
// equals Redact of the whole text, though unfinished lines without a
// pattern's word are released word by word.
func TestStreamSplitPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 5))
	lines := []string{
		"curl -H 'Authorization: Bearer abcdefghijklmnopqrstuv' https://api.example",
		`the config says {"password": "hunter2hunter2", "user": "bob"} there`,
		"clone https://bob:s3cretpassw0rd@git.example/repo.git now",
		"open https://example.com/cb?token=abcdef0123456789&x=1 please",
		"the key is sk-proj0123456789abcdefXYZ and more text",
		"use ghp_0123456789abcdefghijABCDEFGHIJ for the push",
		"AWS key AKIAIOSFODNN7EXAMPLE was printed",
		"x-api-key: 0123456789abcdef0123 sent",
		"nothing secret here, just words flowing by one after another",
	}
	for _, line := range lines {
		for _, text := range []string{line, line + "\n", "lead words then " + line + " tail\nnext line"} {
			for _, maxPiece := range []int{1, 2, 5, 13} {
				var out strings.Builder
				var s Stream
				for rest := text; rest != ""; {
					n := min(len(rest), 1+r.IntN(maxPiece))
					out.WriteString(s.Write(rest[:n]))
					rest = rest[n:]
				}
				out.WriteString(s.Flush())
				if got, want := out.String(), Redact(text); got != want {
					t.Fatalf("pieces of up to %d: streamed\n%q\nwhole\n%q", maxPiece, got, want)
				}
			}
		}
	}
}

// TestStreamReleasesWords: an unfinished line with no pattern's word is
// released up to its last word, less an end that could begin a
// registered value's form, so an answer streams word by word; one with
// a pattern's word is held to its end.
func TestStreamReleasesWords(t *testing.T) {
	var s Stream
	words := strings.Repeat("flowing words of an answer ", 100) // no line break
	var got string
	for i := 0; i < len(words); i += 7 {
		got += s.Write(words[i:min(i+7, len(words))])
	}
	// Only what could still begin a registered form (other tests of the
	// package register some) is held back: far less than the line.
	if len(got) < len(words)-500 || !strings.HasPrefix(words, got) {
		t.Fatalf("released %d of %d bytes of an unfinished line (%q…)", len(got), len(words), got[:min(len(got), 40)])
	}
	if rest := s.Flush(); got+rest != words {
		t.Errorf("released and flushed text differ from the input")
	}
	var p Stream
	line := "and here is the password " + words
	if got := p.Write(line); got != "" {
		t.Errorf("Write released %d bytes of a line holding a pattern's word", len(got))
	}
	if got := p.Write("\n"); !strings.HasPrefix(got, "and here is the password") {
		t.Errorf("the finished line was not released: %q", got[:min(len(got), 40)])
	}
}
