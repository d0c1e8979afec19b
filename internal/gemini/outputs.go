package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// CutAt is the size (in characters) over which the CLI cuts a tool's
// output it gives the model to its first 8,000 and last 32,000 characters
// (tools.truncateToolOutputThreshold; after AfterTool, which sees it all).
const CutAt = 40_000

// ToolOutput is one tool call of a chat as `ctxkeep replay` needs it: what
// the model got, and what an AfterTool hook would have got.
type ToolOutput struct {
	ID    string
	Tool  string          // Gemini's name: run_shell_command, read_file…
	Input json.RawMessage // the call's arguments
	// Seen is the result as the model got it: the response's output (the
	// shell's inside the CLI's <untrusted_context> wrapper), or its error
	// (a failure, or ctxkeep's view after a deny).
	Seen string
	// Text is the output as AfterTool gets it: the shell command's own
	// output, without the CLI's wrapper and status lines; Seen otherwise.
	// An output over 40,000 characters is held by the chat as the CLI's
	// cut of it (its first 8,000 and last 32,000 characters): the model got
	// that cut, and the whole is only in the CLI's tool-outputs folder.
	Text string
	Exit int // the shell command's exit status; -1 for other tools
}

// Outputs reads the chat at path: its session, its tool calls that have a
// result, in the order the model made them, and how many of its lines
// could not be read. A message written again as it grows counts once,
// as last written.
func Outputs(path string) (meta Meta, outs []ToolOutput, bad int, err error) {
	if meta, err = ReadMeta(path); err != nil {
		return meta, nil, 0, err
	}
	outs, bad, err = outputs(path, false)
	return meta, outs, bad, err
}

// LiveOutputs are the tool calls with a result since the chat's last
// compression: those the model's context still holds (a compression
// replaces the history before it with a <state_snapshot>).
func LiveOutputs(path string) ([]ToolOutput, error) {
	outs, _, err := outputs(path, true)
	return outs, err
}

// outputs reads the tool calls of the chat at path that have a result, in
// order; live forgets those before each compression.
func outputs(path string, live bool) (outs []ToolOutput, bad int, err error) {
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	at := map[string]int{} // call id → index in outs
	snapshot := ""
	sc := transcript.NewScanner(f, transcript.Cursor{})
	for sc.Scan() {
		rec, ok := decodeRecord(sc.Record().Raw)
		if !ok {
			bad++
			continue
		}
		if s := rec.snapshot(); s != "" {
			// A resume reloads the compressed history, the same snapshot
			// again: only a new one is a compression.
			if live && s != snapshot {
				outs, at = outs[:0], map[string]int{}
			}
			snapshot = s
			continue
		}
		for i := range rec.ToolCalls {
			c := &rec.ToolCalls[i]
			seen, _, ok := c.resultText()
			if !ok || c.ID == "" {
				continue
			}
			o := ToolOutput{ID: c.ID, Tool: c.Name, Input: c.Args, Seen: seen, Text: seen, Exit: -1}
			if c.Name == Shell && !IsView(seen) {
				o.Text, o.Exit = ShellOutput(seen)
			}
			if k, again := at[c.ID]; again {
				outs[k] = o
				continue
			}
			at[c.ID] = len(outs)
			outs = append(outs, o)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range sc.Problems() {
		if p.Kind != transcript.BadField { // Claude Code's fields, not Gemini's: the line itself was read above
			bad++
		}
	}
	return outs, bad, nil
}

// CallResults are the results a chat line's tool calls hold, as the model
// got them (an output, or an error: a failure, or ctxkeep's view after a
// deny); none for a line that is no message with calls.
func CallResults(line []byte) []string {
	rec, ok := decodeRecord(line)
	if !ok {
		return nil
	}
	var out []string
	for i := range rec.ToolCalls {
		if text, _, ok := rec.ToolCalls[i].resultText(); ok {
			out = append(out, text)
		}
	}
	return out
}
