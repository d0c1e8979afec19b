package breakdown

import (
	"encoding/json"
	"fmt"
)

// Stale is the tool output in the context that a later call has
// superseded. A tool result is stale when, later in the context:
//
//   - the same tool was called again with the same input (a rerun: the
//     newer output replaces it, e.g. a second `go test ./...`), or
//   - for a Read, the file was changed (Edit, MultiEdit, Write,
//     NotebookEdit): what the model holds is an outdated copy.
//
// Duplicate file reads are the first kind for Read: the same file and
// range read again. Stale output is what a lean context would drop first.
type Stale struct {
	Items      int      `json:"items"`
	Tokens     int64    `json:"tokens"`
	Reruns     int      `json:"reruns"`   // results superseded by the same call later
	Outdated   int      `json:"outdated"` // reads of files changed later
	DupReads   int      `json:"duplicate_reads"`
	DupTokens  int64    `json:"duplicate_read_tokens"`
	OfResults  int64    `json:"tool_result_tokens"` // all tool results, for the share
	StaleCalls []string `json:"-"`                  // tool_use ids, for tests
}

// Share is the stale part of the tool results, in percent.
func (s Stale) Share() float64 {
	if s.OfResults == 0 {
		return 0
	}
	return 100 * float64(s.Tokens) / float64(s.OfResults)
}

// call is what findStale needs of a tool call with a result.
type call struct {
	id, name string
	input    json.RawMessage
}

// editTools change files; their input names the file.
var editTools = map[string]string{"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}

// findStale applies the rules of Stale to calls, in context order, with
// each result's tokens.
func findStale(calls []call, tokens map[string]int64) Stale {
	var s Stale
	later := map[string]bool{}   // rerun keys of the calls after this one
	changed := map[string]bool{} // files changed after this one
	for i := len(calls) - 1; i >= 0; i-- {
		c := calls[i]
		n := tokens[c.id]
		s.OfResults += n
		key := rerunKey(c)
		file, isRead := readFile(c)
		rerun, outdated := later[key], isRead && changed[file]
		if rerun || outdated {
			s.Items++
			s.Tokens += n
			s.StaleCalls = append(s.StaleCalls, c.id)
			if rerun {
				s.Reruns++
			} else {
				s.Outdated++
			}
			if rerun && isRead {
				s.DupReads++
				s.DupTokens += n
			}
		}
		later[key] = true
		if field, ok := editTools[c.name]; ok {
			if f := stringField(c.input, field); f != "" {
				changed[f] = true
			}
		}
	}
	return s
}

// rerunKey identifies a call up to its result: the tool and its input
// with keys in a canonical order. A Read is its file and range only, a
// Bash call its command: their other input (a description) does not
// change what they return.
func rerunKey(c call) string {
	if c.name == "Bash" {
		return "Bash\x00" + stringField(c.input, "command")
	}
	if file, ok := readFile(c); ok {
		var in struct {
			Offset, Limit json.Number
		}
		_ = json.Unmarshal(c.input, &in)
		return fmt.Sprintf("Read\x00%s\x00%s\x00%s", file, in.Offset, in.Limit)
	}
	var v any
	if json.Unmarshal(c.input, &v) != nil {
		return c.name + "\x00" + string(c.input)
	}
	canon, _ := json.Marshal(v) // maps marshal with sorted keys
	return c.name + "\x00" + string(canon)
}

// readFile returns the file a Read call read.
func readFile(c call) (string, bool) {
	if c.name != "Read" {
		return "", false
	}
	f := stringField(c.input, "file_path")
	return f, f != ""
}

func stringField(input json.RawMessage, field string) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	s, _ := m[field].(string)
	return s
}
