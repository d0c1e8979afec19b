package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// settings is a parsed settings file: its top-level members and the hooks
// object among them, whose events are all arrays, each named once.
type settings struct {
	top   rawjson.Object
	hooks rawjson.Object // nil when there is no "hooks"
}

// parseSettings parses a settings file's content, or explains, wrapping
// ErrMalformed, why it is not one ctxkeep can edit safely. Empty content is
// an empty object, as for a missing file.
func parseSettings(data []byte) (settings, error) {
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 { // JSON's spaces only
		return settings{top: rawjson.Object{}}, nil
	}
	if err := checkSyntax(data); err != nil {
		return settings{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	top, err := rawjson.ParseObject(data)
	if err != nil {
		return settings{}, fmt.Errorf("%w: the top level is %v", ErrMalformed, err)
	}
	// Of repeated keys, a JSON parser keeps one (JSON.parse: the last).
	// Editing that one could bring another back to life, and the user
	// surely did not mean to have two, so ctxkeep asks them to fix it.
	if top.Count("hooks") > 1 {
		return settings{}, fmt.Errorf("%w: \"hooks\" appears more than once", ErrMalformed)
	}
	raw := top.Get("hooks")
	if raw == nil {
		return settings{top: top}, nil
	}
	hooks, err := rawjson.ParseObject(raw)
	if err != nil {
		return settings{}, fmt.Errorf("%w: \"hooks\" is %v", ErrMalformed, err)
	}
	for _, ev := range hooks {
		if hooks.Count(ev.Name) > 1 {
			return settings{}, fmt.Errorf("%w: \"hooks\".%q appears more than once", ErrMalformed, ev.Name)
		}
		if _, err := rawjson.ParseArray(ev.Value); err != nil {
			return settings{}, fmt.Errorf("%w: \"hooks\".%q is %v", ErrMalformed, ev.Name, err)
		}
	}
	return settings{top: top, hooks: hooks}, nil
}

// format renders a settings document the way Claude Code writes one: two
// spaces of indentation and a final newline. A file with CRLF line endings
// keeps them.
func format(doc json.RawMessage, crlf bool) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		return nil, fmt.Errorf("claudecode: formatting settings: %w", err)
	}
	b.WriteByte('\n')
	if crlf {
		return bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte("\r\n")), nil
	}
	return b.Bytes(), nil
}

// formatKeeping renders the top-level object with every member but edited
// copied as the user wrote it, so that the diff of an install touches only
// the hooks. It is for files indented with two spaces, where a member's raw
// value already sits at the right depth.
func formatKeeping(top rawjson.Object, edited string, crlf bool) ([]byte, error) {
	out, err := writeKeeping(top, "", func(name string) bool { return name == edited })
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	if crlf {
		return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")), nil
	}
	return out, nil
}

// writeKeeping writes an object whose opening brace sits at depth (its
// indentation), one member a line: the members reindent names indented as
// the client indents, the others as they are.
func writeKeeping(obj rawjson.Object, depth string, reindent func(name string) bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range obj {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + depth + "  ")
		b.Write(m.Key)
		b.WriteString(": ")
		value := bytes.ReplaceAll(m.Value, []byte("\r\n"), []byte("\n"))
		if reindent(m.Name) {
			var ind bytes.Buffer
			if err := json.Indent(&ind, value, depth+"  ", "  "); err != nil {
				return nil, fmt.Errorf("claudecode: formatting settings: %w", err)
			}
			value = ind.Bytes()
		}
		b.Write(value)
	}
	if len(obj) > 0 {
		b.WriteString("\n" + depth)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// twoSpaceIndented reports whether the first indented line of data is
// indented by exactly two spaces (or nothing is indented at all, as in a
// file on one line), the way Claude Code writes settings.
func twoSpaceIndented(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == len(line) || len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		return string(line[:len(line)-len(trimmed)]) == "  "
	}
	return true
}

func usesCRLF(data []byte) bool {
	i := bytes.IndexByte(data, '\n')
	return i > 0 && data[i-1] == '\r'
}
