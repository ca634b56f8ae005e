package secret

import (
	"encoding/base64"
	"math/rand/v2"
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
// a Stream releases every finished line at once and keeps only the rest.
func TestStreamReleasesLines(t *testing.T) {
	var s Stream
	Register("stream-test-secret-0001")
	if got := s.Write("first line\nsecond "); got != "first line\n" && got != "" {
		t.Errorf("Write = %q", got)
	}
	long := strings.Repeat("word ", 40) + "\n"
	got := s.Write("half\n" + long + "tail")
	got += s.Flush()
	if !strings.HasSuffix(got, "tail") || !strings.Contains(got, "second half\n") {
		t.Errorf("released %q", got)
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
