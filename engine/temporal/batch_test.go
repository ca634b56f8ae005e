package temporal

import (
	"strings"
	"testing"
)

func TestParseTasks(t *testing.T) {
	tasks, lines, err := ParseTasks("t.jsonl", []byte("{\"prompt\":\"a\"}\n\n  {\"prompt\":\"b\",\"id\":\"x\",\"workspace\":\"w\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || lines[0] != 1 || lines[1] != 3 || tasks[1].ID != "x" || tasks[1].Workspace != "w" {
		t.Fatalf("tasks %+v lines %v", tasks, lines)
	}
	if !strings.HasPrefix(tasks[0].ID, "batch-") || !strings.HasSuffix(tasks[0].ID, "-1") {
		t.Errorf("default id %q", tasks[0].ID)
	}
	again, _, _ := ParseTasks("t.jsonl", []byte("{\"prompt\":\"a\"}\n\n  {\"prompt\":\"b\",\"id\":\"x\",\"workspace\":\"w\"}\n"))
	other, _, _ := ParseTasks("u.jsonl", []byte("{\"prompt\":\"a\"}\n"))
	if again[0].ID != tasks[0].ID || other[0].ID == tasks[0].ID {
		t.Errorf("ids: same file %q/%q, other file %q", tasks[0].ID, again[0].ID, other[0].ID)
	}
	for _, tt := range []struct{ in, want string }{
		{"", "no tasks"},
		{"{\"prompt\":\"\"}", ":1: prompt is empty"},
		{"[1,2]", ":1: not a task object"},
		{"{\"prompt\":\"a\",\"promt\":1}", "unknown field"},
		{"{\"prompt\":\"a\"} {\"prompt\":\"b\"}", "one JSON object per line"},
		{"{\"prompt\":\"a\",\"id\":\"x\"}\n{\"prompt\":\"b\",\"id\":\"x\"}", ":2: id \"x\" is also the id of line 1"},
		{"{\"prompt\":\"a\"", ":1: not a task object"},
		{strings.Repeat("x", maxBatchLine+10), "at most"},
	} {
		if _, _, err := ParseTasks("t.jsonl", []byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseTasks(%.30q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseTasks: any file gives tasks with prompts and distinct ids, or
// an error naming the file; never a panic.
func FuzzParseTasks(f *testing.F) {
	f.Add([]byte("{\"prompt\":\"a\"}\n{\"prompt\":\"b\",\"id\":\"x\"}\n"))
	f.Add([]byte("{\"prompt\":\"\\u0000\",\"workspace\":\"../..\"}"))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tasks, lines, err := ParseTasks("f.jsonl", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(tasks) == 0 || len(tasks) != len(lines) {
			t.Fatalf("%d tasks, %d lines", len(tasks), len(lines))
		}
		seen := map[string]bool{}
		for _, task := range tasks {
			if task.Prompt == "" || task.ID == "" || seen[task.ID] {
				t.Fatalf("bad task %+v", task)
			}
			seen[task.ID] = true
		}
	})
}
