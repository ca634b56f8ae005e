// Package resume measures the resume of a long session, a goal of issues
// 13 and 27: session.Resume of a 100,000-event session (realistic agent
// turns: a tool call, its decision and 560-byte result, the messages and
// usage) in at most 300 ms and 150 MB, measured at 1,000, 10,000 and
// 100,000 events. It is the store's load and the conversation's rebuild
// (session.Open is outside the timed part, inside the RSS), not the whole
// of rein run --continue. rein has no peer here; impl=replay, the same
// session journaled without checkpoints, is the resume before them. Each
// op resumes in a fresh process (this test binary re-run), so the peak
// RSS is the resume's own, not the benchmark's.
package resume
