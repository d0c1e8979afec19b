package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/fastjson"
)

// Output is a tool's result as the model would see it, taken from a
// PostToolUse tool_response (claude-code-hooks.md §4.5).
type Output struct {
	Text string // the model-facing text; for Read, the file content without the client's line numbers
	// PersistedPath is set when the client cut a Bash output and saved the
	// whole text there (above bashOutputMaxChars); Text then holds only the
	// first part.
	PersistedPath string

	tool string
	resp json.RawMessage // the whole response, for tools replaced field by field
	meta outputMeta      // what a replacement keeps of the original, so it need not parse it again
}

// outputMeta is the small part of a response a replacement carries over.
type outputMeta struct {
	interrupted bool   // Bash
	filePath    string // Read
	totalLines  int    // Read
	numFiles    int    // Grep
	durationMs  int    // Glob
}

// ErrNotText means the tool's result is not text ctxkeep can stand in for:
// an image, a PDF, a notebook, a background task, an unknown shape.
var ErrNotText = errors.New("tool output is not text")

// IsMCP reports whether a tool name is an MCP tool's (mcp__server__tool).
func IsMCP(tool string) bool { return strings.HasPrefix(tool, "mcp__") }

// HasText reports whether ReadOutput knows tool's responses: the tools
// whose output may be text to swap out.
func HasText(tool string) bool {
	switch tool {
	case "Bash", "Read", "Grep", "Glob", "WebFetch", "WebSearch", "Agent", "Task":
		return true
	}
	return IsMCP(tool)
}

// ReadOutput extracts the text of a tool's response. Tools ctxkeep does not
// know, and results that are not text, give ErrNotText.
func ReadOutput(tool string, resp json.RawMessage) (Output, error) {
	out, err := readOutput(tool, resp)
	out.tool, out.resp = tool, resp
	return out, err
}

func readOutput(tool string, resp json.RawMessage) (Output, error) {
	if IsMCP(tool) {
		return readMCP(resp)
	}
	switch tool {
	case "Bash":
		var r bashResponse
		if err := fastjson.Unmarshal(resp, &r); err != nil || r.IsImage || r.BackgroundTaskID != "" {
			return Output{}, ErrNotText
		}
		text := r.Stdout
		if r.Stderr != "" {
			text = joinNonEmpty(text, r.Stderr)
		}
		return Output{Text: text, PersistedPath: r.PersistedOutputPath, meta: outputMeta{interrupted: r.Interrupted}}, nil
	case "Read":
		var r readResponse
		if err := fastjson.Unmarshal(resp, &r); err != nil || r.Type != "text" {
			return Output{}, ErrNotText
		}
		return Output{Text: r.File.Content, meta: outputMeta{filePath: r.File.FilePath, totalLines: r.File.TotalLines}}, nil
	case "Grep":
		var r grepResponse
		if err := fastjson.Unmarshal(resp, &r); err != nil {
			return Output{}, ErrNotText
		}
		meta := outputMeta{numFiles: r.NumFiles}
		if r.Mode == "files_with_matches" || (r.Content == "" && len(r.Filenames) > 0) {
			return Output{Text: strings.Join(r.Filenames, "\n"), meta: meta}, nil
		}
		return Output{Text: r.Content, meta: meta}, nil
	case "Glob":
		var r globResponse
		if err := fastjson.Unmarshal(resp, &r); err != nil {
			return Output{}, ErrNotText
		}
		return Output{Text: strings.Join(r.Filenames, "\n"), meta: outputMeta{durationMs: r.DurationMs}}, nil
	case "WebFetch":
		var r map[string]json.RawMessage
		var result string
		if fastjson.Unmarshal(resp, &r) != nil || fastjson.Unmarshal(r["result"], &result) != nil {
			return Output{}, ErrNotText
		}
		return Output{Text: result}, nil
	case "WebSearch":
		return readWebSearch(resp)
	case "Agent", "Task":
		var r agentResponse
		if err := fastjson.Unmarshal(resp, &r); err != nil || r.Status != "completed" {
			return Output{}, ErrNotText
		}
		var parts []string
		for _, c := range r.Content {
			parts = append(parts, c.Text)
		}
		return Output{Text: strings.Join(parts, "\n")}, nil
	}
	return Output{}, ErrNotText
}

// Replacement is what a PostToolUse reply carries to replace a tool's
// output: updatedToolOutput for built-in tools, updatedMCPToolOutput for
// MCP tools.
type Replacement struct {
	ToolOutput json.RawMessage
	MCPOutput  json.RawMessage
}

// Replace builds the replacement of the output by view, in the tool's own
// output shape: the client silently rejects any other shape (and keeps the
// original). Fields that describe the call rather than its content (paths,
// durations, status) are kept from the original.
func (o Output) Replace(view string) (Replacement, error) {
	if IsMCP(o.tool) {
		return Replacement{MCPOutput: mustJSON([]textBlock{{Type: "text", Text: view}})}, nil
	}
	var out any
	switch o.tool {
	case "Bash":
		out = bashOutput{Stdout: view, Stderr: "", Interrupted: o.meta.interrupted}
	case "Read":
		out = readResponse{Type: "text", File: readFile{
			FilePath: o.meta.filePath, Content: view, NumLines: lineCount(view), StartLine: 1, TotalLines: o.meta.totalLines,
		}}
	case "Grep":
		out = grepOutput{Mode: "content", NumFiles: o.meta.numFiles, Filenames: []string{}, Content: view, NumLines: lineCount(view)}
	case "Glob":
		lines := strings.Split(view, "\n")
		out = globResponse{Filenames: lines, DurationMs: o.meta.durationMs, NumFiles: len(lines), Truncated: false}
	case "WebFetch":
		return replaceField(o.resp, "result", view)
	case "WebSearch":
		return replaceField(o.resp, "results", []string{view})
	case "Agent", "Task":
		return replaceField(o.resp, "content", []textBlock{{Type: "text", Text: view}})
	default:
		return Replacement{}, ErrNotText
	}
	return Replacement{ToolOutput: mustJSON(out)}, nil
}

// ReplacementShape describes the shape Replace gives a tool's output, for
// the report of a replacement the client did not take.
func ReplacementShape(tool string) string {
	if IsMCP(tool) {
		return "[{type, text}] (updatedMCPToolOutput)"
	}
	switch tool {
	case "Bash":
		return "{stdout, stderr, interrupted, isImage, noOutputExpected}"
	case "Read":
		return "{type, file: {filePath, content, numLines, startLine, totalLines}}"
	case "Grep":
		return "{mode, numFiles, filenames, content, numLines}"
	case "Glob":
		return "{filenames, durationMs, numFiles, truncated}"
	case "WebFetch":
		return "the response with its result replaced"
	case "WebSearch":
		return "the response with its results replaced"
	case "Agent", "Task":
		return "the response with its content replaced"
	}
	return "(none: not replaceable)"
}

// replaceField keeps the response as it is but for one field.
func replaceField(resp json.RawMessage, field string, value any) (Replacement, error) {
	var r map[string]json.RawMessage
	if err := json.Unmarshal(resp, &r); err != nil {
		return Replacement{}, err
	}
	r[field] = mustJSON(value)
	return Replacement{ToolOutput: mustJSON(r)}, nil
}

func readMCP(resp json.RawMessage) (Output, error) {
	var s string
	if fastjson.Unmarshal(resp, &s) == nil {
		return Output{Text: s}, nil
	}
	var blocks []map[string]json.RawMessage
	if fastjson.Unmarshal(resp, &blocks) != nil {
		// An object result reaches the model as its JSON text.
		var obj map[string]json.RawMessage
		if fastjson.Unmarshal(resp, &obj) != nil {
			return Output{}, ErrNotText
		}
		return Output{Text: string(resp)}, nil
	}
	var parts []string
	for _, b := range blocks {
		var typ, text string
		fastjson.Unmarshal(b["type"], &typ)
		if typ != "text" || fastjson.Unmarshal(b["text"], &text) != nil {
			return Output{}, ErrNotText // images and resources stay as they are
		}
		parts = append(parts, text)
	}
	return Output{Text: strings.Join(parts, "\n")}, nil
}

func readWebSearch(resp json.RawMessage) (Output, error) {
	var r struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := fastjson.Unmarshal(resp, &r); err != nil {
		return Output{}, ErrNotText
	}
	var b strings.Builder
	for _, raw := range r.Results {
		var s string
		if fastjson.Unmarshal(raw, &s) == nil {
			b.WriteString(s + "\n")
			continue
		}
		var hits struct {
			Content []struct{ Title, URL, Snippet string } `json:"content"`
		}
		fastjson.Unmarshal(raw, &hits)
		for _, h := range hits.Content {
			b.WriteString(h.Title + "\n" + h.URL + "\n")
			if h.Snippet != "" {
				b.WriteString(h.Snippet + "\n")
			}
		}
	}
	return Output{Text: b.String()}, nil
}

type bashResponse struct {
	Stdout              string `json:"stdout"`
	Stderr              string `json:"stderr"`
	Interrupted         bool   `json:"interrupted"`
	IsImage             bool   `json:"isImage"`
	BackgroundTaskID    string `json:"backgroundTaskId"`
	PersistedOutputPath string `json:"persistedOutputPath"`
}

type bashOutput struct {
	Stdout           string `json:"stdout"`
	Stderr           string `json:"stderr"`
	Interrupted      bool   `json:"interrupted"`
	IsImage          bool   `json:"isImage"`
	NoOutputExpected bool   `json:"noOutputExpected"`
}

type readResponse struct {
	Type string   `json:"type"`
	File readFile `json:"file"`
}

type readFile struct {
	FilePath   string `json:"filePath"`
	Content    string `json:"content"`
	NumLines   int    `json:"numLines"`
	StartLine  int    `json:"startLine"`
	TotalLines int    `json:"totalLines"`
}

type grepResponse struct {
	Mode      string   `json:"mode"`
	NumFiles  int      `json:"numFiles"`
	Filenames []string `json:"filenames"`
	Content   string   `json:"content"`
}

type grepOutput struct {
	Mode      string   `json:"mode"`
	NumFiles  int      `json:"numFiles"`
	Filenames []string `json:"filenames"`
	Content   string   `json:"content"`
	NumLines  int      `json:"numLines"`
}

type globResponse struct {
	Filenames  []string `json:"filenames"`
	DurationMs int      `json:"durationMs"`
	NumFiles   int      `json:"numFiles"`
	Truncated  bool     `json:"truncated"`
}

type agentResponse struct {
	Status  string      `json:"status"`
	Content []textBlock `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("claudecode: " + err.Error()) // only plain structs and strings are marshalled here
	}
	return b
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// Input is the part of a tool's input ctxkeep reads: what was run, read or
// searched for.
type Input struct {
	Command         string `json:"command"`           // Bash
	RunInBackground bool   `json:"run_in_background"` // Bash
	FilePath        string `json:"file_path"`         // Read
	Offset          int    `json:"offset"`            // Read
	Limit           int    `json:"limit"`             // Read
	Pattern         string `json:"pattern"`           // Grep, Glob
	Path            string `json:"path"`              // Grep, Glob
	Glob            string `json:"glob"`              // Grep
	URL             string `json:"url"`               // WebFetch
	Query           string `json:"query"`             // WebSearch
	Description     string `json:"description"`       // Agent, Task
}

// ParseInput reads a tool_input; fields a tool does not have stay empty.
func ParseInput(raw json.RawMessage) Input {
	var in Input
	json.Unmarshal(raw, &in) // a malformed input only loses its description
	return in
}

// Describe is the call in one line: the command, the file, the pattern…
// Tools it does not know are described by their raw input.
func (in Input) Describe(tool string, raw json.RawMessage) string {
	switch {
	case tool == "Bash":
		return in.Command
	case tool == "Read" && (in.Offset > 0 || in.Limit > 0):
		return fmt.Sprintf("%s (offset %d, limit %d)", in.FilePath, in.Offset, in.Limit)
	case tool == "Read":
		return in.FilePath
	case tool == "Grep" || tool == "Glob":
		s := strconv.Quote(in.Pattern)
		if in.Path != "" {
			s += " in " + in.Path
		}
		if in.Glob != "" {
			s += " (" + in.Glob + ")"
		}
		return s
	case tool == "WebFetch":
		return in.URL
	case tool == "WebSearch":
		return in.Query
	case in.Description != "":
		return in.Description
	}
	return string(raw)
}

// SessionDir is the client's folder for one session's files, beside its
// transcript: <projects>/<project>/<session>/ (tool-results/, subagents/).
// transcriptPath comes from hook input, so it is checked: absolute, clean,
// and named after the session.
func SessionDir(transcriptPath, sessionID string) (string, error) {
	if !filepath.IsAbs(transcriptPath) || filepath.Clean(transcriptPath) != transcriptPath ||
		filepath.Base(transcriptPath) != sessionID+".jsonl" {
		return "", fmt.Errorf("unexpected transcript path %q for session %s", transcriptPath, sessionID)
	}
	return strings.TrimSuffix(transcriptPath, ".jsonl"), nil
}

// ToolResultsDir is where the client keeps the outputs it persisted, and
// where the agent's Read is allowed without asking (checked with 2.1.330).
func ToolResultsDir(sessionDir string) string { return filepath.Join(sessionDir, "tool-results") }

// Within reports whether path lies inside dir (after cleaning).
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// Replaceable reports whether ctxkeep can replace a tool's output (it knows
// the tool's output shape).
func Replaceable(tool string) bool {
	switch tool {
	case "Bash", "Read", "Grep", "Glob", "WebFetch", "WebSearch", "Agent", "Task":
		return true
	}
	return IsMCP(tool)
}
