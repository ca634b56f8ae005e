package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/reinharness/rein/tool"
)

// nameSep separates the server and the tool in an exposed tool name.
// Server names may not contain it, so the first "__" of an exposed name
// always ends the server part and two servers can never collide.
const nameSep = "__"

// exposedNames maps a server's tool names (as the server spells them) to
// the names the model sees: "<server>__<tool>" when that is already a valid
// model tool name (^[a-zA-Z0-9_-]{1,64}$), otherwise the name with invalid
// characters replaced by '_', cut to fit, and a hash of the original
// appended. The result depends only on the server name and the set of tool
// names, never on order. Because every name keeps its "<server>__" prefix
// (server names are at most MaxServerNameLen long and cannot contain
// "__"), names from different servers cannot collide; within one server,
// a hashed name that meets another name gets a longer hash.
func exposedNames(server string, remote []string) map[string]string {
	sorted := slices.Clone(remote)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	var hashed []string
	for _, r := range sorted {
		name := server + nameSep + r
		if tool.ValidateName(name) == nil {
			out[r] = name
			taken[name] = true
			continue
		}
		hashed = append(hashed, r)
	}
	for _, r := range hashed {
		for n := 8; ; n += 4 {
			name := hashedName(server, r, n)
			if !taken[name] || n >= 32 {
				out[r] = name
				taken[name] = true
				break
			}
		}
	}
	return out
}

// hashedName is server__<sanitised tool>_<hex hash of the original>, cut to
// tool.MaxNameLen with the hash kept whole.
func hashedName(server, remote string, hexLen int) string {
	sum := sha256.Sum256([]byte(server + "\x00" + remote))
	suffix := "_" + hex.EncodeToString(sum[:])[:hexLen]
	prefix := server + nameSep + sanitize(remote)
	if room := tool.MaxNameLen - len(suffix); len(prefix) > room {
		prefix = prefix[:room]
	}
	return prefix + suffix
}

// sanitize replaces every byte a model tool name cannot hold with '_'.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c == '-' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
