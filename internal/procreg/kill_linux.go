package procreg

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// sweepBound caps how long a sweep keeps killing one call's processes.
const sweepBound = 2 * time.Second

// killLeftovers SIGKILLs what is left of the process group leader led —
// its members, and the leader's descendants while it lives — until none
// is left or sweepBound passes, and returns how many it killed and how
// many survived. Only processes that started after the leader count: a
// pid reused since is never taken for one of them. With no start time
// recorded nothing is killed.
func killLeftovers(leader Proc) (killed, survivors int) {
	if leader.PID <= 1 || leader.Start == 0 {
		return 0, 0
	}
	seen := map[int]bool{}
	deadline := time.Now().Add(sweepBound)
	for {
		pids := leftovers(leader)
		if len(pids) == 0 {
			return len(seen), 0
		}
		if time.Now().After(deadline) {
			return len(seen), len(pids)
		}
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				seen[pid] = true
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// leftovers lists the living processes of leader's call.
func leftovers(leader Proc) []int {
	if f, ok := statFields(leader.PID); ok {
		if start, err := strconv.ParseUint(f[19], 10, 64); err != nil || start != leader.Start {
			// The pid belongs to another process now. Linux does not
			// reuse a pid while a process group of that number exists,
			// so the call's group is gone.
			return nil
		}
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	type info struct {
		ppid int
		live bool
	}
	procs := map[int]info{}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		f, ok := statFields(pid)
		if !ok {
			continue
		}
		live := f[0] != "Z" && f[0] != "X"
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		start, _ := strconv.ParseUint(f[19], 10, 64)
		procs[pid] = info{ppid, live}
		if live && start >= leader.Start && (pgrp == leader.PID || pid == leader.PID) {
			out = append(out, pid)
		}
	}
	// Descendants of a living leader that left its group (setsid).
	if l, ok := procs[leader.PID]; ok && l.live {
		children := map[int][]int{}
		for pid, in := range procs {
			children[in.ppid] = append(children[in.ppid], pid)
		}
		have := map[int]bool{}
		for _, pid := range out {
			have[pid] = true
		}
		queue := []int{leader.PID}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, c := range children[p] {
				if !have[c] && procs[c].live {
					have[c] = true
					out = append(out, c)
				}
				queue = append(queue, c)
			}
		}
	}
	return out
}

// processExists reports whether a process with pid exists.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
