package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/tool"
)

// memFS is the in-memory workspace the fake tools share. Every operation
// takes the lock only for one map access and sleeps a few microseconds
// between accesses, so calls that are wrongly run together interleave.
type memFS struct {
	mu    sync.Mutex
	files map[string]string
}

func newMemFS() *memFS {
	return &memFS{files: map[string]string{"a.txt": "A", "d/b.txt": "B", "d/c.txt": "C"}}
}

func jitter() { time.Sleep(time.Duration(rand.IntN(20)) * time.Microsecond) }

func (fs *memFS) get(p string) (string, bool) {
	p = path.Clean(p)
	jitter()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	s, ok := fs.files[p]
	return s, ok
}

func (fs *memFS) set(p, s string) {
	p = path.Clean(p)
	jitter()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.files[p] = s
}

// list renders the files under dir ("." for all) with their contents.
func (fs *memFS) list(dir string) string {
	dir = path.Clean(dir)
	jitter()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var lines []string
	for p, s := range fs.files {
		if dir == "." || strings.HasPrefix(p, dir+"/") {
			lines = append(lines, p+"="+s)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, ";")
}

func (fs *memFS) snapshot() map[string]string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make(map[string]string, len(fs.files))
	for k, v := range fs.files {
		out[k] = v
	}
	return out
}

// fakeArgs is the union of the fake tools' arguments.
type fakeArgs struct {
	Path    string   `json:"path"`
	Content string   `json:"content"`
	Reads   []string `json:"reads"`
	Writes  []string `json:"writes"`
	Files   []string `json:"files"`
	X       int      `json:"x"`
}

func fakeTool(name string, e tool.Effects, a tool.Annotations, fn func(fakeArgs) string) *fnTool {
	t := newTool(name, func(_ context.Context, raw json.RawMessage) (*tool.Result, error) {
		var args fakeArgs
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, err
		}
		return &tool.Result{Content: fn(args)}, nil
	})
	t.spec.Effects, t.spec.Annotations = e, a
	return t
}

// fakeTools are in-memory stand-ins for rein's tool kinds, declaring the
// effects the real ones do.
func fakeTools(fs *memFS) []tool.Tool {
	readOnly := true
	return []tool.Tool{
		fakeTool("read_file", tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}, tool.Annotations{},
			func(a fakeArgs) string { s, ok := fs.get(a.Path); return fmt.Sprintf("%s:%v", s, ok) }),
		fakeTool("write_file", tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}, tool.Annotations{},
			func(a fakeArgs) string { fs.set(a.Path, a.Content); return "wrote " + a.Path }),
		fakeTool("edit_file", tool.Effects{ReadsFiles: true, WritesFiles: true, PathArgs: []string{"path"}}, tool.Annotations{},
			func(a fakeArgs) string {
				s, _ := fs.get(a.Path)
				fs.set(a.Path, s+a.Content)
				return "was " + s
			}),
		fakeTool("list_dir", tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}, tool.Annotations{},
			func(a fakeArgs) string {
				if a.Path == "" {
					a.Path = "."
				}
				return fs.list(a.Path)
			}),
		// multi_write names its files inside the arguments, as
		// apply_patch does, through Effects.Paths.
		fakeTool("multi_write", tool.Effects{ReadsFiles: true, WritesFiles: true, Paths: func(raw json.RawMessage) ([]string, error) {
			var a fakeArgs
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, err
			}
			return a.Files, nil
		}}, tool.Annotations{},
			func(a fakeArgs) string {
				var b strings.Builder
				for _, p := range a.Files {
					s, _ := fs.get(p)
					b.WriteString(s)
					fs.set(p, s+a.Content)
				}
				return b.String()
			}),
		fakeTool("run_command", tool.Effects{Exec: true, CommandArg: "command"}, tool.Annotations{},
			func(a fakeArgs) string {
				var b strings.Builder
				for _, p := range a.Reads {
					s, _ := fs.get(p)
					b.WriteString(s + ",")
				}
				for _, p := range a.Writes {
					fs.set(p, a.Content)
				}
				return b.String()
			}),
		fakeTool("mcp_read", tool.Effects{External: true}, tool.Annotations{ReadOnlyHint: &readOnly},
			func(fakeArgs) string { return fs.list(".") }),
		fakeTool("mcp_write", tool.Effects{External: true, Network: true}, tool.Annotations{},
			func(a fakeArgs) string { fs.set(a.Path, a.Content); return fs.list(".") }),
		fakeTool("calc", tool.Effects{}, tool.Annotations{},
			func(a fakeArgs) string { return strconv.Itoa(2 * a.X) }),
	}
}

var fakePaths = []string{"a.txt", "d/b.txt", "d/c.txt", "./a.txt"}

// randomCall is one random call of the fake tools over fakePaths.
func randomCall(r *rand.Rand, i int) model.ToolCall {
	pick := func() string { return fakePaths[r.IntN(len(fakePaths))] }
	some := func() []string {
		var ps []string
		for range r.IntN(3) {
			ps = append(ps, pick())
		}
		return ps
	}
	content := "v" + strconv.Itoa(i)
	var name string
	var a any
	switch k := r.IntN(10); k {
	case 0, 1:
		name, a = "read_file", map[string]any{"path": pick()}
	case 2, 3:
		name, a = "write_file", map[string]any{"path": pick(), "content": content}
	case 4:
		name, a = "edit_file", map[string]any{"path": pick(), "content": content}
	case 5:
		dirs := []string{"d", ".", "", "d/"}
		name, a = "list_dir", map[string]any{"path": dirs[r.IntN(len(dirs))]}
	case 6:
		name, a = "run_command", map[string]any{"reads": some(), "writes": some(), "content": content}
	case 7:
		name, a = "multi_write", map[string]any{"files": some(), "content": content}
	case 8:
		if r.IntN(2) == 0 {
			name, a = "mcp_read", map[string]any{}
		} else {
			name, a = "mcp_write", map[string]any{"path": pick(), "content": content}
		}
	default:
		name, a = "calc", map[string]any{"x": i}
	}
	args, _ := json.Marshal(a)
	return call("c"+strconv.Itoa(i), name, string(args))
}

// runBatch runs one turn of calls against a fresh memFS and returns the
// results and the final files.
func runBatch(t *testing.T, calls []model.ToolCall, fanOut FanOut, maxParallel int) ([]model.ToolResult, map[string]string) {
	t.Helper()
	fs := newMemFS()
	p := modeltest.NewScripted(modeltest.ToolCalls(calls...), modeltest.Text("done")).WithoutRecording()
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, fakeTools(fs)...), FanOut: fanOut,
		MaxParallel: maxParallel, RepeatLimit: 1 << 20})
	c := NewConversation("s")
	out, err := a.RunToEnd(context.Background(), c, "go")
	if err != nil || out.Kind != Complete {
		t.Fatalf("run: %v %+v", err, out)
	}
	return toolMessages(c.Messages()), fs.snapshot()
}

// TestScheduleMatchesSequential is the scheduling property: a random batch
// of reads, writes, edits, listings, commands, external and pure calls over
// a few paths gives, run concurrently under the schedule, the same results
// and the same final files as run one by one in call order.
// REIN_SCHEDULE_SEED replays one seed; REIN_SCHEDULE_BATCHES changes the
// count.
func TestScheduleMatchesSequential(t *testing.T) {
	batches := 1000
	if s := os.Getenv("REIN_SCHEDULE_BATCHES"); s != "" {
		batches, _ = strconv.Atoi(s)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("REIN_SCHEDULE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (REIN_SCHEDULE_SEED=%d replays it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 9))
	for b := range batches {
		n := 2 + r.IntN(7)
		calls := make([]model.ToolCall, n)
		for i := range calls {
			calls[i] = randomCall(r, i)
		}
		wantRes, wantFS := runBatch(t, calls, Sequential{}, 0)
		gotRes, gotFS := runBatch(t, calls, nil, 1+r.IntN(8))
		if d := cmp.Diff(wantRes, gotRes); d != "" {
			t.Fatalf("seed %d batch %d: results differ from sequential (-want +got):\n%s\ncalls: %s", seed, b, d, showCalls(calls))
		}
		if d := cmp.Diff(wantFS, gotFS); d != "" {
			t.Fatalf("seed %d batch %d: files differ from sequential (-want +got):\n%s\ncalls: %s", seed, b, d, showCalls(calls))
		}
	}
}

func showCalls(calls []model.ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "\n  %s %s", c.Name, c.Args)
	}
	return b.String()
}

// TestScheduleWriteThenRead is the reproduction: a slow write and a
// read of the same file in one turn. Unscheduled, the read starts at once
// and sees the old content; scheduled, it waits for the write.
func TestScheduleWriteThenRead(t *testing.T) {
	fs := newMemFS()
	tools := fakeTools(fs)
	slow := fakeTool("write_file", tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}, tool.Annotations{},
		func(a fakeArgs) string { time.Sleep(5 * time.Millisecond); fs.set(a.Path, a.Content); return "wrote" })
	tools[1] = slow
	p := modeltest.NewScripted(modeltest.ToolCalls(
		call("w", "write_file", `{"path":"a.txt","content":"NEW"}`),
		call("r", "read_file", `{"path":"./a.txt"}`),
		call("o", "read_file", `{"path":"d/b.txt"}`),
	), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, tools...)})
	c := NewConversation("s")
	if _, err := a.RunToEnd(context.Background(), c, "go"); err != nil {
		t.Fatal(err)
	}
	res := toolMessages(c.Messages())
	if got := res[1].Content; got != "NEW:true" {
		t.Errorf("read after write got %q, want NEW:true", got)
	}
	if got := res[2].Content; got != "B:true" {
		t.Errorf("unrelated read got %q", got)
	}
}

// levelsFanOut records the size of every FanOut.Run, to see the levels.
type levelsFanOut struct {
	mu    sync.Mutex
	sizes []int
}

func (f *levelsFanOut) Run(ctx context.Context, n, limit int, fn func(context.Context, int)) {
	f.mu.Lock()
	f.sizes = append(f.sizes, n)
	f.mu.Unlock()
	goroutines{}.Run(ctx, n, limit, fn)
}

func TestScheduleLevels(t *testing.T) {
	readOnly := true
	specs := map[string]tool.Spec{}
	for _, tl := range fakeTools(newMemFS()) {
		specs[tl.Spec().Name] = tl.Spec()
	}
	specs["git_status"] = tool.Spec{Effects: tool.Effects{ReadsFiles: true}} // no paths: every path
	specs["fetch"] = tool.Spec{Effects: tool.Effects{Network: true}}
	specs["mcp_ro"] = tool.Spec{Effects: tool.Effects{External: true}, Annotations: tool.Annotations{ReadOnlyHint: &readOnly}}
	specs["bad_paths"] = tool.Spec{Effects: tool.Effects{WritesFiles: true, Paths: func(json.RawMessage) ([]string, error) {
		panic("broken")
	}}}
	type c struct{ name, args string }
	tests := []struct {
		name  string
		calls []c
		want  []int
	}{
		{"reads run together", []c{{"read_file", `{"path":"a.txt"}`}, {"read_file", `{"path":"a.txt"}`}, {"list_dir", `{"path":"."}`}}, []int{0, 0, 0}},
		{"write then read same file", []c{{"write_file", `{"path":"a.txt"}`}, {"read_file", `{"path":"a.txt"}`}}, []int{0, 1}},
		{"read then write same file", []c{{"read_file", `{"path":"a.txt"}`}, {"write_file", `{"path":"a.txt"}`}}, []int{0, 1}},
		{"writes to different files", []c{{"write_file", `{"path":"a.txt"}`}, {"write_file", `{"path":"d/b.txt"}`}}, []int{0, 0}},
		{"spelling does not hide a path", []c{{"write_file", `{"path":"d/../a.txt"}`}, {"read_file", `{"path":"A.TXT"}`}, {"read_file", `{"path":"d\\b.txt"}`}}, []int{0, 1, 0}},
		{"a directory contains its files", []c{{"write_file", `{"path":"d/b.txt"}`}, {"list_dir", `{"path":"d"}`}, {"list_dir", `{"path":"dd"}`}}, []int{0, 1, 0}},
		{"missing path is the workspace", []c{{"write_file", `{"path":"x"}`}, {"list_dir", `{}`}}, []int{0, 1}},
		{"absolute and relative overlap", []c{{"write_file", `{"path":"/w/a.txt"}`}, {"read_file", `{"path":"b.txt"}`}, {"read_file", `{"path":"/v/b.txt"}`}}, []int{0, 1, 0}},
		{"outside the workspace is everything", []c{{"write_file", `{"path":"../x"}`}, {"read_file", `{"path":"b.txt"}`}}, []int{0, 1}},
		{"no declared paths is everything", []c{{"write_file", `{"path":"x"}`}, {"git_status", `{}`}}, []int{0, 1}},
		{"Paths panicking is everything", []c{{"read_file", `{"path":"x"}`}, {"bad_paths", `{}`}}, []int{0, 1}},
		{"Paths names the files", []c{{"multi_write", `{"files":["a.txt"]}`}, {"read_file", `{"path":"d/b.txt"}`}, {"read_file", `{"path":"a.txt"}`}}, []int{0, 0, 1}},
		{"commands run alone", []c{{"read_file", `{"path":"a.txt"}`}, {"run_command", `{}`}, {"read_file", `{"path":"b.txt"}`}}, []int{0, 1, 2}},
		{"pure calls run beside anything", []c{{"run_command", `{}`}, {"calc", `{"x":1}`}, {"mcp_write", `{}`}, {"calc", `{"x":2}`}}, []int{0, 0, 1, 0}},
		{"read-only MCP reads everything", []c{{"mcp_ro", `{}`}, {"read_file", `{"path":"a.txt"}`}, {"write_file", `{"path":"z"}`}}, []int{0, 0, 1}},
		{"MCP without a hint is exclusive", []c{{"read_file", `{"path":"a.txt"}`}, {"mcp_write", `{}`}, {"fetch", `{}`}}, []int{0, 1, 2}},
		{"network alone touches no file", []c{{"write_file", `{"path":"a.txt"}`}, {"fetch", `{}`}, {"fetch", `{}`}}, []int{0, 0, 0}},
		{"unknown spec is exclusive", []c{{"read_file", `{"path":"a.txt"}`}, {"?", `{}`}}, []int{0, 1}},
		{"level is one past the highest conflict", []c{{"write_file", `{"path":"a.txt"}`}, {"read_file", `{"path":"a.txt"}`}, {"write_file", `{"path":"d/b.txt"}`}, {"edit_file", `{"path":"a.txt"}`}}, []int{0, 1, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := make([]access, len(tt.calls))
			for i, cl := range tt.calls {
				spec, ok := specs[cl.name]
				acc[i] = callAccess(spec, ok, json.RawMessage(cl.args))
			}
			got := make([]int, len(acc))
			for l, group := range scheduleLevels(acc) {
				for _, i := range group {
					got[i] = l
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("levels (-want +got):\n%s", d)
			}
		})
	}
}

// TestScheduleLevelsThroughFanOut checks that the FanOut seam sees one Run
// per level, so an engine replacing it inherits the ordering.
func TestScheduleLevelsThroughFanOut(t *testing.T) {
	fs := newMemFS()
	f := &levelsFanOut{}
	p := modeltest.NewScripted(modeltest.ToolCalls(
		call("1", "read_file", `{"path":"a.txt"}`),
		call("2", "read_file", `{"path":"d/b.txt"}`),
		call("3", "write_file", `{"path":"a.txt","content":"x"}`),
		call("4", "calc", `{"x":1}`),
		call("5", "read_file", `{"path":"a.txt"}`),
	), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, fakeTools(fs)...), FanOut: f})
	if _, err := a.RunToEnd(context.Background(), NewConversation("s"), "go"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{3, 1, 1}, f.sizes); d != "" {
		t.Errorf("FanOut.Run sizes (-want +got):\n%s", d)
	}
}

// TestScheduleCancelStopsLaterLevels: a call that ends the run (here by
// cancelling it) keeps the calls that had to wait for it from starting;
// they are recorded as interrupted.
func TestScheduleCancelStopsLaterLevels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reads atomic.Int32
	write := newTool("write_file", func(context.Context, json.RawMessage) (*tool.Result, error) {
		cancel()
		return &tool.Result{Content: "wrote"}, nil
	})
	write.spec.Effects = tool.Effects{WritesFiles: true, PathArgs: []string{"path"}}
	read := newTool("read_file", func(context.Context, json.RawMessage) (*tool.Result, error) {
		reads.Add(1)
		return &tool.Result{Content: "read"}, nil
	})
	read.spec.Effects = tool.Effects{ReadsFiles: true, PathArgs: []string{"path"}}
	p := modeltest.NewScripted(modeltest.ToolCalls(
		call("w", "write_file", `{"path":"a.txt"}`),
		call("r", "read_file", `{"path":"a.txt"}`),
	), modeltest.Text("done"))
	a := mustAgent(t, Config{Provider: p, Tools: mustSet(t, write, read)})
	c := NewConversation("s")
	out, _ := a.RunToEnd(ctx, c, "go")
	if out.Kind != Cancelled {
		t.Errorf("outcome %s, want cancelled", out.Kind)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the read of the next level ran %d times after the cancellation", n)
	}
	res := toolMessages(c.Messages())
	if len(res) != 2 || !res[1].IsError || !strings.Contains(res[1].Content, "interrupt") {
		t.Errorf("results %+v; want the read recorded as interrupted", res)
	}
	checkHistory(t, c.Messages())
}

func TestOverlap(t *testing.T) {
	for _, tt := range []struct {
		p, q string
		want bool
	}{
		{".", "a", true}, {"a", "a", true}, {"a", "a/b", true}, {"a/b", "a", true},
		{"a", "ab", false}, {"ab", "a", false}, {"a/b", "a/c", false},
		{"/", "/x", true}, {"/x", "x", true}, {"/x/y", "/x", true}, {"/x", "/y", false},
	} {
		if got := overlap(normalisePath(tt.p), normalisePath(tt.q)); got != tt.want {
			t.Errorf("overlap(%q, %q) = %v, want %v", tt.p, tt.q, got, tt.want)
		}
	}
}
