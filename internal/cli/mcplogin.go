package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reinharness/rein/internal/host"
	"github.com/reinharness/rein/internal/termsafe"
	"github.com/reinharness/rein/internal/textclip"
	"github.com/reinharness/rein/mcp"
)

// defaultLoginTimeout bounds a sign-in: the user has this long to finish
// in the browser.
const defaultLoginTimeout = 5 * time.Minute

// tokenStore returns the store of MCP sign-ins under the state directory
// (flag, else the default); nil when there is no state directory.
func (a *App) tokenStore(stateDirFlag string) mcp.TokenStore {
	dir := host.StateDir(stateDirFlag, a.Getenv)
	if dir == "" {
		return nil
	}
	return mcp.OpenTokens(filepath.Join(dir, mcp.TokenFile))
}

// freshLogin is the store a sign-in runs with: it hides the stored
// sign-in, so that the flow runs even when one exists (to switch
// accounts, or to grant more), and saves what the flow obtains.
type freshLogin struct{ mcp.TokenStore }

// LoadToken implements mcp.TokenStore.
func (freshLogin) LoadToken(string, string) (*mcp.StoredToken, error) { return nil, nil }

func (a *App) mcpLoginCommand() *cobra.Command {
	var (
		f       mcpFlags
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "login SERVER",
		Short: "Sign in to a remote MCP server (OAuth) and store the sign-in",
		Long: `Sign in to an HTTP MCP server that requires OAuth 2.1. rein discovers the
server's authorization server, registers itself (a pre-registered client_id
from [mcp_servers.NAME.oauth], a client ID metadata document, or dynamic
registration), opens the authorization page in a browser ($REIN_BROWSER, or
the desktop's; the URL is printed too) and receives the redirect on
127.0.0.1. The tokens are kept in rein's state directory (mcp-tokens.json,
mode 0600) and refreshed when they expire; rein mcp logout forgets them.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("usage: rein mcp login SERVER")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, ws, err := a.mcpServer(&f, args[0])
			if err != nil {
				return err
			}
			var tools []string
			err = a.interruptibly(cmd.Context(), func(ctx context.Context) error {
				tools, err = a.signIn(ctx, sc, ws, f.stateDir, timeout)
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(termsafe.NewWriter(a.Stdout), "Signed in to %s; %s: %s\n", sc.Name, plural(len(tools), "tool"), orDash(strings.Join(tools, ", ")))
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", defaultLoginTimeout, "time to complete the sign-in in the browser")
	return cmd
}

func (a *App) mcpLogoutCommand() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "logout SERVER",
		Short: "Forget the stored sign-in of an MCP server",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("usage: rein mcp logout SERVER")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, _, err := a.mcpServer(&f, args[0])
			if err != nil {
				return err
			}
			store := a.tokenStore(f.stateDir)
			if store == nil {
				return a.fail(errors.New("no state directory is known (set --state-dir or $HOME)"), nil)
			}
			st, err := store.LoadToken(sc.Name, sc.Resource())
			if err != nil {
				return a.fail(err, nil)
			}
			// Revoke first (best effort, bounded): a stolen copy of the
			// file must not outlive the sign-out. The local copy goes
			// whatever the server says.
			revoked := ""
			if st != nil {
				ctx, cancel := context.WithTimeout(cmd.Context(), 15*time.Second)
				err := mcp.RevokeToken(ctx, nil, sc.Resource(), st)
				cancel()
				switch {
				case err == nil:
					revoked = " and revoked at the authorization server"
				case errors.Is(err, mcp.ErrNoRevocation):
					revoked = " (the authorization server offers no revocation: they lapse when they expire)"
				default:
					fmt.Fprintf(a.Stderr, "rein: warning: revoking the tokens of %s failed: %s; they lapse when they expire\n", sc.Name, textclip.FirstLine(err.Error()))
				}
			}
			found, err := store.DeleteToken(sc.Name, sc.Resource())
			if err != nil {
				return a.fail(err, nil)
			}
			if found {
				fmt.Fprintf(termsafe.NewWriter(a.Stdout), "Signed out of %s: its stored tokens were deleted%s.\n", sc.Name, revoked)
			} else {
				fmt.Fprintf(termsafe.NewWriter(a.Stdout), "%s had no stored sign-in.\n", sc.Name)
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

// mcpServer returns the named configured server (enabled or not).
func (a *App) mcpServer(f *mcpFlags, name string) (mcp.ServerConfig, string, error) {
	servers, ws, err := a.mcpServers(f)
	if err != nil {
		return mcp.ServerConfig{}, "", a.fail(err, nil)
	}
	var names []string
	for _, sc := range servers {
		if sc.Name == name {
			return sc, ws, nil
		}
		names = append(names, sc.Name)
	}
	if len(names) == 0 {
		return mcp.ServerConfig{}, "", usagef("no MCP servers are configured: add an [mcp_servers.NAME] table to config.toml or a .mcp.json to the workspace")
	}
	return mcp.ServerConfig{}, "", usagef("unknown MCP server %q; configured: %s", name, strings.Join(names, ", "))
}

// signIn runs the authorization flow for sc, stores the sign-in and
// returns the server's tools. The loopback listener lives only as long as
// the flow; ctx (Ctrl-C) and timeout end it.
func (a *App) signIn(ctx context.Context, sc mcp.ServerConfig, ws, stateDirFlag string, timeout time.Duration) ([]string, error) {
	return a.signInWith(ctx, sc, ws, a.tokenStore(stateDirFlag), timeout)
}

// signInWith is signIn with the store given.
func (a *App) signInWith(ctx context.Context, sc mcp.ServerConfig, ws string, store mcp.TokenStore, timeout time.Duration) ([]string, error) {
	if sc.URL == "" {
		return nil, usagef("MCP server %s is a command (stdio) server; only HTTP servers sign in", sc.Name)
	}
	if !sc.UsesOAuth() {
		return nil, usagef("MCP server %s sends its own credentials (bearer_token_env_var or an Authorization header); remove them to sign in with OAuth", sc.Name)
	}
	if store == nil {
		return nil, errors.New("no state directory is known to keep the sign-in in (set --state-dir or $HOME)")
	}
	lb, sc, err := a.withLoopback(sc)
	if err != nil {
		return nil, err
	}
	defer lb.close()
	sc.Disabled, sc.Required = false, true
	sc.StartupTimeout = timeout
	if sc.ProbeTimeout >= timeout {
		sc.ProbeTimeout = 0
	}
	mc := a.mcpConfig([]mcp.ServerConfig{sc}, ws, mcp.Decline{})
	mc.Tokens, mc.Authorizer = freshLogin{store}, lb
	m, err := mcp.New(mc)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	ts, err := m.Tools(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, loginError(sc.Name, err)
	}
	if !lb.began() {
		return nil, fmt.Errorf("MCP server %s accepted rein without a sign-in; there is nothing to store", sc.Name)
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = strings.TrimPrefix(t.Spec().Name, sc.Name+"__")
	}
	return names, nil
}

// withLoopback starts the redirect listener for sc and returns sc with
// its redirect URL set to the listener's.
func (a *App) withLoopback(sc mcp.ServerConfig) (*loopback, mcp.ServerConfig, error) {
	o := mcp.OAuthConfig{}
	if sc.OAuth != nil {
		o = *sc.OAuth
	}
	lb, err := a.newLoopback(o.RedirectURL)
	if err != nil {
		return nil, sc, err
	}
	o.RedirectURL = lb.redirect
	sc.OAuth = &o
	return lb, sc, nil
}

// loginError reports a failed sign-in by its cause: what the flow or
// the server said, without the Manager's framing (the user asked for
// this one server).
func loginError(name string, err error) error {
	var se *mcp.SignInError
	if errors.As(err, &se) {
		return fmt.Errorf("signing in to MCP server %s: %s", name, textclip.FirstLine(se.Error()))
	}
	msg := err.Error()
	if prefix := fmt.Sprintf("mcp server %q: ", name); strings.Contains(msg, prefix) {
		msg = msg[strings.Index(msg, prefix)+len(prefix):]
	}
	return fmt.Errorf("signing in to MCP server %s: %s", name, msg)
}

// interruptibly runs fn with Ctrl-C cancelling it, and turns the outcome
// into rein's exit code and one-line report.
func (a *App) interruptibly(ctx context.Context, fn func(context.Context) error) error {
	var runErr error
	sig, forced := a.interruptible(ctx, func(ctx context.Context) { runErr = fn(ctx) })
	switch {
	case forced || (sig != nil && (runErr == nil || errors.Is(runErr, context.Canceled))):
		fmt.Fprintf(a.Stderr, "rein: interrupted (%v)\n", sig)
		return &exitError{code: ExitInterrupted}
	case runErr == nil:
		return nil
	}
	var ue *usageError
	if errors.As(runErr, &ue) {
		return runErr
	}
	return a.fail(runErr, nil)
}

// needsLoginHint is what a listing says of a server that needs a sign-in.
func needsLoginHint(name string) string {
	return "needs login: run rein mcp login " + name
}

// stateNeedsLogin is the state listings show for a server that needs a
// sign-in.
const stateNeedsLogin = "needs login"

// needsLogin reports a server that is down for want of a sign-in.
func needsLogin(st mcp.Status) bool {
	return st.State != mcp.StateConnected && st.Err != nil && errors.Is(st.Err, mcp.ErrNeedsLogin)
}
