package policy

import (
	"path"
	"strings"
)

// CredentialComponent returns the first component of the slash-separated
// path p that is named like a credential store (.env, id_ed25519, .aws,
// …, the names the read-only allowance asks about), or "". Names are
// compared in lower case: on a case-insensitive file system .ENV is .env.
// The instruction loader uses it so that an instruction file cannot pull
// a secret into the model's context where a command would have to ask.
func CredentialComponent(p string) string {
	for _, comp := range strings.Split(p, "/") {
		for _, pat := range secretNames {
			if ok, _ := path.Match(pat, strings.ToLower(comp)); ok {
				return comp
			}
		}
	}
	return ""
}
