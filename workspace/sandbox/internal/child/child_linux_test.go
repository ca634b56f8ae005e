package child

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// onThrowawayThread runs f on an OS thread of its own that is never
// unlocked, so the Go runtime ends the thread when f returns: capability
// changes made there cannot reach the rest of the test.
func onThrowawayThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		f()
	}()
	<-done
}

// effective reports whether capability is in the calling thread's
// effective set.
func effective(t *testing.T, capability int) bool {
	hdr := capHeader{version: capVersion3}
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		t.Fatal(e)
	}
	return data[capability/32].effective&(1<<(capability%32)) != 0
}

// TestDropCap: the capability leaves the thread's sets and its bounding
// set (so no exec brings it back), and dropping one the thread lacks is
// no error.
func TestDropCap(t *testing.T) {
	onThrowawayThread(func() {
		had := effective(t, capSysPtrace)
		if err := dropCap(capSysPtrace); err != nil {
			t.Errorf("dropCap: %v", err)
			return
		}
		if effective(t, capSysPtrace) {
			t.Errorf("CAP_SYS_PTRACE still effective (had it: %v)", had)
		}
		const prCapbsetRead = 23
		if r, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapbsetRead, capSysPtrace, 0, 0, 0, 0); e != 0 || r != 0 {
			t.Errorf("CAP_SYS_PTRACE still in the bounding set (%d, %v)", r, e)
		}
		if err := dropCap(capSysPtrace); err != nil {
			t.Errorf("dropping it again: %v", err)
		}
	})
}

// TestSetRlimits: each limit only lowers (a value above the hard limit is
// clamped to it), the CPU hard limit is CPUGrace above the soft one, and
// CAP_SYS_RESOURCE is gone afterwards.
func TestSetRlimits(t *testing.T) {
	var before syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &before); err != nil {
		t.Fatal(err)
	}
	onThrowawayThread(func() {
		// Large enough not to hamper the test process (rlimits are per
		// process), small enough to be below an unlimited hard limit.
		if err := setRlimits(Limits{FSize: 1 << 50, CPU: 1 << 30}); err != nil {
			t.Errorf("setRlimits: %v", err)
			return
		}
		if effective(t, capSysResource) {
			t.Error("CAP_SYS_RESOURCE still effective")
		}
	})
	var fsize, cpu syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &fsize); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Getrlimit(syscall.RLIMIT_CPU, &cpu); err != nil {
		t.Fatal(err)
	}
	if want := min(1<<50, before.Max); fsize.Cur != want || fsize.Max != want {
		t.Errorf("RLIMIT_FSIZE = %d/%d, want %d/%d", fsize.Cur, fsize.Max, want, want)
	}
	if cpu.Max != cpu.Cur+uint64(CPUGrace.Seconds()) && cpu.Max != cpu.Cur {
		t.Errorf("RLIMIT_CPU = %d/%d: the hard limit is not the grace above the soft one (or clamped)", cpu.Cur, cpu.Max)
	}
}

// TestJoinCgroups: with join, "0" is written to each descriptor (the
// kernel moves the writer into that cgroup.procs' cgroup); the
// descriptors are closed either way, so the command cannot hold them.
func TestJoinCgroups(t *testing.T) {
	for _, join := range []bool{true, false} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		fd, err := syscall.Dup(int(w.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if err := joinCgroups([]int{fd}, join); err != nil {
			t.Fatalf("join=%v: %v", join, err)
		}
		if _, err := syscall.Write(fd, []byte("x")); err != syscall.EBADF {
			t.Errorf("join=%v: the descriptor is still open (write: %v)", join, err)
		}
		buf := make([]byte, 8)
		n, _ := r.Read(buf)
		r.Close()
		if got, want := string(buf[:n]), map[bool]string{true: "0", false: ""}[join]; got != want {
			t.Errorf("join=%v: wrote %q, want %q", join, got, want)
		}
	}
	if err := joinCgroups([]int{1 << 20}, true); err == nil || !strings.Contains(err.Error(), "enter the command's cgroup") {
		t.Errorf("a bad descriptor: %v", err)
	}
}

// TestConfigWire: the marker round-trips, and its field names are the
// ones the sandbox package writes.
func TestConfigWire(t *testing.T) {
	c := Config{ExeFD: 3, RulesetFD: 6, RulesetFlags: 2, Limits: Limits{CPU: 1, FSize: 2, NoFile: 3, NProc: 4, Data: 5}, CgroupFDs: []int{4, 5}, CgroupJoin: true}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"exe_fd":3,"ruleset_fd":6,"ruleset_flags":2,"limits":{"cpu":1,"fsize":2,"nofile":3,"nproc":4,"data":5},"cgroup_fds":[4,5],"cgroup_join":true}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("wire form (-want +got):\n%s", diff)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestRunRefuses re-executes this test binary as the child: a marker it
// cannot read, a missing command or a program that does not exist make
// it exit with ExitCode and say why, the command never running.
func TestRunRefuses(t *testing.T) {
	flag := t.TempDir() + "/ran"
	for _, tt := range []struct {
		marker, want string
		args         []string
	}{
		{"{", "bad " + EnvMarker, []string{"rein-sandbox", "/usr/bin/touch", "touch", flag}},
		{`{"limits":{}}`, "no command to run", []string{"rein-sandbox"}},
		{`{"limits":{}}`, "exec /nonexistent", []string{"rein-sandbox", "/nonexistent", "x"}},
		{`{"ruleset_fd":99,"limits":{}}`, "apply Landlock ruleset", []string{"rein-sandbox", "/usr/bin/touch", "touch", flag}},
	} {
		cmd := &exec.Cmd{Path: "/proc/self/exe", Args: tt.args, Env: []string{EnvMarker + "=" + tt.marker}}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitCode || !strings.Contains(string(out), "rein sandbox: "+tt.want) {
			t.Errorf("%s: %v, output %q; want exit %d and %q", tt.marker, err, out, ExitCode, tt.want)
		}
	}
	if _, err := os.Stat(flag); err == nil {
		t.Error("the command ran")
	}
}

// TestApplyEnforces: apply on a thread of its own, with a ruleset that
// handles writing files and allows it nowhere, leaves that thread unable
// to open a file for writing, with no-new-privileges set, the ruleset
// descriptor close-on-exec and the rlimit in place.
func TestApplyEnforces(t *testing.T) {
	const accessFSWriteFile = 1 << 1
	attr := struct{ handledAccessFS uint64 }{accessFSWriteFile}
	fd, _, e := syscall.RawSyscall(sysLandlockRestrictSelf-2, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		t.Skipf("no Landlock here: landlock_create_ruleset: %v", e)
	}
	defer syscall.Close(int(fd))
	target := t.TempDir() + "/f"
	var before syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &before); err != nil {
		t.Fatal(err)
	}
	onThrowawayThread(func() {
		if err := apply(Config{RulesetFD: int(fd), Limits: Limits{NoFile: before.Cur}}); err != nil {
			t.Errorf("apply: %v", err)
			return
		}
		if _, err := os.Create(target); !os.IsPermission(err) {
			t.Errorf("create under the ruleset: %v, want permission denied", err)
		}
		const prGetNoNewPrivs = 39
		if r, _, _ := syscall.RawSyscall6(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0, 0, 0, 0); r != 1 {
			t.Errorf("no-new-privileges = %d", r)
		}
	})
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFD, 0)
	if e != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("the ruleset descriptor would reach the command (flags %#x, %v)", flags, e)
	}
	// The rest of the process is not confined: only the thread that
	// execs the command is.
	if f, err := os.Create(target); err != nil {
		t.Errorf("create outside the thread: %v", err)
	} else {
		f.Close()
	}
	onThrowawayThread(func() {
		if err := apply(Config{RulesetFD: 1 << 20}); err == nil || !strings.Contains(err.Error(), "apply Landlock ruleset") {
			t.Errorf("a bad ruleset descriptor: %v", err)
		}
	})
}
