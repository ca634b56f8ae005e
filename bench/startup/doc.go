// Package startup measures what a user waits for before rein does
// anything: the wall time and peak RSS of `rein version`, and the time
// from the start of a `rein run` process to the first request arriving
// at a loopback fake model (the fake notes the arrival time), each next
// to a hello-world Go binary as the floor (for the first request, one
// that sends a POST at once).
//
// bench/run builds both binaries once and passes them in
// BENCH_REIN_BIN and BENCH_HELLO_BIN; without them the benchmark builds
// them into a temporary directory.
package startup
