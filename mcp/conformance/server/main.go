// Command server is the conformance fixture for rein's MCP server: it
// serves the tools, prompts and resources the official conformance suite's
// server scenarios call, on the same mcpserver machinery as `rein mcp
// serve` — both protocol eras on one endpoint.
//
//	go run ./mcp/conformance/server --http 127.0.0.1:PORT   # serves http://127.0.0.1:PORT/mcp
//	go run ./mcp/conformance/server                          # serves stdio
//
// The suite then runs against it:
//
//	conformance server --url http://127.0.0.1:PORT/mcp --requirements 2025-11-25
//	conformance server --url http://127.0.0.1:PORT/mcp --requirements 2026-07-28
//
// The suite starts server scenarios against a running server, so (unlike
// the client fixture) this one needs no MCP_CONFORMANCE_SCENARIO: every
// scenario's tools are served at once, as the suite expects.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "conformance server: %v\n", err)
		os.Exit(1)
	}
}

// run parses the flags and serves until ctx ends or the stdio client
// disconnects.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	httpAddr := fs.String("http", "", "serve Streamable HTTP at this address (path /mcp) instead of stdio; loopback only")
	verbose := fs.Bool("v", false, "log the SDK's diagnostics to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q; usage: server [--http ADDR]", fs.Args())
	}
	var logger *slog.Logger
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	f, err := newFixture(logger)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go f.updateWatched(ctx)

	if *httpAddr == "" {
		if err := f.srv.ServeStdio(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	ln, err := f.srv.Listen(*httpAddr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "conformance server: serving http://%s/mcp\n", ln.Addr())
	return f.srv.Serve(ctx, ln)
}
