package sandbox

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reinharness/rein/workspace/sandbox/internal/child"
)

// Limits bounds the resources of one sandboxed command and everything it
// starts. A zero field takes its default (see DefaultLimits); Unlimited
// turns a limit off. Limits is a plain value, safe to copy and share.
//
// Where each is enforced (Linux):
//   - Processes: pids.max of a per-command cgroup (cgroup v2 delegated to
//     rein, or v1 when rein runs as root); else RLIMIT_NPROC inside the
//     sandbox's own user namespace (it then counts only the sandbox's
//     processes; it does not bind root).
//   - Memory: memory.max and memory.swap.max of the cgroup, for the
//     command as a whole; else RLIMIT_DATA per process.
//   - CPUTime: RLIMIT_CPU per process (SIGXCPU, then SIGKILL 2 s later).
//   - FileSize: RLIMIT_FSIZE per process (SIGXFSZ).
//   - OpenFiles: RLIMIT_NOFILE per process.
//
// Limits only tighten: a value above what rein itself inherited is
// clamped to it.
type Limits struct {
	// Processes caps the processes (and threads) alive at once.
	Processes int
	// Memory caps memory in bytes (RAM; swap is not granted on top).
	Memory int64
	// CPUTime caps each process's CPU time, rounded up to whole seconds.
	CPUTime time.Duration
	// FileSize caps the size of any file a process writes, in bytes.
	FileSize int64
	// OpenFiles caps each process's open descriptors.
	OpenFiles int
}

// Unlimited, as a Limits field, turns that limit off.
const Unlimited = -1

// Limit names one of the limits, as in the configuration
// ([sandbox] limits.<name>).
type Limit string

// The limits, by configuration name.
const (
	LimitProcesses Limit = "processes"
	LimitMemory    Limit = "memory"
	LimitCPUTime   Limit = "cpu_time"
	LimitFileSize  Limit = "file_size"
	LimitOpenFiles Limit = "open_files"
)

// Default limits that do not depend on the machine.
const (
	DefaultProcesses = 1024
	DefaultCPUTime   = time.Hour
	DefaultFileSize  = 4 << 30
	DefaultOpenFiles = 4096
	// minDefaultMemory is the floor of the derived memory default.
	minDefaultMemory = 512 << 20
	// processesPerCPU raises the process default on large machines.
	processesPerCPU = 128
)

// DefaultLimits returns the limits a zero Limits stands for: 1,024
// processes (threads count, so 128 per CPU on machines with more than 8:
// a parallel build runs a compiler per CPU, each with a thread per CPU),
// half the machine's physical memory (at least 512 MiB), one hour of CPU
// time per process, 4 GiB per file and 4,096 open files.
func DefaultLimits() Limits {
	memOnce.Do(func() {
		memDefault = int64(minDefaultMemory)
		if total := physicalMemory(); total/2 > memDefault {
			memDefault = total / 2 &^ (1<<20 - 1) // whole MiB
		}
	})
	return Limits{
		Processes: max(DefaultProcesses, processesPerCPU*runtime.NumCPU()), Memory: memDefault, CPUTime: DefaultCPUTime,
		FileSize: DefaultFileSize, OpenFiles: DefaultOpenFiles,
	}
}

var (
	memOnce    sync.Once
	memDefault int64
)

// Resolved fills zero fields with the defaults.
func (l Limits) Resolved() Limits {
	d := DefaultLimits()
	if l.Processes == 0 {
		l.Processes = d.Processes
	}
	if l.Memory == 0 {
		l.Memory = d.Memory
	}
	if l.CPUTime == 0 {
		l.CPUTime = d.CPUTime
	}
	if l.FileSize == 0 {
		l.FileSize = d.FileSize
	}
	if l.OpenFiles == 0 {
		l.OpenFiles = d.OpenFiles
	}
	return l
}

// Value formats the limit named n ("2 GiB", "1,024 processes", "off").
func (l Limits) Value(n Limit) string {
	switch n {
	case LimitProcesses:
		return countString(int64(l.Processes), "processes")
	case LimitMemory:
		return sizeString(l.Memory)
	case LimitCPUTime:
		if l.CPUTime < 0 {
			return "off"
		}
		// "1h", "10m", "1m30s" rather than "1h0m0s".
		d := l.CPUTime.String()
		if strings.HasSuffix(d, "m0s") {
			d = strings.TrimSuffix(d, "0s")
		}
		if strings.HasSuffix(d, "h0m") {
			d = strings.TrimSuffix(d, "0m")
		}
		return d
	case LimitFileSize:
		return sizeString(l.FileSize)
	case LimitOpenFiles:
		return countString(int64(l.OpenFiles), "files")
	}
	return ""
}

// Tighter reports whether the limit named n in l is at most the one in
// than (off counts as infinite). A project layer may only tighten.
func (l Limits) Tighter(n Limit, than Limits) bool {
	inf := func(v int64) float64 {
		if v < 0 {
			return math.Inf(1)
		}
		return float64(v)
	}
	a, b := l.raw(n), than.raw(n)
	return inf(a) <= inf(b)
}

func (l Limits) raw(n Limit) int64 {
	switch n {
	case LimitProcesses:
		return int64(l.Processes)
	case LimitMemory:
		return l.Memory
	case LimitCPUTime:
		return int64(l.CPUTime)
	case LimitFileSize:
		return l.FileSize
	case LimitOpenFiles:
		return int64(l.OpenFiles)
	}
	return 0
}

// Set stores v (as ParseLimit returns it) in the limit named n.
func (l *Limits) Set(n Limit, v int64) {
	switch n {
	case LimitProcesses:
		l.Processes = int(v)
	case LimitMemory:
		l.Memory = v
	case LimitCPUTime:
		l.CPUTime = time.Duration(v)
	case LimitFileSize:
		l.FileSize = v
	case LimitOpenFiles:
		l.OpenFiles = int(v)
	}
}

// AllLimits lists the limits in the order the configuration documents
// them.
var AllLimits = []Limit{LimitProcesses, LimitMemory, LimitCPUTime, LimitFileSize, LimitOpenFiles}

// Minimums below which a command cannot do anything useful.
const (
	minProcesses = 8
	minMemory    = 16 << 20
	minFileSize  = 1 << 10
	minOpenFiles = 16
)

// ParseLimit parses the configured value of the limit named n: an integer
// for processes and open_files, a size ("512MiB", "4GiB", or bytes) for
// memory and file_size, a duration ("90s", "10m", "1h") for cpu_time, or
// "off" or 0 (Unlimited) for any. The error says what to write instead.
func ParseLimit(n Limit, v any) (int64, error) {
	if s, ok := v.(string); ok && strings.EqualFold(strings.TrimSpace(s), "off") {
		return Unlimited, nil
	}
	if i, ok := v.(int64); ok && i == 0 {
		return Unlimited, nil
	}
	switch n {
	case LimitProcesses, LimitOpenFiles:
		i, ok := v.(int64)
		if !ok {
			return 0, fmt.Errorf("give a whole number (e.g. %d) or \"off\", not %s", map[Limit]int{LimitProcesses: DefaultProcesses, LimitOpenFiles: DefaultOpenFiles}[n], describe(v))
		}
		lo := map[Limit]int64{LimitProcesses: minProcesses, LimitOpenFiles: minOpenFiles}[n]
		if i < lo || i > math.MaxInt32 {
			return 0, fmt.Errorf("%d is out of range: give at least %d, or \"off\"", i, lo)
		}
		return i, nil
	case LimitMemory, LimitFileSize:
		var b int64
		switch x := v.(type) {
		case int64:
			b = x
		case string:
			var err error
			if b, err = ParseSize(x); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("give a size like \"512MiB\" or \"4GiB\", or \"off\", not %s", describe(v))
		}
		lo := map[Limit]int64{LimitMemory: minMemory, LimitFileSize: minFileSize}[n]
		if b < lo {
			return 0, fmt.Errorf("%s is too small: give at least %s, or \"off\"", sizeString(b), sizeString(lo))
		}
		return b, nil
	case LimitCPUTime:
		s, ok := v.(string)
		if !ok {
			return 0, fmt.Errorf("give a duration like \"90s\", \"10m\" or \"1h\", or \"off\", not %s", describe(v))
		}
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration: give one like \"90s\", \"10m\" or \"1h\", or \"off\"", s)
		}
		if d < time.Second {
			return 0, fmt.Errorf("%s is too short: give at least 1s, or \"off\"", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("unknown limit %q: use one of processes, memory, cpu_time, file_size, open_files", n)
}

func describe(v any) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the number %v", v)
	}
	return fmt.Sprintf("%v", v)
}

// sizeUnits are the accepted size suffixes: binary units only, so that
// "4GiB" means the same to everyone.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// ParseSize parses a size: a whole number of bytes, optionally followed by
// B, KiB, MiB, GiB or TiB ("512MiB", "4 GiB", "1.5GiB").
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	shift := uint(0)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, shift = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.shift
			break
		}
	}
	bad := fmt.Errorf("%q is not a size: give one like \"512MiB\" or \"4GiB\" (units B, KiB, MiB, GiB, TiB), or \"off\"", s)
	if t == "" || strings.ContainsAny(t, "+-eE_") {
		return 0, bad
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, bad
	}
	b := f * float64(int64(1)<<shift)
	if b >= math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(b), nil
}

// sizeString formats bytes with the largest binary unit that keeps one
// decimal at most: "2 GiB", "1.5 GiB", "512 MiB".
func sizeString(b int64) string {
	if b < 0 {
		return "off"
	}
	for _, u := range sizeUnits[:4] {
		if b >= 1<<u.shift {
			v := float64(b) / float64(int64(1)<<u.shift)
			return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + u.suffix
		}
	}
	return strconv.FormatInt(b, 10) + " B"
}

func countString(n int64, unit string) string {
	if n < 0 {
		return "off"
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " " + unit
}

// childLimits are the rlimits the re-executed child sets on itself just
// before it execs the command (0: leave the inherited value).
type childLimits = child.Limits
