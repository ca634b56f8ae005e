//go:build linux

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Finding where per-command cgroups can be made (see cgroup_linux.go).

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
