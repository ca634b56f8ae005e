//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Per-command cgroups. Each sandboxed command gets a cgroup of its own
// with pids.max and the memory cap, which Prepare creates and sets.
// Every process of the command must be born inside it:
//
//   - cgroup v2: the launch (rein's supervisor, then bubblewrap) is
//     started in it directly (clone3 with CLONE_INTO_CGROUP, through
//     SysProcAttr.UseCgroupFD): no migration.
//   - cgroup v1: Prepare opens its cgroup.procs for writing and the
//     re-executed child gets the descriptor (an extra file) and writes
//     "0" to it as the first thing it does, before Landlock and before
//     the command exists. The kernel checks such a write against the
//     credentials of the opener (rein, root, outside the sandbox), so it
//     works from inside bubblewrap's namespaces and read-only /sys; only
//     bubblewrap's own two processes, which run no untrusted code, stay
//     outside.
//
// Launch.Release reads what was hit, kills what is left and removes the
// directory.
//
// Two layouts are used. cgroup v2, when rein's own cgroup offers the
// pids and memory controllers and rein may write it: rein's cgroup is the
// parent (if rein is alone in it, rein first moves itself into a leaf
// "rein-main", as the no-internal-processes rule requires). cgroup v1,
// when rein runs as root: a child of rein's cgroup in the pids and in the
// memory hierarchy.

// cgroupPrefix starts the name of every per-command cgroup.
const cgroupPrefix = "rein-"

// cgroupPlan is where per-command cgroups are made; probed once.
type cgroupPlan struct {
	v2           bool
	pids, memory string // parent directories (the same one for v2)
	swap         bool   // the swap control file exists
}

// cgroupSet is one command's cgroup: a directory per hierarchy.
type cgroupSet struct {
	v2           bool
	pids, memory string
	dirs         []cgroupDir
	procs        []*os.File // v1: each dir's cgroup.procs, open for writing
	dir          *os.File   // v2: the directory, for CLONE_INTO_CGROUP
}

// cgroupDir is a directory to create and the control files to set in it,
// in order.
type cgroupDir struct {
	Path string
	Set  [][2]string
}

var (
	cgOnce sync.Once
	cgPlan *cgroupPlan
	cgWhy  string
	cgSeq  atomic.Uint64
)

// forCommand names a new per-command cgroup and the values to write
// into it.
func (p *cgroupPlan) forCommand(lim Limits) *cgroupSet {
	name := fmt.Sprintf("%s%d-%d-%s", cgroupPrefix, os.Getpid(), cgSeq.Add(1), nonce())
	val := func(v int64) string {
		if v <= 0 {
			return "max"
		}
		return strconv.FormatInt(v, 10)
	}
	c := &cgroupSet{v2: p.v2, pids: filepath.Join(p.pids, name), memory: filepath.Join(p.memory, name)}
	procs := [2]string{"pids.max", val(int64(lim.Processes))}
	if p.v2 {
		set := [][2]string{procs, {"memory.max", val(lim.Memory)}}
		if p.swap && lim.Memory > 0 {
			set = append(set, [2]string{"memory.swap.max", "0"})
		}
		// One OOM kill stops the whole command, not a random process of it.
		set = append(set, [2]string{"memory.oom.group", "1"})
		c.dirs = []cgroupDir{{Path: c.pids, Set: set}}
		return c
	}
	mem := cgroupDir{Path: c.memory}
	if lim.Memory > 0 {
		mem.Set = [][2]string{{"memory.limit_in_bytes", val(lim.Memory)}}
		if p.swap {
			mem.Set = append(mem.Set, [2]string{"memory.memsw.limit_in_bytes", val(lim.Memory)})
		}
	}
	c.dirs = []cgroupDir{{Path: c.pids, Set: [][2]string{procs}}, mem}
	return c
}

// create makes the cgroup's directories, sets the limits and opens each
// cgroup.procs for the child. On error nothing is left behind.
func (c *cgroupSet) create() error {
	removeOrphans()
	for _, d := range c.dirs {
		if err := os.Mkdir(d.Path, 0o755); err != nil {
			c.release()
			return fmt.Errorf("create the command's cgroup: %w", err)
		}
		for _, kv := range d.Set {
			err := writeFile(filepath.Join(d.Path, kv[0]), kv[1])
			if err != nil && kv[0] != "memory.oom.group" { // optional: Linux 4.19+
				c.release()
				return fmt.Errorf("set %s of the command's cgroup to %s: %w", kv[0], kv[1], err)
			}
		}
		if c.v2 {
			f, err := os.Open(d.Path)
			if err != nil {
				c.release()
				return fmt.Errorf("open the command's cgroup: %w", err)
			}
			c.dir = f
			continue
		}
		f, err := os.OpenFile(filepath.Join(d.Path, "cgroup.procs"), os.O_WRONLY, 0)
		if err != nil {
			c.release()
			return fmt.Errorf("open the command's cgroup: %w", err)
		}
		c.procs = append(c.procs, f)
	}
	// A Launch dropped without Release must not leave its cgroup behind.
	// Its descriptors go to the child as extra files, so they stay
	// reachable for as long as the exec.Cmd that starts it; once they are
	// garbage the directories are removed as soon as they are empty (now,
	// or at a later Prepare). Tying this to the cgroupSet instead would
	// let a caller that keeps only the Cmd lose the cgroup before the
	// child joins it.
	var paths []string
	for _, d := range c.dirs {
		paths = append(paths, d.Path)
	}
	runtime.AddCleanup(c.files()[0], orphan, paths)
	return nil
}

// files are the descriptors the child gets: v1's cgroup.procs, to write
// "0" to; v2's directory, which the supervisor and bubblewrap were born
// in, only to close (it rides along to stay alive with the Cmd).
func (c *cgroupSet) files() []*os.File {
	if c.dir != nil {
		return []*os.File{c.dir}
	}
	return c.procs
}

// intoCgroup makes a v2 launch start inside its cgroup (Apply calls it).
func (l Launch) intoCgroup(sys *syscall.SysProcAttr) {
	if l.cgroup != nil && l.cgroup.dir != nil {
		sys.UseCgroupFD = true
		sys.CgroupFD = int(l.cgroup.dir.Fd())
	}
}

// withLimits records the limits and the warning in l and hands the
// cgroup's descriptors to the child.
func (l Launch) withLimits(lim Limits, cg *cgroupSet, warning string) (Launch, error) {
	l.Limits = lim.Resolved()
	if warning != "" {
		if l.Warning != "" {
			l.Warning += "; "
		}
		l.Warning += warning
	}
	if cg != nil {
		l.Files = append(l.Files, cg.files()...)
		l.cgroup = cg
	}
	return l, nil
}

// orphans are directories of per-command cgroups whose Launch was
// dropped without Release and that were still populated.
var orphans struct {
	sync.Mutex
	dirs []string
}

func orphan(dirs []string) {
	orphans.Lock()
	orphans.dirs = append(orphans.dirs, dirs...)
	orphans.Unlock()
	removeOrphans()
}

// removeOrphans removes the orphans that are empty by now.
func removeOrphans() {
	orphans.Lock()
	defer orphans.Unlock()
	orphans.dirs = slices.DeleteFunc(orphans.dirs, func(d string) bool {
		err := os.Remove(d)
		return err == nil || os.IsNotExist(err)
	})
}

// release reports which cgroup limits were hit, kills whatever is left
// in the cgroup and removes it. Bounded: it gives up after about 2 s.
func (c *cgroupSet) release() (memory, procs bool) {
	procs = eventCount(filepath.Join(c.pids, "pids.events"), "max") > 0
	if c.v2 {
		memory = eventCount(filepath.Join(c.memory, "memory.events"), "oom_kill") > 0
	} else {
		memory = eventCount(filepath.Join(c.memory, "memory.oom_control"), "oom_kill") > 0
	}
	dirs := []string{c.pids}
	if c.memory != c.pids {
		dirs = append(dirs, c.memory)
	}
	for _, f := range c.procs {
		f.Close()
	}
	if c.dir != nil {
		c.dir.Close()
	}
	c.procs, c.dir = nil, nil
	for _, d := range dirs {
		removeCgroup(d, c.v2)
	}
	return memory, procs
}

// eventCount reads the counter key from a flat-keyed control file.
func eventCount(path, key string) int64 {
	w := readWords(path)
	for i := 0; i+1 < len(w); i += 2 {
		if w[i] == key {
			n, _ := strconv.ParseInt(w[i+1], 10, 64)
			return n
		}
	}
	return 0
}

// removeCgroup kills every process in dir and removes it. The leader
// has been waited for, but bubblewrap's init may still be exiting: the
// retries start at 100 µs.
func removeCgroup(dir string, v2 bool) {
	deadline := time.Now().Add(2 * time.Second)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		err := os.Remove(dir)
		if err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
			return
		}
		if v2 {
			_ = writeFile(filepath.Join(dir, "cgroup.kill"), "1")
		}
		for _, p := range readWords(filepath.Join(dir, "cgroup.procs")) {
			if n, err := strconv.Atoi(p); err == nil && n > 0 {
				_ = syscall.Kill(n, syscall.SIGKILL)
			}
		}
		time.Sleep(pause)
	}
}

// release is Launch.Release on Linux.
func (l Launch) release(st *os.ProcessState) Limit {
	hit := Limit("")
	if l.Sandboxed {
		hit = limitFromStatus(st, l.Limits)
	}
	if l.cgroup == nil {
		return hit
	}
	memory, procs := l.cgroup.release()
	switch {
	case memory:
		return LimitMemory
	case hit == "" && procs:
		return LimitProcesses
	}
	return hit
}
