package agent

import "github.com/reinharness/rein/model"

// A turn needs fresh arrays that outlive it: its calls' states (the
// tool.call, tool.decision and tool.result events point into them) and
// its tool message's results and parts (the conversation keeps them).
// Allocating them per turn was three of the loop's allocations per model
// call. turnArrays hands them out of chunks instead, each shared by
// several turns of a run. Nothing handed out is ever handed out again or
// written by anyone but its turn, so sharing a chunk changes nothing a
// consumer can see: a chunk is only freed once nothing in it is
// referenced.
type turnArrays struct {
	states  chunk[callState]
	results chunk[model.ToolResult]
	parts   chunk[model.Part]
}

// Chunks start small, so a short run costs little, and double up to
// maxChunk elements; a turn of more calls gets arrays of its own.
const (
	firstChunk = 4
	maxChunk   = 32
)

// chunk hands out zeroed slices of a shared, never reused, array.
type chunk[T any] struct {
	free []T
	next int // the size of the next chunk
}

// take returns n zeroed elements with capacity n: an append to them
// reallocates rather than reaching into the next turn's.
func (c *chunk[T]) take(n int) []T {
	if n > len(c.free) {
		size := max(c.next, firstChunk)
		if n > size {
			return make([]T, n)
		}
		c.free = make([]T, size)
		c.next = min(2*size, maxChunk)
	}
	s := c.free[:n:n]
	c.free = c.free[n:]
	return s
}
