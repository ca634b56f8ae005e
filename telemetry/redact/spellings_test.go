package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestJSONArgumentsHideWrappedSecrets: tool-call arguments carrying a
// registered secret wrapped over lines in base64 and hex (so the JSON
// holds \n escapes) and URL-encoded, with JSON-escaped characters in it,
// come out valid JSON with no spelling of the secret left.
func TestJSONArgumentsHideWrappedSecrets(t *testing.T) {
	const key = `arg-Sec"ret&<k>/9xQ2+mZ7 w=`
	Register(key)
	b64 := base64.StdEncoding.EncodeToString([]byte("AWS_SECRET_ACCESS_KEY=" + key + "\n"))
	hx := hex.EncodeToString([]byte("K=" + key))
	wrapped := func(s string, n int) string {
		var b strings.Builder
		for len(s) > n {
			b.WriteString(s[:n] + "\n")
			s = s[n:]
		}
		return b.String() + s
	}
	args, _ := json.Marshal(map[string]string{
		"content": wrapped(b64, 20) + "\n" + wrapped(hx, 16),
		"command": "curl 'https://h/?p=" + url.QueryEscape(key) + "' # " + key,
	})
	out := JSON(args)
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	flat := strings.NewReplacer("\n", "", " ", "").Replace(got["content"] + got["command"])
	for _, leak := range []string{b64[32:64], hx[4:40], url.QueryEscape(key), strings.ReplaceAll(key, " ", "")} {
		if strings.Contains(flat, leak) {
			t.Errorf("arguments still hold %q:\n%s", leak, out)
		}
	}
}
