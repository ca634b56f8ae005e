package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServeElicitsApproval: `rein mcp serve` (editor preset, the
// default --approve never) puts a command the policy asks about to a
// client that supports elicitation: accepting runs it in the workspace,
// declining denies it with the reason, in both protocol eras.
func TestMCPServeElicitsApproval(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, action := range []string{"accept", "decline"} {
			t.Run(version+"/"+action, func(t *testing.T) {
				clientIn, serverOut := io.Pipe()
				serverIn, clientOut := io.Pipe()
				stderr := &serveStderr{}
				s := newServeApp(t, serverIn, serverOut, stderr)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				done := make(chan int, 1)
				go func() {
					code, _ := s.exec(ctx)
					serverOut.Close()
					done <- code
				}()
				shown := make(chan string, 4)
				c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
						shown <- req.Params.Message
						return &sdk.ElicitResult{Action: action}, nil
					},
				})
				cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, &sdk.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
				}
				text, isErr := serveCall(t, cs, "run_command", map[string]any{"command": "touch made.txt"})
				_, statErr := os.Stat(filepath.Join(s.workspace, "made.txt"))
				asked := ""
				select {
				case asked = <-shown:
				default:
				}
				if !strings.Contains(asked, "run_command") || !strings.Contains(asked, "touch made.txt") {
					t.Errorf("the approval shown: %q; want it to name the command", asked)
				}
				if action == "accept" && (isErr || statErr != nil) {
					t.Errorf("accepted: isError=%v %q, made.txt: %v; want the command run", isErr, text, statErr)
				}
				if action == "decline" && (!isErr || !strings.Contains(text, "declined") || statErr == nil) {
					t.Errorf("declined: isError=%v %q, made.txt exists=%v; want a denial and no file", isErr, text, statErr == nil)
				}
				cs.Close()
				clientOut.Close()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("rein mcp serve did not exit after stdin closed")
				}
			})
		}
	}
}
