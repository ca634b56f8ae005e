package host

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/workspace/sandbox"
)

// mergeCaches applies one layer's [sandbox] caches and cache_size:
//
//	[sandbox]
//	caches = ["go", "npm"]   # the kinds kept across sessions; [] for none
//	cache_size = "4GiB"      # trim above it; "off" for no cap
//
// A user layer sets both. A project layer comes with the repository, so
// it may only narrow: its caches are intersected with the current set (a
// kind that is off stays off, with a warning), and a larger cache_size,
// or "off", is ignored with a warning.
func (s *SandboxSettings) mergeCaches(sec config.RawSection, kinds *[]string, size *limitValue) error {
	project := sec.Source.Layer == config.LayerProject
	if kinds != nil {
		var set []string
		for _, k := range *kinds {
			if _, err := sandbox.ParseCacheKind(k); err != nil {
				return sec.Errorf([]string{"caches"}, "sandbox.caches: %v", err)
			}
			if project && !slices.Contains(s.Caches, k) {
				s.warnf("%s: sandbox.caches %q ignored: a project can only narrow the caches; enable it in your user configuration", sec.Source.Name, k)
				continue
			}
			if !slices.Contains(set, k) {
				set = append(set, k)
			}
		}
		s.Caches = set
	}
	if size == nil {
		return nil
	}
	n, err := parseCacheSize(size.v)
	if err != nil {
		return sec.Errorf([]string{"cache_size"}, "sandbox.cache_size: %v", err)
	}
	if project && (n == 0 || (s.CacheSize != 0 && n > s.CacheSize)) {
		s.warnf("%s: sandbox.cache_size ignored: a project can only lower it", sec.Source.Name)
		return nil
	}
	s.CacheSize = n
	return nil
}

// parseCacheSize reads cache_size: a size ("4GiB"), a number of bytes, or
// "off" (0: no cap).
func parseCacheSize(v any) (int64, error) {
	switch x := v.(type) {
	case string:
		if strings.EqualFold(strings.TrimSpace(x), "off") {
			return 0, nil
		}
		n, err := sandbox.ParseSize(x)
		if err == nil && n < 1<<20 {
			err = fmt.Errorf("%s is too small: give at least 1MiB, or \"off\"", x)
		}
		return n, err
	case int64:
		if x == 0 {
			return 0, nil
		}
		if x < 1<<20 {
			return 0, fmt.Errorf("%d bytes is too small: give at least \"1MiB\", or \"off\"", x)
		}
		return x, nil
	}
	return 0, fmt.Errorf("give a size like \"10GiB\", or \"off\", not %v", v)
}

// WorkspaceCaches prepares the persistent caches of the workspace real
// (canonical) under state: it trims them to the configured size, then
// creates the enabled directories. Failing that, commands fall back on
// caches in the private temporary directory with a warning.
func WorkspaceCaches(sb SandboxSettings, state, real string, stderr io.Writer) sandbox.Caches {
	if state == "" || len(sb.Caches) == 0 || sb.Mode == sandbox.Off {
		return sandbox.Caches{}
	}
	c := sandbox.Caches{Dir: sandbox.CacheDir(state, real), Kinds: sb.Caches}
	if _, err := sandbox.PruneCaches(c.Dir, sb.CacheSize); err != nil {
		fmt.Fprintf(stderr, "rein: warning: trimming the sandbox caches: %s\n", textclip.FirstLine(err.Error()))
	}
	if err := c.Ensure(real); err != nil {
		fmt.Fprintf(stderr, "rein: warning: sandbox caches off for this session: %s\n", textclip.FirstLine(err.Error()))
		return sandbox.Caches{}
	}
	return c
}
