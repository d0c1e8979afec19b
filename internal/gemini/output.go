package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/fastjson"
)

// Output is a tool's result as an AfterTool payload carries it
// (tool_response {llmContent, returnDisplay, error}).
type Output struct {
	// Text is what ctxkeep stores: for the shell, the command's output
	// (stdout and stderr merged) without the CLI's wrapper and status
	// lines; else the text the model would get.
	Text string
	// Exit is the shell command's exit status ("Exit Code: N", 0 when the
	// CLI wrote none); -1 for other tools or when unknown.
	Exit int
	// Failed is set when the tool failed (the response's error field).
	Failed bool
}

// ErrNotText means the tool's result is not text ctxkeep can stand in for:
// an image, a file's inline data, an empty result.
var ErrNotText = errors.New("tool output is not text")

// ReadOutput reads an AfterTool tool_response. llmContent is a string for
// most tools (the shell, read_file of a text file, grep, glob, web_fetch),
// a part or a list of parts for others (read_many_files, MCP tools): only
// text parts are text; one inline data part (an image, a PDF) makes the
// result not text.
func ReadOutput(tool string, resp json.RawMessage) (Output, error) {
	var r struct {
		LLMContent    json.RawMessage `json:"llmContent"`
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
		Error         json.RawMessage `json:"error"`
	}
	if err := fastjson.Unmarshal(resp, &r); err != nil {
		return Output{}, ErrNotText
	}
	text, err := contentText(r.LLMContent)
	if err != nil {
		return Output{}, err
	}
	out := Output{Text: text, Exit: -1, Failed: len(bytes.TrimSpace(r.Error)) > 0 && string(bytes.TrimSpace(r.Error)) != "null"}
	if tool == Shell {
		var display string
		if len(r.ReturnDisplay) > 0 && r.ReturnDisplay[0] == '"' {
			fastjson.Unmarshal(r.ReturnDisplay, &display)
		}
		out.Text, out.Exit = shellOutput(text, display)
	}
	if out.Text == "" {
		return Output{}, ErrNotText
	}
	return out, nil
}

// contentText is the text of an llmContent: a string, a part {text}, or a
// list of them (strings or parts).
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", ErrNotText
	}
	switch raw[0] {
	case '"':
		var s string
		if err := fastjson.Unmarshal(raw, &s); err != nil {
			return "", ErrNotText
		}
		return s, nil
	case '{':
		return partText(raw)
	case '[':
		var parts []json.RawMessage
		if err := fastjson.Unmarshal(raw, &parts); err != nil {
			return "", ErrNotText
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			t, err := contentText(p)
			if err != nil {
				return "", err
			}
			texts = append(texts, t)
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", ErrNotText
}

// partText is the text of one part; a part with anything but text (inline
// data, a file, a function call) is not text.
func partText(raw json.RawMessage) (string, error) {
	var p map[string]json.RawMessage
	if err := fastjson.Unmarshal(raw, &p); err != nil {
		return "", ErrNotText
	}
	t, ok := p["text"]
	if !ok {
		return "", ErrNotText
	}
	for k := range p {
		if k != "text" && k != "thought" && k != "thoughtSignature" {
			return "", ErrNotText
		}
	}
	var s string
	if err := fastjson.Unmarshal(t, &s); err != nil {
		return "", ErrNotText
	}
	return s, nil
}

// The shell's result as the model gets it (gemini-cli-hooks.md):
//
//	<untrusted_context>
//	Output: <stdout and stderr>
//	[Error: …]
//	[Exit Code: N]
//	[Signal: …]
//	[Background PIDs: …]
//	Process Group PGID: N
//	</untrusted_context>
const (
	untrustedOpen  = "<untrusted_context>\n"
	untrustedClose = "</untrusted_context>"
	outputPrefix   = "Output: "
)

// statusLines start the lines the CLI writes after a command's output.
var statusLines = []string{"Process Group PGID: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Error: "}

// ShellOutput takes a run_shell_command result apart: the command's own
// output and its exit status (0 when the CLI wrote no "Exit Code" line).
// A text of another shape is returned whole, with exit status -1.
func ShellOutput(s string) (output string, exit int) { return shellOutput(s, "") }

// shellOutput is ShellOutput knowing the bare output the CLI displays
// (returnDisplay), when it has it: an output whose own last line looks
// like one of the CLI's status lines ("Error: …") is then kept whole.
func shellOutput(s, display string) (output string, exit int) {
	body, ok := strings.CutPrefix(s, untrustedOpen)
	if !ok {
		return s, -1
	}
	// What follows the closing tag is the CLI's, not the command's: "[System]
	// Tool input parameters were modified by a hook before execution." after
	// a BeforeTool hook rewrote the command (the wrapper).
	if end := strings.LastIndex(body, untrustedClose); end >= 0 {
		body = body[:end]
	}
	body, ok = strings.CutPrefix(body, outputPrefix)
	if !ok {
		return s, -1
	}
	exit = 0
	if display != "" && strings.HasPrefix(body, display) {
		output, body = display, body[len(display):]
	}
	// The status lines come last; the output is everything before them.
	lines := strings.SplitAfter(body, "\n")
	end := len(lines)
	for end > 0 {
		line := strings.TrimSuffix(lines[end-1], "\n")
		if line == "" && end == len(lines) {
			end--
			continue
		}
		status := false
		for _, p := range statusLines {
			if rest, ok := strings.CutPrefix(line, p); ok {
				status = true
				if p == "Exit Code: " {
					if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
						exit = n
					}
				}
			}
		}
		if !status {
			break
		}
		end--
	}
	output += strings.Join(lines[:end], "")
	output = strings.TrimSuffix(output, "\n")
	if output == "(empty)" {
		output = ""
	}
	return output, exit
}
