package model_test

import (
	"testing"

	"github.com/reinharness/rein/model"
)

func TestMessageTexts(t *testing.T) {
	marker := model.TextPart("[rein: 4 earlier messages omitted to fit the context window]")
	tests := []struct {
		name                string
		parts               []model.Part
		text, joined, first string
	}{
		{"none", nil, "", "", ""},
		{"one", []model.Part{model.TextPart("try things")}, "try things", "try things", "try things"},
		{"prompt and hook context",
			[]model.Part{model.TextPart("try things"), model.TextPart("Context from a hook (UserPromptSubmit):\nx")},
			"try thingsContext from a hook (UserPromptSubmit):\nx",
			"try things\n\nContext from a hook (UserPromptSubmit):\nx", "try things"},
		{"marker before the prompt",
			[]model.Part{marker, model.TextPart("read files")},
			marker.Text + "read files", marker.Text + "\n\nread files", marker.Text},
		{"reasoning, results and empty parts are skipped",
			[]model.Part{model.ReasoningPart("hmm", ""), model.TextPart(""), model.ToolResultPart(model.ToolResult{CallID: "c", Content: "r"}), model.TextPart("a"), model.TextPart(""), model.TextPart("b")},
			"ab", "a\n\nb", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := model.Message{Role: model.RoleUser, Parts: tt.parts}
			if got := m.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
			if got := m.JoinedText(); got != tt.joined {
				t.Errorf("JoinedText() = %q, want %q", got, tt.joined)
			}
			if got := m.FirstText(); got != tt.first {
				t.Errorf("FirstText() = %q, want %q", got, tt.first)
			}
		})
	}
}
