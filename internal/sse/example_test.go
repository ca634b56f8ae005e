package sse_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reinharness/rein/internal/sse"
)

func ExampleDecoder() {
	stream := "event: message_start\ndata: {\"n\":1}\n\n: keep-alive\n\ndata: [DONE]\n\ndata: {\"cut"
	d := sse.NewDecoder(strings.NewReader(stream))
	for {
		ev, err := d.Next()
		if err == io.EOF {
			fmt.Println("clean end")
			return
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			fmt.Println("truncated")
			return
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%q %s\n", ev.Type, ev.Data)
	}
	// Output:
	// "message_start" {"n":1}
	// "" [DONE]
	// truncated
}
