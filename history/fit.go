package history

import (
	"sort"
	"strconv"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// Strategy names reported in agent.CompactionInfo.Strategy: what heads the
// history that was sent.
const (
	// StrategyWindow: the newest messages, after a marker saying how many
	// earlier ones were left out.
	StrategyWindow = "window"
	// StrategySummarize: a summary of the earlier messages, then the
	// newer ones (windowed again if they still do not fit).
	StrategySummarize = "summarize"
)

// markerTokens is a generous raw estimate of the omission marker: the
// message framing plus up to 96 bytes of text.
const markerTokens = 4 + 24

// fitter chooses and assembles the history of one request. The request
// reads: a head standing for msgs[:base] (a summary, or nothing when base
// is 0), then — when the task is kept — the latest user message, then the
// tail msgs[s:]. Whatever lies between base and s apart from the task is
// omitted and marked.
//
// Costs come from the conversation's prefix sums, so choosing s is a
// binary search: O(log n) estimates, and only the kept messages are
// copied.
type fitter struct {
	c    *agent.Conversation
	msgs []model.Message
	// base is the first message the head does not stand for; it is a cut
	// point (never a tool message) or len(msgs).
	base int
	head []model.Part
	// headTok, taskTok and markTok are scaled estimates of the head, the
	// task message and the marker.
	headTok int
	taskTok int
	markTok int
	budget  int // tokens for the whole history; 0 = unbounded
	maxMsgs int // conversation messages sent; 0 = unbounded
	task    int // index of the latest user message, -1 if none
}

func newFitter(c *agent.Conversation, base int, head []model.Part, budget, maxMsgs int) *fitter {
	f := &fitter{
		c:       c,
		msgs:    c.Messages(),
		base:    base,
		head:    head,
		budget:  budget,
		maxMsgs: maxMsgs,
		task:    c.LastUserIndex(),
		markTok: scaled(c, markerTokens),
	}
	if head != nil {
		f.headTok = scaled(c, agent.EstimateMessageTokens(model.Message{Role: model.RoleUser, Parts: head}))
	}
	if f.task >= 0 {
		f.taskTok = c.EstimatedRange(f.task, f.task+1)
	}
	return f
}

// scaled converts a raw estimate to the conversation's calibrated units,
// rounding as Conversation does.
func scaled(c *agent.Conversation, raw int) int {
	s := c.Scale()
	if s == 1 {
		return raw
	}
	return int(float64(raw)*s + 0.5)
}

// omitted returns how many messages after base are left out when the tail
// starts at s.
func (f *fitter) omitted(s int, keep bool) int {
	n := s - f.base
	if keep && f.task >= f.base {
		n--
	}
	return n
}

// cost returns the estimated tokens of the request history for (s, keep).
// Merging the head into a user message only saves tokens, so the sum is
// an upper bound of what is sent.
func (f *fitter) cost(s int, keep bool) int {
	t := f.headTok + f.c.EstimatedRange(s, len(f.msgs))
	if f.omitted(s, keep) > 0 {
		t += f.markTok
	}
	if keep {
		t += f.taskTok
	}
	return t
}

func (f *fitter) fits(s int, keep bool) bool {
	if f.maxMsgs > 0 {
		count := len(f.msgs) - s
		if keep {
			count++
		}
		if count > f.maxMsgs {
			return false
		}
	}
	return f.budget <= 0 || f.cost(s, keep) <= f.budget
}

// search returns the smallest s in [lo, hi] that fits, or hi+1. fits must
// be monotone on [lo+1, hi]; lo is tried on its own because it may be the
// only start that needs no marker.
func (f *fitter) search(lo, hi int, keep bool) int {
	if lo > hi {
		return hi + 1
	}
	if f.fits(lo, keep) {
		return lo
	}
	return lo + 1 + sort.Search(hi-lo, func(i int) bool { return f.fits(lo+1+i, keep) })
}

// choose picks the tail start s and whether the task travels on its own
// before it. In order of preference: everything after base (with the
// task, when a summary stands for it); a window that starts at or before
// the task; the task plus the newest turns that fit after it; the newest
// turns alone. When nothing fits the last turn still goes (best effort:
// the server judges). s is always a cut point.
func (f *fitter) choose() (s int, keep bool) {
	n := len(f.msgs)
	if f.task >= 0 && f.task < f.base && f.fits(f.base, true) {
		// The summary covers the task: send its words too.
		return f.base, true
	}
	if f.fits(f.base, false) {
		return f.base, false
	}
	lastSafe := n - 1
	for lastSafe >= f.base && f.msgs[lastSafe].Role == model.RoleTool {
		lastSafe--
	}
	if lastSafe < f.base {
		// Nothing after base can start a request: the head stands for the
		// whole history. Send the task along when it fits.
		return f.base, f.task >= 0 && f.base == n && f.fits(n, true)
	}
	if f.task > f.base && f.fits(f.task, false) {
		return f.cut(f.search(f.base+1, f.task, false)), false
	}
	lo, hi := max(f.task+1, f.base), lastSafe
	if lo > hi {
		// The task starts the last turn and even that does not fit.
		return f.task, false
	}
	if f.task >= 0 {
		if s := f.search(lo, hi, true); s <= hi {
			s = f.cut(s)
			if f.task >= f.base && f.omitted(s, true) == 0 {
				return f.task, false // the same request, written plainly
			}
			return s, true
		}
	}
	if s := f.search(lo, hi, false); s <= hi {
		return f.cut(s), false
	}
	return hi, false
}

// cut moves s forward to the next cut point: a tool message belongs to the
// assistant message before it.
func (f *fitter) cut(s int) int {
	for s < len(f.msgs) && f.msgs[s].Role == model.RoleTool {
		s++
	}
	return s
}

// fit returns the history to send and what was left out, or the history
// itself and nil when nothing was.
func (f *fitter) fit() ([]model.Message, *agent.CompactionInfo) {
	s, keep := f.choose()
	return f.assemble(s, keep)
}

// assemble builds the request history for (s, keep). The head, the marker
// and the task (or a user message starting the tail) are merged into one
// user message, so the history still starts with a user turn and never
// has two in a row.
func (f *fitter) assemble(s int, keep bool) ([]model.Message, *agent.CompactionInfo) {
	n := len(f.msgs)
	omitted := f.omitted(s, keep)
	if f.head == nil && omitted <= 0 && !keep {
		return f.msgs[s:], nil
	}
	kept := n - s
	if keep {
		kept++
	}
	info := &agent.CompactionInfo{OmittedMessages: n - kept, KeptMessages: kept, EstimatedTokens: f.cost(s, keep)}
	first := -1 // the message the head merges into
	switch {
	case keep:
		first = f.task
	case s < n && f.msgs[s].Role == model.RoleUser:
		first = s
		s++
	}
	parts := make([]model.Part, 0, len(f.head)+1+partsOf(f.msgs, first))
	parts = append(parts, f.head...)
	if omitted > 0 {
		parts = append(parts, marker(omitted, f.head != nil))
	}
	if first >= 0 {
		parts = append(parts, f.msgs[first].Parts...)
	}
	out := make([]model.Message, 0, n-s+1)
	out = append(out, model.Message{Role: model.RoleUser, Parts: parts})
	out = append(out, f.msgs[s:]...)
	return out, info
}

func partsOf(msgs []model.Message, i int) int {
	if i < 0 {
		return 0
	}
	return len(msgs[i].Parts)
}

// marker tells the model that messages were left out, so it does not
// mistake the window for the whole conversation.
func marker(omitted int, afterSummary bool) model.Part {
	if afterSummary {
		return model.TextPart("[rein: " + strconv.Itoa(omitted) +
			" more messages after this summary omitted to fit the context window]")
	}
	return model.TextPart("[rein: " + strconv.Itoa(omitted) +
		" earlier messages omitted to fit the context window]")
}
