// Command hello is the start-up floor: a Go binary that prints hello,
// world — or, given a URL, sends one POST to it first, the least a
// program can do before its first request.
package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"
)

func main() {
	if len(os.Args) > 1 {
		resp, err := http.Post(os.Args[1], "application/json", strings.NewReader(`{}`))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		resp.Body.Close()
	}
	fmt.Println("hello, world")
}
