// Package resume measures the resume of a long session, a goal of issue
// 13: session.Resume of a 100,000-event session (realistic agent turns:
// a tool call, its decision and 560-byte result, the messages and usage)
// in at most 300 ms and 200 MB. rein has no peer here; the row is rein's
// alone. Each op resumes in a fresh process (this test binary re-run),
// so the peak RSS is the resume's own, not the benchmark's.
package resume
