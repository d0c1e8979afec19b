package codex

import (
	"encoding/json"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// ToolOutput is one tool call of a rollout as `ctxkeep replay` needs it:
// what the model got, and what a PostToolUse hook would have got.
type ToolOutput struct {
	ID    string
	Tool  string          // as hooks name it: Shell for the shell tools, mcp__server__tool for MCP
	Input json.RawMessage // {"command": …} for the shell, the call's arguments otherwise
	// Seen is the function call's output, what the model got: Codex's
	// header (chunk, wall time, exit code) and the output, or a hook's
	// replacement.
	Seen string
	// Text is the output as a PostToolUse hook gets it: the command's own
	// output (item_completed, stdout and stderr merged, no header) for the
	// shell, else Seen.
	Text string
	Exit *int // the shell command's exit status, when the rollout has it
}

// Outputs reads the session of the rollout at path, its tool calls that
// have an output, in order, and how many of its lines could not be read.
func Outputs(path string) (meta Meta, outs []ToolOutput, bad int, err error) {
	if meta, err = ReadMeta(path); err != nil {
		return meta, nil, 0, err
	}
	outs, bad, err = outputs(path, false)
	return meta, outs, bad, err
}

// LiveOutputs are the tool calls with an output since the rollout's last
// compaction: those the model's context still holds (a compaction
// replaces the history before it with a summary).
func LiveOutputs(path string) ([]ToolOutput, error) {
	outs, _, err := outputs(path, true)
	return outs, err
}

// outputs reads the tool calls of the rollout at path that have an
// output, in order; live forgets those before each compaction.
func outputs(path string, live bool) (outs []ToolOutput, bad int, err error) {
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	at := map[string]int{} // call id → index in outs
	own := map[string]bool{}
	sc := transcript.NewScanner(f, transcript.Cursor{})
	for sc.Scan() {
		kind, p, ok := decode(sc.Record().Raw)
		if !ok {
			bad++
			continue
		}
		switch {
		case live && kind == lineCompacted:
			outs, at, own = outs[:0], map[string]int{}, map[string]bool{}
		case kind == lineResponseItem && (p.Type == "function_call" || p.Type == "custom_tool_call"):
			at[p.CallID] = len(outs)
			outs = append(outs, call(p))
		case kind == lineResponseItem && (p.Type == "function_call_output" || p.Type == "custom_tool_call_output"):
			if i, ok := at[p.CallID]; ok {
				outs[i].Seen = p.outputText()
				if !own[p.CallID] {
					outs[i].Text = outs[i].Seen
				}
			}
		case kind == lineEventMsg && p.Type == "item_completed" && p.Item != nil && p.Item.Type == "CommandExecution" && p.Item.AggregatedOutput != nil:
			if i, ok := at[p.Item.ID]; ok {
				outs[i].Text, outs[i].Exit, own[p.Item.ID] = *p.Item.AggregatedOutput, p.Item.ExitCode, true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad, fmt.Errorf("%s: %w", path, err)
	}
	bad += len(sc.Problems())
	kept := outs[:0]
	for _, o := range outs {
		if o.Seen != "" || o.Text != "" {
			kept = append(kept, o)
		}
	}
	return kept, bad, nil
}

// call is a function call's id, its name as hooks know it, and its input
// ({"command"} for the shell).
func call(p payload) ToolOutput {
	args := json.RawMessage(p.Arguments)
	if name := toolName(p.Name, p.Namespace); !isShell(name) {
		return ToolOutput{ID: p.CallID, Tool: name, Input: callInput(args, p.Input)}
	}
	return ToolOutput{ID: p.CallID, Tool: Shell, Input: shellInput(args)}
}

// CallOutput reads a rollout line holding a tool call's output: the call's
// id and the output as the model got it (a hook's replacement, when one
// took effect: codex-hooks.md §8). ok is false for any other line.
func CallOutput(line []byte) (callID, output string, ok bool) {
	kind, p, ok := decode(line)
	if !ok || kind != lineResponseItem || p.Type != "function_call_output" && p.Type != "custom_tool_call_output" || p.CallID == "" {
		return "", "", false
	}
	return p.CallID, p.outputText(), true
}
