package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinharness/rein/tool"
)

// Pagination guards: a server whose cursors never end, or that lists an
// absurd number of items, cannot keep rein listing forever.
const (
	maxListPages = 100
	maxListItems = 5000
)

// startupSlack lets Tools observe a connection attempt that ends right at
// its startup timeout.
const startupSlack = 50 * time.Millisecond

// listing is what rein knows of a server's offer.
type listing struct {
	tools        []*sdk.Tool
	fetched      time.Time
	ttl          time.Duration // from ttlMs (2026-07-28 era)
	modern       bool          // the era caches by ttlMs; older eras until list_changed
	stale        bool          // a list_changed notification arrived
	caps         *sdk.ServerCapabilities
	info         *sdk.Implementation
	instructions string
}

// fresh reports whether the cached tool list may be used.
func (l *listing) fresh(now time.Time) bool {
	if l.stale || l.fetched.IsZero() {
		return false
	}
	return !l.modern || now.Sub(l.fetched) < l.ttl
}

// refreshListing fetches the server's capabilities and tool list (every
// page). force ignores the cache.
func (s *server) refreshListing(ctx context.Context, sess *session, force bool) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	s.mu.Lock()
	cur, gen := s.listing, s.listGen
	s.mu.Unlock()
	if !force && cur.fresh(time.Now()) {
		return nil
	}
	l := listing{fetched: time.Now(), modern: sess.era >= ProtocolModern}
	if r := sess.cs.InitializeResult(); r != nil {
		l.caps, l.info, l.instructions = r.Capabilities, r.ServerInfo, r.Instructions
	}
	if l.caps != nil && l.caps.Tools != nil {
		tools, ttl, err := listAllTools(ctx, sess.cs)
		if err != nil {
			return err
		}
		l.tools, l.ttl = tools, ttl
	}
	s.mu.Lock()
	// A list_changed that arrived while listing may describe a change the
	// list missed.
	l.stale = s.listGen != gen
	s.listing = l
	s.mu.Unlock()
	return nil
}

// listAllTools follows the pagination cursors of tools/list and returns
// the TTL hint of the first page.
func listAllTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, time.Duration, error) {
	var (
		all    []*sdk.Tool
		ttl    time.Duration
		cursor string
		seen   = map[string]bool{}
	)
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, 0, fmt.Errorf("tools/list did not end after %d pages", maxListPages)
		}
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, 0, err
		}
		if page == 0 {
			ttl = time.Duration(res.TTLMs) * time.Millisecond
		}
		for _, t := range res.Tools {
			if t != nil && t.Name != "" {
				all = append(all, t)
			}
		}
		if len(all) > maxListItems {
			return nil, 0, fmt.Errorf("tools/list returned more than %d tools", maxListItems)
		}
		if res.NextCursor == "" {
			return all, ttl, nil
		}
		if seen[res.NextCursor] {
			return nil, 0, errors.New("tools/list repeated a pagination cursor")
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// listChanged handles a list_changed notification: the next use refreshes.
func (s *server) listChanged(what string) {
	if what == "tools" {
		s.mu.Lock()
		s.listing.stale = true
		s.listGen++
		s.mu.Unlock()
		if f := s.m.cfg.OnToolsChanged; f != nil {
			f(s.cfg.Name)
		}
	}
}

// errNotReady leaves a server out of a tool list.
var errNotReady = errors.New("server not ready")

// awaitStartup waits for the first connection attempt, at most until the
// startup timeout. A server not up by then is reported once; the error is
// ErrRequiredServer for a required server, errNotReady otherwise. A
// server that is not required is waited for at most grace (counted from
// Start, like the timeout) when grace is not noGrace; one still
// connecting then is left out without a report — the attempt goes on, and
// its own failure is reported when its startup timeout passes.
func (s *server) awaitStartup(ctx context.Context, grace time.Duration) error {
	limit := s.cfg.StartupTimeout + startupSlack
	early := !s.cfg.Required && grace != noGrace && grace < s.cfg.StartupTimeout
	if early {
		limit = grace
	}
	t := time.NewTimer(max(time.Until(s.started.Add(limit)), 0))
	defer t.Stop()
	select {
	case <-s.ready:
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		select {
		case <-s.ready:
		default:
			if early {
				return errNotReady
			}
			s.mu.Lock()
			conn := s.trying
			s.mu.Unlock()
			err := s.explain(context.Background(), fmt.Errorf("did not finish connecting within %v (startup_timeout); rein keeps trying in the background", s.cfg.StartupTimeout), conn)
			s.reportOnce(err)
			if s.cfg.Required {
				return fmt.Errorf("%w: %w", ErrRequiredServer, err)
			}
			return errNotReady
		}
	}
	return nil
}

// toolsForModel returns the server's tools for the model, refreshing the
// list when it is stale. grace bounds the wait for a server that is not
// required (see awaitStartup).
func (s *server) toolsForModel(ctx context.Context, grace time.Duration) ([]tool.Tool, error) {
	s.m.Start()
	if s.m.ctx.Err() != nil {
		return nil, errClosed
	}
	if err := s.awaitStartup(ctx, grace); err != nil {
		if errors.Is(err, errNotReady) {
			return nil, nil
		}
		return nil, err
	}
	sess, _, _, lastErr, _ := s.state()
	if sess == nil {
		if s.cfg.Required {
			if lastErr == nil {
				lastErr = fmt.Errorf("mcp server %q is not connected", s.cfg.Name)
			}
			return nil, fmt.Errorf("%w: %w", ErrRequiredServer, lastErr)
		}
		s.redialInBackground()
		return nil, nil
	}
	if err := s.refreshListing(ctx, sess, false); err != nil {
		// Keep offering the tools rein knows; the failure surfaces on calls.
		s.m.logger.Warn("mcp: refreshing the tool list failed", "server", s.cfg.Name, "error", s.redact(err))
	}
	return s.adapt(), nil
}

// adapt builds the tool.Tool values for the current listing.
func (s *server) adapt() []tool.Tool {
	s.mu.Lock()
	l := s.listing
	s.mu.Unlock()
	sess, _, _, _, _ := s.state()
	tasksOK, why := s.canRunTasks(sess)
	var remote []string
	byName := map[string]*sdk.Tool{}
	for _, t := range l.tools {
		if s.hiddenForTasks(t, tasksOK) {
			s.noteUntaskable(t.Name, why)
			continue
		}
		if s.exposes(t.Name) {
			remote = append(remote, t.Name)
			byName[t.Name] = t
		}
	}
	names := exposedNames(s.cfg.Name, remote)
	taken := map[string]bool{}
	out := make([]tool.Tool, 0, len(remote)+2)
	for _, r := range remote {
		out = append(out, s.newTool(byName[r], names[r]))
		taken[names[r]] = true
	}
	if l.caps != nil && l.caps.Resources != nil {
		out = append(out, s.resourceTools(taken)...)
	}
	return out
}

// exposes applies enabled_tools and disabled_tools.
func (s *server) exposes(name string) bool {
	if s.cfg.EnabledTools != nil && !slices.Contains(s.cfg.EnabledTools, name) {
		return false
	}
	return !slices.Contains(s.cfg.DisabledTools, name)
}
