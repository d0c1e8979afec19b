package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
)

// wireMessage is a Messages API response, or the opening of a stream.
type wireMessage struct {
	ID           string      `json:"id"`
	Type         string      `json:"type"`
	Role         string      `json:"role"`
	Model        string      `json:"model"`
	Content      []wireBlock `json:"content"`
	StopReason   *string     `json:"stop_reason"`
	StopSequence *string     `json:"stop_sequence"`
	Usage        Usage       `json:"usage"`
}

// wireBlock is a response content block. Text is a pointer because a text
// block must carry "text" even when it is empty.
type wireBlock struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// wireBlockOf converts b; empty leaves out the text and input, as
// content_block_start does before the deltas fill them in.
func wireBlockOf(b Block, empty bool) wireBlock {
	switch b.Type {
	case "text":
		text := b.Text
		if empty {
			text = ""
		}
		return wireBlock{Type: "text", Text: &text}
	case "tool_use":
		input := toolInput(b)
		if empty {
			input = json.RawMessage("{}")
		}
		return wireBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input}
	}
	return wireBlock{Type: b.Type}
}

func toolInput(b Block) json.RawMessage {
	if len(b.Input) == 0 {
		return json.RawMessage("{}")
	}
	return b.Input
}

// writeMessage answers a non-streaming request.
func writeMessage(w http.ResponseWriter, id, model string, r Reply) error {
	stop := r.stopReason()
	msg := wireMessage{
		ID: id, Type: "message", Role: "assistant", Model: model,
		Content:    make([]wireBlock, len(r.Content)),
		StopReason: &stop,
		Usage:      r.Usage,
	}
	for i, b := range r.Content {
		msg.Content[i] = wireBlockOf(b, false)
	}
	return writeJSON(w, http.StatusOK, msg)
}

// streamMessage answers a streaming request with server-sent events, in the
// order the client expects: message_start, then content_block_start, _delta
// and _stop for each block, then message_delta (stop reason and usage) and
// message_stop.
func streamMessage(w http.ResponseWriter, id, model string, r Reply) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse := newSSEWriter(w)

	opening := r.Usage
	opening.OutputTokens = 0
	sse.send("message_start", map[string]any{"message": wireMessage{
		ID: id, Type: "message", Role: "assistant", Model: model,
		Content: []wireBlock{}, Usage: opening,
	}})
	for i, b := range r.Content {
		sse.send("content_block_start", map[string]any{"index": i, "content_block": wireBlockOf(b, true)})
		if d := delta(b); d != nil {
			sse.send("content_block_delta", map[string]any{"index": i, "delta": d})
		}
		sse.send("content_block_stop", map[string]any{"index": i})
	}
	sse.send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": r.stopReason(), "stop_sequence": nil},
		"usage": r.Usage,
	})
	sse.send("message_stop", nil)
	return sse.err
}

// delta returns the content_block_delta payload that fills in b, or nil.
func delta(b Block) map[string]any {
	switch {
	case b.Type == "text" && b.Text != "":
		return map[string]any{"type": "text_delta", "text": b.Text}
	case b.Type == "tool_use":
		return map[string]any{"type": "input_json_delta", "partial_json": string(toolInput(b))}
	}
	return nil
}

// sseWriter writes server-sent events and flushes each one, remembering the
// first error so that callers check once at the end.
type sseWriter struct {
	w     io.Writer
	flush func()
	err   error
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	return &sseWriter{w: w, flush: flush}
}

// send writes one event named typ whose data is fields plus "type": typ.
func (s *sseWriter) send(typ string, fields map[string]any) {
	if s.err != nil {
		return
	}
	data := map[string]any{"type": typ}
	maps.Copy(data, fields)
	payload, err := json.Marshal(data)
	if err != nil {
		s.err = err
		return
	}
	if _, s.err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", typ, payload); s.err == nil {
		s.flush()
	}
}

// writeAPIError answers with the API's error envelope.
func writeAPIError(w http.ResponseWriter, e APIError) error {
	return writeJSON(w, e.Status, map[string]any{
		"type":  "error",
		"error": map[string]string{"type": e.Type, "message": e.Message},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(body)
	return err
}
