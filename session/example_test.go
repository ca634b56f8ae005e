package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/modeltest"
	"github.com/reinharness/rein/session"
	"github.com/reinharness/rein/tool"
)

// powerCut stands in for the machine dying: it passes events to the
// session's journal until the first tool.result, and from then on stores
// nothing, as a process killed while its tool ran would.
type powerCut struct {
	agent.Journal
	mu  sync.Mutex
	off bool
}

func (p *powerCut) Append(ctx context.Context, ev agent.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Type == agent.EventToolResult {
		p.off = true
	}
	if p.off {
		return errors.New("power cut")
	}
	return p.Journal.Append(ctx, ev)
}

// A session survives the process. The first run is cut off while its tool
// runs; a new process opens the store, resumes the workspace's latest
// session, and the model learns that the call may have run — nothing runs
// again behind its back.
func ExampleResume() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "session-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, session.DatabaseFile)

	deploy := tool.Func("deploy", "Deploys the site.", func(ctx context.Context, in struct{}) (string, error) {
		fmt.Println("deploying…")
		return "deployed", nil
	}, tool.WithEffects(tool.Effects{External: true}))
	tools, err := tool.NewSet(deploy)
	if err != nil {
		log.Fatal(err)
	}
	newAgent := func(p model.Provider, j agent.Journal) *agent.Agent {
		a, err := agent.New(agent.Config{Provider: p, Tools: tools, Journal: j})
		if err != nil {
			log.Fatal(err)
		}
		return a
	}

	// The first process: a run whose record stops while deploy runs.
	store, err := session.Open(ctx, session.Config{Path: db})
	if err != nil {
		log.Fatal(err)
	}
	info, err := store.Create(ctx, session.Info{Workspace: dir})
	if err != nil {
		log.Fatal(err)
	}
	j, err := store.Journal(ctx, info.ID)
	if err != nil {
		log.Fatal(err)
	}
	first := modeltest.NewScripted(modeltest.ToolCalls(model.ToolCall{ID: "c1", Name: "deploy", Args: json.RawMessage(`{}`)}))
	for _, err := range newAgent(first, &powerCut{Journal: j}).Run(ctx, agent.NewConversation(info.ID), "Deploy the site.") {
		if err != nil {
			fmt.Println("first run ended:", errors.Is(err, agent.ErrJournal))
			break
		}
	}
	j.Close()
	store.Close()

	// The next process: resume the latest session of the workspace.
	store, err = session.Open(ctx, session.Config{Path: db})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	latest, err := store.Latest(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	res, err := session.Resume(ctx, store, latest.ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Journal.Close()
	for _, c := range res.Interrupted {
		fmt.Println("interrupted:", c.Name)
	}
	second := modeltest.NewScripted(modeltest.Text("The deploy may have run; checking before I retry."))
	for ev, err := range newAgent(second, res.Journal).Run(ctx, res.Conversation, "") {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type == agent.EventSessionCompleted {
			fmt.Println(ev.Outcome.Kind+":", ev.Outcome.Text)
		}
	}
	// What the model was told about c1:
	msgs := second.Requests()[0].Messages
	for _, p := range msgs[len(msgs)-1].Parts {
		if p.ToolResult != nil {
			fmt.Println(p.ToolResult.CallID+":", strings.SplitN(p.ToolResult.Content, ",", 2)[0])
		}
	}
	// Output:
	// deploying…
	// first run ended: true
	// interrupted: deploy
	// complete: The deploy may have run; checking before I retry.
	// c1: interrupted: rein stopped while this call was running
}
