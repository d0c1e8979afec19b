// Package proof checks that each replacement ctxkeep returned took effect:
// that the transcript records, for the tool_use_id it answered, the text
// the hook put in place of the output. Claude Code drops a replacement
// whose shape does not match the tool's output (claude-code-hooks.md §0,
// §4.1): the model then sees the original, the transcript keeps it, and a
// hook_error_during_execution attachment says why. Another hook answering
// the same call may also win over ctxkeep's. Only the transcript tells.
//
// Scan reads the transcript from a cursor, complete lines only, and
// decodes a line only when it names a tool_use_id still waiting for its
// verdict: the Stop hook pays for reading one turn's lines, not for
// decoding them.
package proof

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Replacement is an output ctxkeep replaced, waiting for its verdict.
type Replacement struct {
	ID        string // the entry
	ToolUseID string
	Tool      string
	Sum       string // sha256 (hex) of the replacement's text
}

// Sum is the hash a Replacement's text is compared by.
func Sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Scan reads the complete lines of a Claude Code transcript from `from` (r
// is positioned there) and returns a verdict (ctxkeep.Verdict) for each
// pending replacement whose tool result it finds, and where the next scan
// is to start: after the last complete line. An unterminated last line,
// being written, is left for the next scan.
func Scan(r io.Reader, from transcript.Cursor, pending []Replacement) ([]ctxkeep.Verdict, transcript.Cursor, error) {
	return scanLines(r, from, pending, (*scan).names, (*scan).take, claudecode.ReplacementShape)
}

// ScanRollout is Scan for a Codex rollout, where a function call's output
// holds the replacement the model got, exactly (codex-hooks.md §8).
func ScanRollout(r io.Reader, from transcript.Cursor, pending []Replacement) ([]ctxkeep.Verdict, transcript.Cursor, error) {
	return scanLines(r, from, pending, (*scan).names, (*scan).takeOutput, func(string) string { return "PostToolUse decision block, reason" })
}

// ScanChat is Scan for a Gemini CLI chat. Gemini's tool payloads carry no
// call id, so a replacement is found by its text: the chat holds a call
// whose result is exactly what ctxkeep returned (a deny's reason, which
// the CLI records as the call's error). A replacement the chat does not
// hold stays unchecked: without an id, the call it answered cannot be
// told from another, so no verdict "not applied" is ever given.
func ScanChat(r io.Reader, from transcript.Cursor, pending []Replacement) ([]ctxkeep.Verdict, transcript.Cursor, error) {
	return scanLines(r, from, pending, (*scan).holdsView, (*scan).takeChat, func(string) string { return "AfterTool decision deny, reason" })
}

func scanLines(r io.Reader, from transcript.Cursor, pending []Replacement, names func(*scan, []byte) bool, take func(*scan, []byte), shape func(tool string) string) ([]ctxkeep.Verdict, transcript.Cursor, error) {
	s := scan{byUse: map[string]Replacement{}, recorded: map[string]string{}, refused: map[string]string{}, shape: shape}
	for _, p := range pending {
		s.byUse[p.ToolUseID] = p
	}
	cur := from
	br := bufio.NewReaderSize(r, 64<<10)
	for len(pending) > 0 {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			break // an unterminated line stays for later
		}
		if err != nil {
			return nil, cur, err
		}
		cur = transcript.Cursor{Offset: cur.Offset + int64(len(line)), Line: cur.Line + 1}
		if names(&s, line) {
			take(&s, line[:len(line)-1])
		}
	}
	return s.verdicts(pending), cur, nil
}

// readLine reads one line with its '\n', however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := bytes.Clone(line)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = br.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

type scan struct {
	byUse    map[string]Replacement
	recorded map[string]string // tool_use_id → the text the transcript holds
	refused  map[string]string // tool_use_id → the client's hook error
	shape    func(tool string) string
}

// names reports whether a line names a pending id: only those are decoded.
func (s *scan) names(line []byte) bool {
	for id := range s.byUse {
		if bytes.Contains(line, []byte(id)) {
			return true
		}
	}
	return false
}

// takeOutput records a rollout's function call output.
func (s *scan) takeOutput(line []byte) {
	if id, out, ok := codex.CallOutput(line); ok {
		if _, pending := s.byUse[id]; pending {
			s.recorded[id] = out
		}
	}
}

// holdsView reports whether a chat line may hold one of ctxkeep's views:
// only those are decoded.
func (s *scan) holdsView(line []byte) bool { return bytes.Contains(line, []byte(gemini.ViewPrefix)) }

// takeChat records the replacements a chat line's tool results hold.
func (s *scan) takeChat(line []byte) {
	for _, got := range gemini.CallResults(line) {
		sum := Sum(got)
		for id, p := range s.byUse {
			if p.Sum == sum {
				s.recorded[id] = got
			}
		}
	}
}

// take records the tool results of a transcript line.
func (s *scan) take(line []byte) {
	rec, err := transcript.ParseLine(line)
	if err != nil && rec.Type == "" {
		return
	}
	switch {
	case rec.Type == transcript.TypeUser && rec.Message != nil:
		s.takeResults(&rec)
	case rec.Attachment != nil && rec.Attachment.Type == "hook_error_during_execution":
		s.takeHookError(line)
	}
}

// takeResults records what the transcript holds for each pending tool
// result of a user line: the text of its structured output (toolUseResult,
// the tool_response after any replacement) when the line holds one result,
// else the result's content as the model was shown it.
func (s *scan) takeResults(rec *transcript.Record) {
	var results []transcript.Block
	for _, b := range rec.Message.Content.Blocks {
		if b.Type == transcript.BlockToolResult {
			results = append(results, b)
		}
	}
	for _, b := range results {
		p, ok := s.byUse[b.ToolUseID]
		if !ok {
			continue
		}
		var structured json.RawMessage
		if len(results) == 1 {
			structured = rec.ToolUseResult
		}
		s.recorded[b.ToolUseID] = Recorded(p.Tool, b.Content.Text(), structured)
	}
}

// Recorded is the text a Claude Code transcript holds for a tool result of
// tool, to compare with a replacement (Holds): the text of its structured
// output (toolUseResult, the tool_response after any replacement; only a
// line with one result has one) when the tool's shape reads it, else the
// result's content as the model was shown it.
func Recorded(tool, content string, structured json.RawMessage) string {
	if len(structured) > 0 {
		if out, err := claudecode.ReadOutput(tool, structured); err == nil {
			return out.Text
		}
	}
	return content
}

// Holds reports whether recorded text (Recorded, or a rollout's call
// output) is the replacement whose hash is sum: whether the client
// applied it.
func Holds(recorded, sum string) bool { return Sum(recorded) == sum }

// takeHookError keeps the client's reason for refusing a hook's output.
func (s *scan) takeHookError(line []byte) {
	var a struct {
		Attachment struct {
			Content   string `json:"content"`
			ToolUseID string `json:"toolUseID"`
			HookEvent string `json:"hookEvent"`
		} `json:"attachment"`
	}
	if err := json.Unmarshal(line, &a); err != nil || a.Attachment.HookEvent != "PostToolUse" {
		return
	}
	if _, ok := s.byUse[a.Attachment.ToolUseID]; ok {
		s.refused[a.Attachment.ToolUseID] = a.Attachment.Content
	}
}

// verdicts judges the replacements whose result was found.
func (s *scan) verdicts(pending []Replacement) []ctxkeep.Verdict {
	var out []ctxkeep.Verdict
	for _, p := range pending {
		got, ok := s.recorded[p.ToolUseID]
		if !ok {
			continue
		}
		if Holds(got, p.Sum) {
			out = append(out, ctxkeep.Verdict{ID: p.ID, Applied: true})
			continue
		}
		why := fmt.Sprintf("the transcript holds %d other characters (the original, or another hook's output)", len([]rune(got)))
		if reason := s.refused[p.ToolUseID]; reason != "" {
			why = "the client refused it: " + text.Squash(reason, 300)
		}
		out = append(out, ctxkeep.Verdict{ID: p.ID, Reason: fmt.Sprintf("%s replacement of shape %s not applied: %s", p.Tool, s.shape(p.Tool), why)})
	}
	return out
}
