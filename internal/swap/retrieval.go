package swap

import (
	"encoding/json"
	"strings"
)

// Retrieval names the way back to what ctxkeep stored, in what the model
// reads (views, the restore block): ctxkeep's MCP tools when the session
// has them, else the command line, for the agent's shell.
type Retrieval struct {
	// Tools is the name prefix of ctxkeep's MCP tools in the session:
	// "mcp__ctxkeep__" (registered for the user) or
	// "mcp__plugin_ctxkeep_ctxkeep__" (from ctxkeep's plugin); "" names
	// the command line.
	Tools string
}

// Tool prefixes of ctxkeep's MCP server, as Claude Code names its tools:
// mcp__<server>__<tool>, and mcp__plugin_<plugin>_<server>__<tool> for a
// plugin's server (verified with 2.1.330).
const (
	UserTools   = "mcp__ctxkeep__"
	PluginTools = "mcp__plugin_ctxkeep_ctxkeep__"
)

// IsOwnTool reports whether a tool is one of ctxkeep's own MCP tools:
// what they return is stored content coming back, never swapped out again.
func IsOwnTool(tool string) bool {
	return strings.HasPrefix(tool, UserTools) || strings.HasPrefix(tool, PluginTools)
}

// Show names a call that prints a stored output: id and, optionally, one
// narrowing as a flag and its value ("lines", "A:B"), or "failures".
func (r Retrieval) Show(id string, part ...string) string { return r.call("show", "id", id, part) }

// Recall names a call that prints an archived step (or turns).
func (r Retrieval) Recall(key string) string { return r.call("recall", "key", key, nil) }

// Search names a search of the archive for words.
func (r Retrieval) Search(words string) string {
	if r.Tools == "" {
		return "`ctxkeep search \"" + words + "\"`"
	}
	return r.call("search", "query", words, nil)
}

// SearchSession names a search of one session's archive for words:
// session is an id or a unique prefix of one.
func (r Retrieval) SearchSession(words, session string) string {
	if r.Tools == "" {
		return "`ctxkeep search \"" + words + "\" --session " + session + "`"
	}
	return "`" + r.Tools + "search {" + jsonPair("query", words) + "," + jsonPair("session", session) + "}`"
}

// Name is the command or the tool alone: "`ctxkeep search`".
func (r Retrieval) Name(command string) string {
	if r.Tools == "" {
		return "`ctxkeep " + command + "`"
	}
	return "`" + r.Tools + command + "`"
}

// Verb is what the model does with a call: run a command, call a tool.
func (r Retrieval) Verb() string {
	if r.Tools == "" {
		return "run"
	}
	return "call"
}

// Narrowings lists the other ways show narrows an output, after Show's
// "lines" example.
func (r Retrieval) Narrowings() string {
	if r.Tools == "" {
		return "(or --grep RE -C N, --failures, --head N, --tail N)"
	}
	return "(or grep RE with context N, failures, head N, tail N)"
}

// call is `ctxkeep COMMAND ARG --FLAG VALUE` on the command line, and
// `TOOL {"param":"arg","flag":"value"}` with the tools: the input to give
// the tool, as it is.
func (r Retrieval) call(command, param, arg string, part []string) string {
	if r.Tools == "" {
		s := "ctxkeep " + command + " " + arg
		if len(part) > 0 {
			s += " --" + strings.Join(part, " ")
		}
		return "`" + s + "`"
	}
	input := []string{jsonPair(param, arg)}
	switch len(part) {
	case 1:
		input = append(input, jsonPair(part[0], true))
	case 2:
		input = append(input, jsonPair(part[0], part[1]))
	}
	return "`" + r.Tools + command + " {" + strings.Join(input, ",") + "}`"
}

func jsonPair(name string, value any) string {
	v, _ := json.Marshal(value)
	return `"` + name + `":` + string(v)
}
