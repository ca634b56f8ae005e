package procreg

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// deadProc is a process that ran and is gone (reaped).
func deadProc(t *testing.T) Proc {
	t.Helper()
	cmd := exec.Command("sleep", "0.05")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := Proc{PID: cmd.Process.Pid}
	p.Start, _ = startTime(p.PID)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return p
}

// group starts sh in a process group of its own with a background child
// that left the group (setsid) and one that stayed; it returns the
// leader and a cleanup.
func group(t *testing.T) (*exec.Cmd, Proc) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30 & setsid sleep 31 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	p := Proc{PID: cmd.Process.Pid}
	p.Start, _ = startTime(p.PID)
	// Let the children start.
	deadline := time.Now().Add(5 * time.Second)
	for len(leftovers(p)) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return cmd, p
}

// writeRecord plants the file a rein with owner would have left.
func writeRecord(t *testing.T, r *Registry, name string, rec Record, leader *Proc) {
	t.Helper()
	b, _ := json.Marshal(rec)
	b = append(b, '\n')
	if leader != nil {
		l, _ := json.Marshal(struct {
			Leader Proc `json:"leader"`
		}{*leader})
		b = append(append(b, l...), '\n')
	}
	if err := os.WriteFile(filepath.Join(r.Dir(), name), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestBeginStartedEnd(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Begin("s1", "call_1")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Started(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	recs, err := r.list()
	if err != nil || len(recs) != 1 {
		t.Fatalf("list = %v, %v", recs, err)
	}
	got := recs[0]
	if got.Session != "s1" || got.Call != "call_1" || got.Owner.PID != os.Getpid() || got.Owner.Start == 0 || got.Leader == nil || got.Leader.PID != os.Getpid() || got.Leader.Start != got.Owner.Start || got.Boot == "" {
		t.Errorf("record = %+v", got)
	}
	// Its owner lives: a sweep leaves it alone.
	if swept, err := r.Sweep(); err != nil || len(swept) != 0 {
		t.Errorf("sweep of a living owner's record = %v, %v", swept, err)
	}
	e.End()
	if recs, _ := r.list(); len(recs) != 0 {
		t.Errorf("after End: %v", recs)
	}
}

// TestSweepKillsWhatADeadOwnerLeft: the group of a dead owner's call is
// killed (its members and the leader's descendants that left it), the
// record is kept as swept until its session takes it.
func TestSweepKillsWhatADeadOwnerLeft(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd, leader := group(t)
	if n := len(leftovers(leader)); n != 3 {
		t.Fatalf("the group has %d processes, want 3", n)
	}
	writeRecord(t, r, "1-1-1.json", Record{Session: "s1", Call: "c1", Owner: deadProc(t), Boot: r.boot, Began: time.Now()}, &leader)
	swept, err := r.Sweep()
	if err != nil || len(swept) != 1 {
		t.Fatalf("sweep = %v, %v", swept, err)
	}
	if s := swept[0].Swept; s == nil || s.Killed != 3 || s.Survivors != 0 {
		t.Errorf("swept = %+v, want 3 killed", s)
	}
	cmd.Wait()
	if left := leftovers(leader); len(left) != 0 {
		t.Errorf("left alive: %v", left)
	}
	// A second sweep does nothing more; the record waits for Take.
	if again, _ := r.Sweep(); len(again) != 0 {
		t.Errorf("second sweep = %v", again)
	}
	if other, _ := r.Take("s2"); len(other) != 0 {
		t.Errorf("Take of another session = %v", other)
	}
	taken, err := r.Take("s1")
	if err != nil || len(taken) != 1 || taken[0].Call != "c1" || taken[0].Swept.Killed != 3 {
		t.Errorf("Take = %+v, %v", taken, err)
	}
	if recs, _ := r.list(); len(recs) != 0 {
		t.Errorf("after Take: %v", recs)
	}
}

// TestSweepNeverKillsAReusedPid: a record whose leader's pid now belongs
// to another process (another start time), or whose owner started in
// another boot, kills nothing.
func TestSweepNeverKillsAReusedPid(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd, leader := group(t)
	reused := leader
	reused.Start-- // "the leader" started before this process did
	owner := deadProc(t)
	writeRecord(t, r, "1-1-1.json", Record{Session: "s1", Call: "c1", Owner: owner, Boot: r.boot}, &reused)
	writeRecord(t, r, "1-1-2.json", Record{Session: "s1", Call: "c2", Owner: owner, Boot: "another-boot"}, &leader)
	writeRecord(t, r, "1-1-3.json", Record{Session: "s1", Call: "c3", Owner: owner, Boot: r.boot}, nil) // died before the start
	swept, err := r.Sweep()
	if err != nil || len(swept) != 3 {
		t.Fatalf("sweep = %v, %v", swept, err)
	}
	for _, s := range swept {
		if s.Swept.Killed != 0 {
			t.Errorf("%s: killed %d", s.Call, s.Swept.Killed)
		}
	}
	if n := len(leftovers(leader)); n != 3 {
		t.Errorf("the unrelated group lost processes: %d left", n)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the unrelated leader was killed: %v", err)
	}
}

// TestTornRecords: a record cut in its first line predates any start and
// is ignored; a torn later line keeps what came before.
func TestTornRecords(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.Dir(), "a.json"), []byte(`{"session":"s1","ow`), 0o600)
	b, _ := json.Marshal(Record{Session: "s1", Call: "c1", Owner: deadProc(t), Boot: r.boot})
	os.WriteFile(filepath.Join(r.Dir(), "b.json"), append(b, []byte("\n{\"leader\":{\"pid\":12")...), 0o600)
	swept, err := r.Sweep()
	if err != nil || len(swept) != 1 || swept[0].Call != "c1" || swept[0].Leader != nil {
		t.Fatalf("sweep = %+v, %v", swept, err)
	}
}
