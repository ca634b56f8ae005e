package host

import (
	"github.com/reinharness/rein/config"
	"github.com/reinharness/rein/workspace/sandbox"
)

// limitsSection is [sandbox] limits:
//
//	[sandbox]
//	limits = { processes = 1024, memory = "4GiB", cpu_time = "1h", file_size = "4GiB", open_files = 4096 }
//
// Each key is optional (see sandbox.DefaultLimits) and takes "off" (or
// 0) to lift that limit, in the user's configuration only.
type limitsSection struct {
	Processes *limitValue `toml:"processes"`
	Memory    *limitValue `toml:"memory"`
	CPUTime   *limitValue `toml:"cpu_time"`
	FileSize  *limitValue `toml:"file_size"`
	OpenFiles *limitValue `toml:"open_files"`
}

// limitValue holds a limit's TOML value undecoded (a number or a
// string); sandbox.ParseLimit judges it.
type limitValue struct{ v any }

// UnmarshalTOML implements toml.Unmarshaler.
func (l *limitValue) UnmarshalTOML(v any) error {
	l.v = v
	return nil
}

func (t *limitsSection) values() map[sandbox.Limit]*limitValue {
	return map[sandbox.Limit]*limitValue{
		sandbox.LimitProcesses: t.Processes, sandbox.LimitMemory: t.Memory, sandbox.LimitCPUTime: t.CPUTime,
		sandbox.LimitFileSize: t.FileSize, sandbox.LimitOpenFiles: t.OpenFiles,
	}
}

// mergeLimits applies one layer's [sandbox] limits to s. A user layer
// sets any value; a project layer comes with the repository, so it may
// only lower a limit: a higher value, or "off", is ignored with a warning.
func (s *SandboxSettings) mergeLimits(sec config.RawSection, t *limitsSection) error {
	if t == nil {
		return nil
	}
	vals := t.values()
	for _, name := range sandbox.AllLimits {
		lv := vals[name]
		if lv == nil {
			continue
		}
		n, err := sandbox.ParseLimit(name, lv.v)
		if err != nil {
			return sec.Errorf([]string{"limits", string(name)}, "sandbox.limits.%s: %v", name, err)
		}
		if sec.Source.Layer != config.LayerProject {
			s.Limits.Set(name, n)
			continue
		}
		var proposed sandbox.Limits
		proposed.Set(name, n)
		current := s.Limits.Resolved()
		switch {
		case n == sandbox.Unlimited:
			s.warnf("%s: sandbox.limits.%s = \"off\" ignored: a project can only lower a limit; lift it in your user configuration", sec.Source.Name, name)
		case !proposed.Resolved().Tighter(name, current):
			s.warnf("%s: sandbox.limits.%s = %s ignored: a project can only lower a limit (it is %s)",
				sec.Source.Name, name, proposed.Resolved().Value(name), current.Value(name))
		default:
			s.Limits.Set(name, n)
		}
	}
	return nil
}
