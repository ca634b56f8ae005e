package sandbox

import (
	"strings"
	"testing"
	"time"
)

func TestParseLimit(t *testing.T) {
	for _, tc := range []struct {
		limit   Limit
		in      any
		want    int64
		wantErr string
	}{
		{LimitMemory, "4GiB", 4 << 30, ""},
		{LimitMemory, "1.5 GiB", 3 << 29, ""},
		{LimitMemory, "512MiB", 512 << 20, ""},
		{LimitMemory, int64(1 << 30), 1 << 30, ""},
		{LimitMemory, "OFF", Unlimited, ""},
		{LimitMemory, int64(0), Unlimited, ""},
		{LimitMemory, "4GB", 0, "not a size"},
		{LimitMemory, "4 gib", 0, "not a size"},
		{LimitMemory, "-1GiB", 0, "not a size"},
		{LimitMemory, "1e9", 0, "not a size"},
		{LimitMemory, "NaNGiB", 0, "not a size"},
		{LimitMemory, "9999999TiB", 0, "too large"},
		{LimitMemory, "1MiB", 0, "too small"},
		{LimitMemory, true, 0, "give a size"},
		{LimitFileSize, "1KiB", 1 << 10, ""},
		{LimitFileSize, "100B", 0, "too small"},
		{LimitCPUTime, "90s", int64(90 * time.Second), ""},
		{LimitCPUTime, "1h30m", int64(90 * time.Minute), ""},
		{LimitCPUTime, "500ms", 0, "too short"},
		{LimitCPUTime, "soon", 0, "not a duration"},
		{LimitCPUTime, int64(60), 0, "give a duration"},
		{LimitProcesses, int64(1024), 1024, ""},
		{LimitProcesses, int64(7), 0, "at least 8"},
		{LimitProcesses, int64(1 << 40), 0, "out of range"},
		{LimitProcesses, "1024", 0, "whole number"},
		{LimitOpenFiles, int64(15), 0, "at least 16"},
		{LimitOpenFiles, "off", Unlimited, ""},
		{"bogus", int64(1), 0, "unknown limit"},
	} {
		got, err := ParseLimit(tc.limit, tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseLimit(%s, %#v) = %d, %v; want an error containing %q", tc.limit, tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLimit(%s, %#v) = %d, %v; want %d", tc.limit, tc.in, got, err, tc.want)
		}
	}
}

func TestLimitsValue(t *testing.T) {
	l := Limits{Processes: 1024, Memory: 2 << 30, CPUTime: 90 * time.Second, FileSize: 3 << 29, OpenFiles: Unlimited}
	for n, want := range map[Limit]string{
		LimitProcesses: "1,024 processes", LimitMemory: "2 GiB", LimitCPUTime: "1m30s",
		LimitFileSize: "1.5 GiB", LimitOpenFiles: "off",
	} {
		if got := l.Value(n); got != want {
			t.Errorf("Value(%s) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{time.Hour: "1h", 10 * time.Minute: "10m", 90 * time.Minute: "1h30m", 2*time.Hour + 5*time.Second: "2h0m5s", time.Second: "1s"} {
		if got := (Limits{CPUTime: d}).Value(LimitCPUTime); got != want {
			t.Errorf("Value(cpu_time %v) = %q, want %q", d, got, want)
		}
	}
	if d := DefaultLimits(); d.Memory < minDefaultMemory || d.Memory%(1<<20) != 0 || d.Processes != 1024 {
		t.Errorf("DefaultLimits() = %+v", d)
	}
	if got := (Limits{}).Resolved(); got != DefaultLimits() {
		t.Errorf("zero Limits resolve to %+v, want the defaults", got)
	}
	off := Limits{Memory: Unlimited}
	if !(Limits{Memory: 1}).Tighter(LimitMemory, off) || off.Tighter(LimitMemory, Limits{Memory: 1}) {
		t.Error("Tighter must treat off as infinite")
	}
}

// FuzzParseSize: any input yields a size or an error, never a panic, and
// a size is never negative.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4GiB", "1.5 MiB", "0B", "off", "1e3", "-1", " 7 TiB ", "99999999999999999999GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n < 0 {
			t.Errorf("ParseSize(%q) = %d", s, n)
		}
		for _, l := range AllLimits {
			if v, err := ParseLimit(l, s); err == nil && v < 0 && v != Unlimited {
				t.Errorf("ParseLimit(%s, %q) = %d", l, s, v)
			}
		}
	})
}
