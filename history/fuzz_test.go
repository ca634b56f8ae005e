package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
)

// fuzzHistory decodes a history from data, one message or call round per
// byte: user and assistant text of varying sizes (also several users in a
// row, or a history that starts with the assistant), and assistant turns
// calling one to four tools followed by their results. Tool results always
// follow their calls, as the agent guarantees.
func fuzzHistory(data []byte) []model.Message {
	var msgs []model.Message
	call := 0
	for _, op := range data {
		if len(msgs) >= 400 {
			break
		}
		size := int(op>>3) * 37
		switch op % 5 {
		case 0, 1:
			msgs = append(msgs, model.UserText(text("u", size)))
		case 2:
			msgs = append(msgs, model.AssistantText(text("a", size)))
		default:
			ids := make([]string, 1+int(op>>6))
			for i := range ids {
				call++
				ids[i] = fmt.Sprintf("c%d", call)
			}
			msgs = append(msgs, ac(ids...), tr(size, ids...))
		}
	}
	return msgs
}

func FuzzWindow(f *testing.F) {
	f.Add([]byte{0, 3, 2, 0, 4, 4, 2}, uint16(40), uint8(0))
	f.Add([]byte{2, 3, 3, 3, 1, 0, 255, 254}, uint16(10), uint8(2))
	f.Add([]byte(strings.Repeat("\x00\x83\x43\x02", 50)), uint16(900), uint8(17))
	f.Fuzz(func(t *testing.T, data []byte, budget uint16, maxMsgs uint8) {
		hist := fuzzHistory(data)
		if len(hist) == 0 {
			return
		}
		c := agent.NewConversation("fuzz", hist...)
		if err := checkWindow(c, Window{MaxMessages: int(maxMsgs)}, int(budget)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSummarize runs Summarize on decoded histories, with a summary
// restored from a (possibly corrupt) journal and a model answering with
// arbitrary text: the result must keep pairs, start with a user message
// when it changed anything, and fit the budget whenever the last turn can.
func FuzzSummarize(f *testing.F) {
	f.Add([]byte{0, 3, 2, 0, 4, 4, 2, 0, 3, 3, 2}, uint16(300), int16(3), "the summary")
	f.Add([]byte(strings.Repeat("\x00\x83\x43\x02\xfa", 60)), uint16(2000), int16(0), "")
	f.Add([]byte{3, 3, 3}, uint16(1), int16(-1), "\xff\xfe")
	f.Fuzz(func(t *testing.T, data []byte, budget uint16, summarized int16, summary string) {
		hist := fuzzHistory(data)
		if len(hist) == 0 {
			return
		}
		c := agent.NewConversation("fuzz", hist...)
		s := &Summarize{Provider: modeltest.NewScripted(modeltest.Text(summary)).Repeat().WithoutRecording(), KeepRecent: 3}
		s.Restore(c.ID(), &agent.CompactionInfo{Summary: summary, Summarized: int(summarized)})
		b := int(budget)
		got, info, err := s.Prepare(context.Background(), c, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkPairs(got); err != nil {
			t.Fatal(err)
		}
		if info == nil {
			if len(got) != len(hist) {
				t.Fatalf("no compaction reported, %d of %d messages sent", len(got), len(hist))
			}
			return
		}
		if info.Fallback == "" && (len(got) == 0 || got[0].Role != model.RoleUser) {
			t.Fatal("a rewritten history does not start with a user message")
		}
		if e := estimate(got); e > info.EstimatedTokens {
			t.Fatalf("sent %d tokens, reported %d", e, info.EstimatedTokens)
		}
		if b > 0 && minimalCost(c)+b/8+16 <= b && estimate(got) > b {
			t.Fatalf("sent %d tokens over the budget %d", estimate(got), b)
		}
	})
}

func FuzzLoadInstructions(f *testing.F) {
	f.Add("root rules", "sub rules", uint16(0))
	f.Add(strings.Repeat("é", 100), "\uFEFF\xff", uint16(60))
	f.Add("", "x", uint16(1))
	f.Fuzz(func(t *testing.T, root, sub string, limit uint16) {
		ws := t.TempDir()
		if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		for p, body := range map[string]string{"AGENTS.md": root, "sub/AGENTS.md": sub} {
			if err := os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		text, files, err := LoadInstructions(ws, filepath.Join(ws, "sub"), "", int(limit))
		if err != nil {
			t.Fatal(err)
		}
		capBytes := int(limit)
		if capBytes <= 0 {
			capBytes = DefaultInstructionsBytes
		}
		if len(text) > capBytes || !utf8.ValidString(text) {
			t.Fatalf("%d bytes (cap %d), valid UTF-8 %v", len(text), capBytes, utf8.ValidString(text))
		}
		if len(files) > 0 && !strings.HasPrefix(text, "# Instructions from "+files[0]) {
			t.Fatalf("text does not start with the first file's header: %q", text)
		}
		if i, j := strings.Index(text, "from AGENTS.md"), strings.Index(text, "from sub/AGENTS.md"); i >= 0 && j >= 0 && j < i {
			t.Fatal("nearer file before the root's")
		}
	})
}
