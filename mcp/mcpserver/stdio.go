package mcpserver

import (
	"context"
	"errors"
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over newline-delimited JSON-RPC: requests
// from in, responses and notifications to out (a process's stdin and
// stdout). Both eras are served on the one connection: a request carrying
// the 2026-07-28 _meta is answered statelessly, an initialize opens the
// legacy handshake.
//
// It returns nil when the client closes in, and ctx.Err() when ctx ends
// first. in and out are not closed; out must not be written by anyone else
// while the server runs (a stray byte corrupts the stream).
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	// Tasks started over this connection end with it: nobody is left to
	// collect them, and a command they run must not outlive the server.
	connCtx, hangUp := context.WithCancel(ctx)
	defer hangUp()
	connCtx = context.WithValue(connCtx, connDoneKey{}, connCtx.Done())
	notes := &taskNotifier{}
	connCtx = context.WithValue(connCtx, taskNotifierKey{}, notes)
	t := liftingTransport{&sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}, notes}
	err := s.sdk.Run(connCtx, t)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// nopWriteCloser leaves closing out to its owner.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
