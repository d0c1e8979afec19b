package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Usage reads the context usage from chat lines, for the warnings and the
// statusline (transcript.Dialect): the last model message's tokens, and a
// compression (the history $set to a <state_snapshot>).
type Usage struct{}

var _ transcript.Dialect = Usage{}

// MayMatter: only model messages with their tokens and history updates
// holding a snapshot set the usage.
func (Usage) MayMatter(line []byte) bool {
	return bytes.Contains(line, []byte(`"tokens"`)) || bytes.Contains(line, []byte(stateSnapshot))
}

// Take updates u with one line and reports whether it is a compression.
func (Usage) Take(u *ctxkeep.Usage, line []byte) bool {
	rec, ok := decodeRecord(line)
	if !ok {
		return false
	}
	return takeUsage(u, &rec)
}

// Settles: a model message with its tokens sets the usage by itself.
func (Usage) Settles(line []byte) bool {
	rec, ok := decodeRecord(line)
	return ok && rec.Type == "gemini" && rec.Tokens != nil && rec.Tokens.Input > 0
}

// takeUsage updates u with a record and reports whether it is a
// compression. The context is the last response's input
// (promptTokenCount): the figure the CLI compares with its threshold at
// the start of each turn.
func takeUsage(u *ctxkeep.Usage, rec *record) bool {
	switch {
	case rec.Type == "gemini" && rec.Tokens != nil && rec.Tokens.Input > 0:
		u.Tokens, u.InputTokens = rec.Tokens.Input, rec.Tokens.Input
		u.Model, u.MessageID, u.Timestamp, u.Compacted = rec.Model, rec.ID, rec.time(), false
		u.Window = TokenLimit(rec.Model)
	case rec.Set != nil && rec.snapshot() != "":
		u.Compacted, u.MessageID = true, ""
		return true
	}
	return false
}

// TokenLimit is the context limit Gemini CLI 0.61.0 gives a model
// (tokenLimit in its core): 256,000 tokens for the Gemma 4 models,
// 1,048,576 for every other.
func TokenLimit(model string) int64 {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return 256_000
	}
	return 1_048_576
}

// DefaultCompressionThreshold is the share of the model's limit at which
// the CLI compresses when no setting says otherwise.
const DefaultCompressionThreshold = 0.5

// Thresholds are a Gemini session's context limits as the client works
// them out: at the start of each turn it compresses the history when the
// last response's prompt reached threshold × the model's limit
// (chatCompressionService). It has no blocking point of its own short of
// the limit.
func Thresholds(model string, threshold float64) (window, compress int64) {
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultCompressionThreshold
	}
	window = TokenLimit(model)
	return window, int64(threshold * float64(window))
}

// CompressionThreshold is model.compressionThreshold as the CLI merges its
// settings: the system file (GEMINI_CLI_SYSTEM_SETTINGS_PATH, else
// /etc/gemini-cli/settings.json) over the project's .gemini/settings.json
// over the user's; 0 when none sets it. (A threshold the CLI gets from
// Google's experiment flags, with a Google login, is not known here.)
func CompressionThreshold(getenv func(string) string, project string) float64 {
	system := getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = "/etc/gemini-cli/settings.json"
	}
	if t, ok := thresholdIn(system, false); ok {
		return t
	}
	if project != "" {
		// The project's file comes with the repository: read as input.
		if t, ok := thresholdIn(filepath.Join(project, ".gemini", "settings.json"), true); ok {
			return t
		}
	}
	if home := Home(getenv); home != "" {
		if t, ok := thresholdIn(SettingsFile(home), false); ok {
			return t
		}
	}
	return 0
}

// maxSettingsBytes bounds a settings file read on the hook path.
const maxSettingsBytes = 4 << 20

// thresholdIn reads model.compressionThreshold from a settings file: as
// input (no link, no FIFO) when it is not the user's or the system's own
// (which may be links: dotfiles).
func thresholdIn(path string, input bool) (float64, bool) {
	var data []byte
	var err error
	if input {
		data, err = fsx.ReadRegular(path, maxSettingsBytes)
	} else {
		data, err = readSmall(path)
	}
	if err != nil {
		return 0, false
	}
	var s struct {
		Model struct {
			CompressionThreshold *float64 `json:"compressionThreshold"`
		} `json:"model"`
	}
	if json.Unmarshal(stripComments(data), &s) != nil || s.Model.CompressionThreshold == nil {
		return 0, false
	}
	return *s.Model.CompressionThreshold, true
}

// readSmall reads a file of at most maxSettingsBytes.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes+1))
	if err == nil && len(data) > maxSettingsBytes {
		err = fmt.Errorf("%s: over %d bytes", path, maxSettingsBytes)
	}
	return data, err
}

// stripComments removes // and /* */ comments outside strings: the CLI
// reads its settings files with comments allowed.
func stripComments(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += 2 + end + 1
		default:
			out = append(out, c)
		}
	}
	return out
}
