//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testMountinfo = `25 30 0:23 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:24 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
27 25 0:25 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
28 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
29 25 0:27 /docker/abc /sys/fs/cgroup/my\040memory rw,relatime - cgroup cgroup rw,memory
`

const testSelf = `9:pids:/user/42
4:memory:/docker/abc/job
2:cpu,cpuacct:/
0::/user.slice/rein.scope
`

func TestCgroupPaths(t *testing.T) {
	ms := mounts(testMountinfo)
	if len(ms) != 5 || ms[4].point != "/sys/fs/cgroup/my memory" {
		t.Fatalf("mounts = %+v", ms)
	}
	for _, tc := range []struct {
		ctrl, mount, want string
	}{
		{"", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/unified/user.slice/rein.scope"},
		{"pids", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/pids/user/42"},
		{"cpuacct", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},
		{"memory", "/sys/fs/cgroup/my memory", "/sys/fs/cgroup/my memory/job"},
	} {
		path, ok := ownPath(testSelf, tc.ctrl)
		if !ok {
			t.Fatalf("no path for %q", tc.ctrl)
		}
		var m mountEntry
		for _, x := range ms {
			if x.point == tc.mount {
				m = x
			}
		}
		if got := dirOf(m, path); got != tc.want {
			t.Errorf("%q: dir %q, want %q", tc.ctrl, got, tc.want)
		}
	}
	if _, ok := ownPath(testSelf, "hugetlb"); ok {
		t.Error("found a hierarchy that is not there")
	}
}

// TestProbeV2Refuses: a cgroup v2 that does not offer both controllers,
// or that other processes share, is not used, and the reason says which.
func TestProbeV2Refuses(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "user.slice", "rein.scope")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fs := cgroupFS{mountinfo: "26 25 0:24 / " + root + " rw - cgroup2 cgroup2 rw\n", self: "0::/user.slice/rein.scope\n", pid: 4242}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cgroup.controllers", "cpu io memory\n")
	if _, err := probeV2(fs); err == nil || !strings.Contains(err.Error(), "does not offer the pids controller") {
		t.Errorf("no pids controller: %v", err)
	}
	write("cgroup.controllers", "cpu io memory pids\n")
	write("cgroup.procs", "4242\n17\n")
	// cgroup.subtree_control is missing: the write fails as the kernel's
	// EBUSY would, and another process shares the cgroup.
	if _, err := probeV2(fs); err == nil || !strings.Contains(err.Error(), "holds other processes") {
		t.Errorf("shared cgroup: %v", err)
	}
	if _, err := probeCgroups(cgroupFS{self: "0::/\n"}); err == nil || !strings.Contains(err.Error(), "no cgroup v2 hierarchy") {
		t.Errorf("no hierarchy: %v", err)
	}
}

func TestForCommand(t *testing.T) {
	lim := Limits{Processes: 100, Memory: 64 << 20}
	v2 := (&cgroupPlan{v2: true, pids: "/cg", memory: "/cg", swap: true}).forCommand(lim)
	name := filepath.Base(v2.pids)
	if !strings.HasPrefix(name, cgroupPrefix) || v2.memory != v2.pids {
		t.Fatalf("v2 dirs %q %q", v2.pids, v2.memory)
	}
	want := []cgroupDir{{Path: "/cg/" + name, Set: [][2]string{
		{"pids.max", "100"}, {"memory.max", "67108864"}, {"memory.swap.max", "0"}, {"memory.oom.group", "1"},
	}}}
	if diff := cmp.Diff(want, v2.dirs); diff != "" {
		t.Errorf("v2 (-want +got):\n%s", diff)
	}
	v1 := (&cgroupPlan{pids: "/p", memory: "/m"}).forCommand(Limits{Processes: Unlimited, Memory: 1 << 30})
	name = filepath.Base(v1.pids)
	want = []cgroupDir{
		{Path: "/p/" + name, Set: [][2]string{{"pids.max", "max"}}},
		{Path: "/m/" + name, Set: [][2]string{{"memory.limit_in_bytes", "1073741824"}}},
	}
	if diff := cmp.Diff(want, v1.dirs); diff != "" {
		t.Errorf("v1 (-want +got):\n%s", diff)
	}
}

// TestDroppedLaunchLeavesNoCgroup: a Launch that is never started nor
// released does not leave its cgroup behind once it is garbage.
func TestDroppedLaunchLeavesNoCgroup(t *testing.T) {
	if plan, why := cgroups(); plan == nil {
		t.Skipf("no cgroup here: %s", why)
	}
	dirs := func() []string {
		l, err := Prepare(Policy{Mode: Auto, Writable: []string{t.TempDir()}}, []string{"true"})
		if err != nil || l.cgroup == nil {
			t.Fatalf("Prepare: %+v, %v", l, err)
		}
		return []string{l.cgroup.pids, l.cgroup.memory}
	}()
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("the cgroup was not created: %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		removeOrphans()
		left := 0
		for _, d := range dirs {
			if _, err := os.Stat(d); err == nil {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dropped launch's cgroup is still there: %v", dirs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEventCount(t *testing.T) {
	p := filepath.Join(t.TempDir(), "memory.events")
	os.WriteFile(p, []byte("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n"), 0o644)
	if got := eventCount(p, "oom_kill"); got != 1 {
		t.Errorf("oom_kill = %d", got)
	}
	if got := eventCount(p, "max"); got != 12 {
		t.Errorf("max = %d", got)
	}
	if got := eventCount(p+".missing", "max"); got != 0 {
		t.Errorf("missing file = %d", got)
	}
}

// FuzzCgroupParse: mountinfo and /proc/self/cgroup parsing never panics.
func FuzzCgroupParse(f *testing.F) {
	f.Add(testMountinfo, testSelf)
	f.Add("1 2 3 4 \\0 - x", "0::")
	f.Fuzz(func(t *testing.T, mi, self string) {
		for _, m := range mounts(mi) {
			_ = dirOf(m, "/a")
		}
		for _, c := range []string{"", "pids", "memory"} {
			_, _ = ownPath(self, c)
		}
	})
}

// TestPlanLimits: what enforces each limit, and what the warning says,
// with and without a cgroup, as root or not, with or without the
// sandbox's user namespace.
func TestPlanLimits(t *testing.T) {
	none := func() (*cgroupPlan, string) { return nil, "no cgroup v2 hierarchy" }
	some := func() (*cgroupPlan, string) { return &cgroupPlan{v2: true, pids: "/cg", memory: "/cg"}, "" }
	lim := Limits{Processes: 100, Memory: 1 << 30, CPUTime: 1500 * time.Millisecond, FileSize: 1 << 20, OpenFiles: 64}
	base := childLimits{CPU: 2, FSize: 1 << 20, NoFile: 64}
	withData := base
	withData.Data = 1 << 30
	withNProc := withData
	withNProc.NProc = 100
	off := Limits{Processes: Unlimited, Memory: Unlimited, CPUTime: Unlimited, FileSize: Unlimited, OpenFiles: Unlimited}
	for _, tc := range []struct {
		name           string
		lim            Limits
		ns, root       bool
		probe          func() (*cgroupPlan, string)
		want           childLimits
		cgroup         bool
		warn, notWarns []string
	}{
		{"cgroup", lim, true, true, some, base, true, nil, nil},
		{"cgroup without namespaces", lim, false, false, some, base, true, nil, nil},
		{"unprivileged in a user namespace", lim, true, false, none, withNProc, false,
			[]string{"memory is limited per process (RLIMIT_DATA)", "because no cgroup v2 hierarchy", "systemd-run"}, []string{"process limit is not enforced"}},
		{"root", lim, true, true, none, withData, false,
			[]string{"process limit is not enforced (root is exempt from RLIMIT_NPROC)", "memory is limited per process"}, nil},
		{"landlock alone", lim, false, false, none, withData, false,
			[]string{"process limit is not enforced (no user namespace of its own)"}, nil},
		{"everything off", off, true, true, none, childLimits{}, false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, cg, warn := planLimitsWith(tc.lim, tc.ns, tc.root, tc.probe)
			if diff := cmp.Diff(tc.want, cl); diff != "" {
				t.Errorf("rlimits (-want +got):\n%s", diff)
			}
			if (cg != nil) != tc.cgroup {
				t.Errorf("cgroup %v, want %v", cg, tc.cgroup)
			}
			if len(tc.warn) == 0 && warn != "" {
				t.Errorf("warning %q, want none", warn)
			}
			for _, w := range tc.warn {
				if !strings.Contains(warn, w) {
					t.Errorf("warning %q lacks %q", warn, w)
				}
			}
			for _, w := range tc.notWarns {
				if strings.Contains(warn, w) {
					t.Errorf("warning %q says %q", warn, w)
				}
			}
		})
	}
}
