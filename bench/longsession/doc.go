// Package longsession measures the memory of a long chat, a figure of
// issue 27: the resident set after 10,000 turns of one conversation with
// compaction on (history.Summarize on an 8,192-token window, so older
// turns are summarized again and again), each turn a user message, a
// read_file call with a 2 KB result and an answer, as a chat session
// accumulates them. rein has no peer here; the row is rein's alone.
//
// Each op runs the whole session in a fresh child process (this test
// binary re-run), so the figures are the session's own: peak-RSS-MB (the
// child's VmHWM), end-RSS-MB (VmRSS after the last turn and a GC),
// heap-MB (live heap then), ms/turn and compactions (summaries written).
package longsession
