package session

import (
	"crypto/sha256"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinharness/rein/agent"
	"github.com/reinharness/rein/model"
)

// TestCheckpointCodecKnowsEveryField fails when a field is added to a
// type whose values encodeMessages writes: a checkpoint would drop it,
// and a resumed conversation would differ from the one the events give.
// Teach encodeMessages and reader.part the field, bump checkpointMagic,
// then add it here.
func TestCheckpointCodecKnowsEveryField(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[model.Message]():    {"Role", "Parts"},
		reflect.TypeFor[model.Part]():       {"Kind", "Text", "Signature", "Redacted", "ToolCall", "ToolResult"},
		reflect.TypeFor[model.ToolCall]():   {"ID", "Name", "Args"},
		reflect.TypeFor[model.ToolResult](): {"CallID", "Name", "Content", "IsError"},
	}
	for typ, want := range known {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the fields of %s changed; the checkpoint codec knows (-known +now):\n%s", typ, diff)
		}
	}
}

// TestMessagesRoundTrip: every field, nil apart from empty, survives.
func TestMessagesRoundTrip(t *testing.T) {
	msgs := []model.Message{
		{},
		{Role: model.RoleUser, Parts: []model.Part{}},
		{Role: model.RoleAssistant, Parts: []model.Part{
			{Kind: model.PartReasoning, Text: "thinking ✓", Signature: "sig==", Redacted: "opaque"},
			{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "c1", Name: "bash", Args: []byte(`{"cmd":"a 2>&1 <b>"}`)}},
			{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "c2", Args: []byte{}}},
			{Kind: model.PartToolCall, ToolCall: &model.ToolCall{}},
		}},
		{Role: model.RoleTool, Parts: []model.Part{
			{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "c1", Name: "bash", Content: "out\x00put", IsError: true}},
			{Kind: model.PartToolResult, ToolResult: &model.ToolResult{}},
		}},
	}
	got, err := decodeMessages(encodeMessages(nil, msgs))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Errorf("(-encoded +decoded):\n%s", diff)
	}
	// Nil and empty are told apart, which cmp.Diff does not check.
	if got[0].Parts != nil || got[1].Parts == nil || got[2].Parts[2].ToolCall.Args == nil || got[2].Parts[3].ToolCall.Args != nil {
		t.Errorf("nil and empty were not kept apart: %#v", got)
	}
}

// TestTruncatedMessagesAreRefused: every proper prefix of an encoding
// fails to decode, and so does one with a byte too many.
func TestTruncatedMessagesAreRefused(t *testing.T) {
	data := encodeMessages(nil, []model.Message{model.UserText("hi"), model.ToolResults(model.ToolResult{CallID: "c", Content: "x"})})
	for i := range data {
		if _, err := decodeMessages(data[:i]); err == nil {
			t.Errorf("a prefix of %d of %d bytes decoded", i, len(data))
		}
	}
	if _, err := decodeMessages(append(data, 0)); err == nil {
		t.Error("a trailing byte was accepted")
	}
}

// FuzzDecodeMessages: arbitrary bytes decode or fail without panicking or
// allocating beyond their size, and what decodes encodes to a form that
// decodes to the same messages.
func FuzzDecodeMessages(f *testing.F) {
	f.Add(encodeMessages(nil, []model.Message{model.UserText("hi"), {Role: model.RoleAssistant, Parts: []model.Part{model.ToolCallPart(model.ToolCall{ID: "c", Args: []byte(`{}`)})}}}))
	f.Add([]byte{0})
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := decodeMessages(data)
		if err != nil {
			return
		}
		again, err := decodeMessages(encodeMessages(nil, msgs))
		if err != nil {
			t.Fatalf("re-encoded messages do not decode: %v", err)
		}
		if diff := cmp.Diff(msgs, again); diff != "" {
			t.Fatalf("re-encoded messages differ (-first +again):\n%s", diff)
		}
	})
}

// FuzzDecodeCheckpoint feeds the decoder records with a valid digest
// around arbitrary contents (the digest alone would turn nearly every
// input away) as well as arbitrary bytes: it must not panic, and a record
// it accepts must re-encode to one that decodes to the same state.
func FuzzDecodeCheckpoint(f *testing.F) {
	b := newRebuilder(Info{ID: "s"})
	b.add(stateEventOf(model.UserText("hi")))
	good, err := encodeCheckpoint(b, 2, make([]byte, chainSize))
	if err != nil {
		f.Fatal(err)
	}
	body := good[len(checkpointMagic) : len(good)-sha256.Size]
	f.Add(body, false)
	f.Add(good, true)
	f.Add([]byte{2}, false)
	f.Fuzz(func(t *testing.T, data []byte, raw bool) {
		if !raw {
			rec := append([]byte(checkpointMagic), data...)
			sum := sha256.Sum256(rec)
			data = append(rec, sum[:]...)
		}
		ck, err := decodeCheckpoint(data, Info{ID: "s"})
		if err != nil {
			return
		}
		again, err := encodeCheckpoint(ck.state, ck.seq, ck.chain)
		if err != nil {
			t.Fatalf("an accepted record does not re-encode: %v", err)
		}
		ck2, err := decodeCheckpoint(again, Info{ID: "s"})
		if err != nil {
			t.Fatalf("a re-encoded record does not decode: %v", err)
		}
		if diff := cmp.Diff(ck.state.finish(), ck2.state.finish()); diff != "" || ck.seq != ck2.seq {
			t.Fatalf("re-encoded record differs (seq %d, %d):\n%s", ck.seq, ck2.seq, diff)
		}
	})
}

func stateEventOf(m model.Message) agent.Event {
	return agent.Event{Type: agent.EventMessage, Message: &m}
}
