package codex

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Usage reads the context usage from rollout lines, for the warnings and
// the statusline (transcript.Dialect): the last response's token_count, the
// window recorded with it, the model of the turn.
type Usage struct{}

var _ transcript.Dialect = Usage{}

// MayMatter: only usage records, token counts, compactions, turn
// contexts and task starts set the usage.
func (Usage) MayMatter(line []byte) bool {
	for _, kind := range usageKinds {
		if bytes.Contains(line, kind) {
			return true
		}
	}
	return false
}

var usageKinds = [][]byte{[]byte(`"token_usage_record"`), []byte(`"token_count"`), []byte(`"compacted"`), []byte(`"turn_context"`), []byte(`"task_started"`)}

// Take updates u with one line and reports whether it is a compaction.
func (Usage) Take(u *ctxkeep.Usage, line []byte) bool {
	kind, p, ok := decode(line)
	if !ok {
		return false
	}
	r, _ := transcript.ParseLine(line) // for its timestamp
	takeUsage(u, kind, &p, r.Timestamp)
	return kind == lineCompacted
}

// Settles: a token count of a response (input recorded) or a turn
// context, which comes before the responses of its turn and names their
// model. A compaction found on the way back is taken too.
func (Usage) Settles(line []byte) bool {
	kind, p, ok := decode(line)
	return ok && kind == lineTurnContext && p.Model != ""
}

// Thresholds are a Codex session's context limits, as the client works
// them out (codex-hooks.md §7): it compacts once the context passes 90%
// of the model's context window, or model_auto_compact_token_limit when
// that is lower. The window it records with the usage (window here) is
// the effective one, 95% of the model's: so the default point is
// window × 100/95 × 90% (244,800 of gpt-5.5's 258,400, where Codex
// 0.169.0 was measured to compact, between 244,000 and 245,500). Codex
// warns nowhere before, and has no blocking point of its own short of the
// window.
func Thresholds(window, configured int64) (win, autoCompact int64) {
	auto := window * 18 / 19
	if configured > 0 && (auto <= 0 || configured < auto) {
		auto = configured
	}
	return window, auto
}

// AutoCompactLimit reads model_auto_compact_token_limit from the user's
// config.toml, 0 when it is not set. Only the top-level key counts (a
// profile's is not followed).
func AutoCompactLimit(home string) int64 {
	data, err := fsx.ReadRegular(ConfigFile(home), maxConfigBytes)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			return 0 // top-level keys come before the first table
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "model_auto_compact_token_limit" {
			continue
		}
		value, _, _ = strings.Cut(value, "#")
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(value), "_", ""), 10, 64)
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	return 0
}

// maxConfigBytes bounds the config.toml read on the hook path.
const maxConfigBytes = 4 << 20

// tailBytes bounds how far back the hook path looks in a rollout: the
// line it wants was written moments before.
const tailBytes = 8 << 20

// errNotFound is returned when a rollout's recent lines lack the line.
var errNotFound = errors.New("not in the rollout's recent lines")

// lastLine calls match with each complete line of the rollout at path
// (opened as input: no link, no FIFO), last first, within its last
// tailBytes, until match returns true.
func lastLine(path string, match func(kind string, p *payload) bool) error {
	f, info, err := fsx.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	found, read := false, 0
	_, err = transcript.ScanBack(f, info.Size(), tailBytes+1<<20, 8<<20, func(line []byte) bool {
		read += len(line) + 1
		if kind, p, ok := decode(line); ok && match(kind, &p) {
			found = true
		}
		return !found && read < tailBytes
	})
	if err == nil && !found {
		err = errNotFound
	}
	return err
}
