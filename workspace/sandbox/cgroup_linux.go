//go:build linux

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Per-command cgroups. Each sandboxed command gets a cgroup of its own
// with pids.max and the memory cap, which Prepare creates and sets.
// Every process of the command must be born inside it:
//
//   - cgroup v2: bubblewrap is started in it directly (clone3 with
//     CLONE_INTO_CGROUP, through SysProcAttr.UseCgroupFD): no migration,
//     so nothing waits for the kernel's cgroup locks.
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

// cgroups returns the plan, or nil and why there is none.
func cgroups() (*cgroupPlan, string) {
	cgOnce.Do(func() {
		fs, err := hostCgroupFS()
		if err != nil {
			cgWhy = err.Error()
			return
		}
		cgPlan, err = probeCgroups(fs)
		if err != nil {
			cgWhy = err.Error()
		}
	})
	return cgPlan, cgWhy
}

// cgroupFS is what the probe reads about this process.
type cgroupFS struct {
	mountinfo string // /proc/self/mountinfo
	self      string // /proc/self/cgroup
	pid       int
	root      bool
}

func hostCgroupFS() (cgroupFS, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return cgroupFS{}, fmt.Errorf("no cgroup for the limits (%v)", err)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroupFS{}, fmt.Errorf("no cgroup for the limits (%v)", err)
	}
	return cgroupFS{mountinfo: string(mi), self: string(self), pid: os.Getpid(), root: os.Geteuid() == 0}, nil
}

// probeCgroups finds a place for per-command cgroups: v2 first, then v1
// as root. The error says why neither works.
func probeCgroups(fs cgroupFS) (*cgroupPlan, error) {
	p, err2 := probeV2(fs)
	if err2 == nil {
		return p, nil
	}
	if !fs.root {
		return nil, err2
	}
	p, err1 := probeV1(fs)
	if err1 == nil {
		return p, nil
	}
	return nil, fmt.Errorf("%v; %v", err2, err1)
}

type mountEntry struct{ root, point, fstype, opts string }

func mounts(mountinfo string) []mountEntry {
	var out []mountEntry
	for _, line := range strings.Split(mountinfo, "\n") {
		l, r, ok := strings.Cut(line, " - ")
		left, right := strings.Fields(l), strings.Fields(r)
		if !ok || len(left) < 5 || len(right) < 3 {
			continue
		}
		out = append(out, mountEntry{root: unescape(left[3]), point: unescape(left[4]), fstype: right[0], opts: right[2]})
	}
	return out
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownPath is this process's path in the hierarchy whose /proc/self/cgroup
// controller list contains ctrl ("" for v2's "0::" line).
func ownPath(self, ctrl string) (string, bool) {
	for _, line := range strings.Split(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if ctrl == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		if ctrl != "" && slices.Contains(strings.Split(parts[1], ","), ctrl) {
			return parts[2], true
		}
	}
	return "", false
}

// dirOf maps a cgroup path to its directory under mount m.
func dirOf(m mountEntry, path string) string {
	rel := path
	if m.root != "/" {
		rel = strings.TrimPrefix(path, m.root)
	}
	return filepath.Join(m.point, filepath.FromSlash(rel))
}

func readWords(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func probeV2(fs cgroupFS) (*cgroupPlan, error) {
	i := slices.IndexFunc(mounts(fs.mountinfo), func(m mountEntry) bool { return m.fstype == "cgroup2" })
	path, ok := ownPath(fs.self, "")
	if i < 0 || !ok {
		return nil, errors.New("no cgroup v2 hierarchy")
	}
	dir := dirOf(mounts(fs.mountinfo)[i], path)
	have := readWords(filepath.Join(dir, "cgroup.controllers"))
	for _, c := range []string{"pids", "memory"} {
		if !slices.Contains(have, c) {
			return nil, fmt.Errorf("rein's cgroup v2 %s does not offer the %s controller", dir, c)
		}
	}
	if err := delegate(dir, fs.pid); err != nil {
		return nil, err
	}
	swap, err := tryChild(dir, "memory.swap.max", "pids.max", "memory.max")
	if err != nil {
		return nil, fmt.Errorf("cannot create cgroups under rein's cgroup v2 %s: %v", dir, err)
	}
	return &cgroupPlan{v2: true, pids: dir, memory: dir, swap: swap}, nil
}

// delegate enables the pids and memory controllers for dir's children.
// A cgroup holding processes cannot (unless it is the root): if rein is
// alone in dir it first moves into the leaf dir/rein-main.
func delegate(dir string, pid int) error {
	enabled := readWords(filepath.Join(dir, "cgroup.subtree_control"))
	if slices.Contains(enabled, "pids") && slices.Contains(enabled, "memory") {
		return nil
	}
	ctl := filepath.Join(dir, "cgroup.subtree_control")
	if writeFile(ctl, "+pids +memory") == nil {
		return nil
	}
	procs := readWords(filepath.Join(dir, "cgroup.procs"))
	if len(procs) != 1 || procs[0] != strconv.Itoa(pid) {
		return fmt.Errorf("rein's cgroup v2 %s holds other processes, so its controllers cannot be delegated to per-command cgroups", dir)
	}
	leaf := filepath.Join(dir, "rein-main")
	if err := os.Mkdir(leaf, 0o755); err != nil && !os.IsExist(err) {
		return fmt.Errorf("cannot create cgroups under rein's cgroup v2 %s: %v", dir, err)
	}
	if err := writeFile(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("move rein into %s: %v", leaf, err)
	}
	if err := writeFile(ctl, "+pids +memory"); err != nil {
		return fmt.Errorf("enable pids and memory in %s: %v", ctl, err)
	}
	return nil
}

func probeV1(fs cgroupFS) (*cgroupPlan, error) {
	dirs := map[string]string{}
	for _, c := range []string{"pids", "memory"} {
		i := slices.IndexFunc(mounts(fs.mountinfo), func(m mountEntry) bool {
			return m.fstype == "cgroup" && slices.Contains(strings.Split(m.opts, ","), c)
		})
		path, ok := ownPath(fs.self, c)
		if i < 0 || !ok {
			return nil, fmt.Errorf("no cgroup v1 %s hierarchy", c)
		}
		dirs[c] = dirOf(mounts(fs.mountinfo)[i], path)
	}
	if _, err := tryChild(dirs["pids"], "", "pids.max"); err != nil {
		return nil, fmt.Errorf("cannot create cgroups in %s: %v", dirs["pids"], err)
	}
	swap, err := tryChild(dirs["memory"], "memory.memsw.limit_in_bytes", "memory.limit_in_bytes")
	if err != nil {
		return nil, fmt.Errorf("cannot create cgroups in %s: %v", dirs["memory"], err)
	}
	return &cgroupPlan{pids: dirs["pids"], memory: dirs["memory"], swap: swap}, nil
}

// tryChild creates and removes a child of dir that must hold the
// control files, reports whether it holds the optional one (the swap
// limit exists only with swap accounting), and sweeps per-command
// cgroups a dead rein left behind (empty ones only: a populated cgroup
// cannot be removed).
func tryChild(dir, optional string, files ...string) (bool, error) {
	probe := filepath.Join(dir, fmt.Sprintf("%sprobe-%d-%s", cgroupPrefix, os.Getpid(), nonce()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false, err
	}
	defer os.Remove(probe)
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(probe, f)); err != nil {
			return false, fmt.Errorf("no %s", f)
		}
	}
	sweepStale(dir)
	if optional == "" {
		return false, nil
	}
	_, err := os.Stat(filepath.Join(probe, optional))
	return err == nil, nil
}

// sweepStale removes empty per-command cgroups of processes that no
// longer exist.
func sweepStale(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		pid, _, ok2 := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || !ok2 || err != nil || !e.IsDir() || syscall.Kill(n, 0) != syscall.ESRCH {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

func nonce() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

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
	var paths []string
	for _, d := range c.dirs {
		paths = append(paths, d.Path)
	}
	// A Launch dropped without Release must not leave its cgroup behind:
	// once unreachable its directories are removed as soon as they are
	// empty (now, or at a later Prepare). Its descriptors close with
	// their os.Files.
	runtime.AddCleanup(c, orphan, paths)
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
	return nil
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
		l.Files = append(l.Files, cg.procs...)
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

// joinCgroups moves the calling process (all its threads) into the
// cgroups whose cgroup.procs are open as fds, and closes them.
func joinCgroups(fds []int) error {
	for _, fd := range fds {
		if _, err := syscall.Write(fd, []byte("0")); err != nil {
			return fmt.Errorf("enter the command's cgroup: %w", err)
		}
		syscall.Close(fd)
	}
	return nil
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
