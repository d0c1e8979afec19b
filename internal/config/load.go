package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// ProjectFileName is the optional per-project config file, in the project root.
const ProjectFileName = ".ctxkeep.toml"

// Files are the config files to read; an empty path or a missing file is skipped.
type Files struct {
	User    string `json:"user"`
	Project string `json:"project"`
}

// Source says where an effective value came from.
type Source struct {
	Kind  string `json:"kind"`            // "default", "user", "project" or "env"; "ignored" for a store-wide key a project file set
	Where string `json:"where,omitempty"` // the file or the variable
}

func (s Source) String() string {
	if s.Where == "" {
		return s.Kind
	}
	return s.Kind + " " + s.Where
}

// Value is one effective setting, for `ctxkeep config`.
type Value struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source Source `json:"source"`
	Doc    string `json:"doc"`
}

// Error is a bad config value or key; it names the key and where it came from.
type Error struct {
	Key    string
	Source Source
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("config: %s (%s): %s", e.Key, e.Source, e.Msg)
}

// entry is a value on its way to the Config.
type entry struct {
	v      int64
	list   []string // for list keys
	text   string
	source Source
}

// Default returns the built-in configuration.
func Default() *Config {
	c, _, err := Load(Files{}, nil)
	if err != nil {
		panic("config: bad built-in default: " + err.Error())
	}
	return c
}

// Load builds the effective configuration: defaults, then the user file,
// then the project file, then CTXKEEP_* variables from environ.
func Load(files Files, environ []string) (*Config, []Value, error) {
	l := loader{vals: map[string]entry{}}
	if err := l.defaults(); err != nil {
		return nil, nil, err
	}
	for _, f := range []struct{ kind, path string }{{"user", files.User}, {"project", files.Project}} {
		if err := l.file(f.kind, f.path); err != nil {
			return nil, nil, err
		}
	}
	if err := l.env(environ); err != nil {
		return nil, nil, err
	}
	return l.build()
}

type loader struct {
	vals    map[string]entry // by dotted key
	ignored []Value          // store-wide keys a project file tried to set
}

// userScope are the sections whose settings act on the store every
// project shares: how long outputs are kept and how large the store may
// grow. They come from the user's config and environment only; a
// repository's .ctxkeep.toml is input, and must not delete what other
// projects stored. The team archive's keys are the user's too: a
// repository must not choose where the user's sessions are pushed, nor
// widen what is pushed. Nor may it widen what the MCP server lets the
// agent read.
var userScope = []string{"retention.", "limits.", "team.", "mcp."}

// UserScope reports whether key may only be set by the user (config.toml
// or CTXKEEP_* variables), never by a project's file.
func UserScope(key string) bool {
	for _, p := range userScope {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

func (l *loader) defaults() error {
	src := Source{Kind: "default"}
	for _, s := range settings {
		if err := l.set(s.key, s.def, src); err != nil {
			return err
		}
	}
	for _, li := range lists {
		l.setList(li.key, li.def, src)
	}
	for _, tx := range texts {
		l.vals[tx.key] = entry{text: tx.def, source: src}
	}
	for _, sec := range sections {
		for _, kv := range sec.defaults {
			if err := l.set(sec.name+"."+kv[0], kv[1], src); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *loader) file(kind, path string) error {
	if path == "" {
		return nil
	}
	data, err := readFile(kind, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config: %s: %s", path, tomlError(err))
	}
	src := Source{Kind: kind, Where: path}
	return l.table("", doc, src)
}

// maxFileBytes bounds a config file (a few hundred bytes in practice).
const maxFileBytes = 1 << 20

// readFile reads a config file. The project's comes with a repository and
// is read on every hook call, so it is read as input (fsx.ReadRegular: no
// link, no FIFO or device, at most maxFileBytes): a repository cannot make
// the hook hang or fill its memory with it. The user's own may be a link
// (dotfiles).
func readFile(kind, path string) ([]byte, error) {
	if kind == "project" {
		return fsx.ReadRegular(path, maxFileBytes)
	}
	return os.ReadFile(path)
}

// table walks a decoded TOML table, setting each leaf by its dotted key.
func (l *loader) table(prefix string, t map[string]any, src Source) error {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the first bad key deterministically
	for _, k := range keys {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := t[k].(map[string]any); ok {
			if err := l.table(key, sub, src); err != nil {
				return err
			}
			continue
		}
		if src.Kind == "project" && UserScope(key) {
			text, _ := tomlText(t[k])
			l.ignored = append(l.ignored, Value{Key: key, Value: text, Source: Source{Kind: "ignored", Where: src.Where},
				Doc: "yours only (it acts beyond this project): set it in your own config.toml or a CTXKEEP_ variable, not in a project's file"})
			continue
		}
		if isList(key) {
			items, err := tomlStrings(t[k])
			if err != nil {
				return &Error{Key: key, Source: src, Msg: err.Error()}
			}
			l.setList(key, items, src)
			continue
		}
		text, err := tomlText(t[k])
		if err != nil {
			return &Error{Key: key, Source: src, Msg: err.Error()}
		}
		if tx, ok := textKey(key); ok {
			if err := l.setText(tx, text, src); err != nil {
				return err
			}
			continue
		}
		if err := l.set(key, text, src); err != nil {
			return err
		}
	}
	return nil
}

// tomlStrings reads a TOML array of strings.
func tomlStrings(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of strings such as [\"a\", \"b\"], got %v", v)
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("want a list of strings, got %v in it", x)
		}
		out = append(out, s)
	}
	return out, nil
}

func isList(key string) bool {
	for _, li := range lists {
		if li.key == key {
			return true
		}
	}
	return false
}

// setList records a list value; lists are never out of range.
func (l *loader) setList(key string, items []string, src Source) {
	l.vals[key] = entry{list: items, text: formatList(items), source: src}
}

// textKey finds a text key.
func textKey(key string) (text, bool) {
	for _, tx := range texts {
		if tx.key == key {
			return tx, true
		}
	}
	return text{}, false
}

// setText records a text value once its check passes.
func (l *loader) setText(tx text, s string, src Source) error {
	s = strings.TrimSpace(s)
	if tx.check != nil && s != "" {
		if err := tx.check(s); err != nil {
			return &Error{Key: tx.key, Source: src, Msg: err.Error()}
		}
	}
	l.vals[tx.key] = entry{text: s, source: src}
	return nil
}

func formatList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// splitList reads a comma-separated list from an environment variable.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// tomlError adds the line and column to a TOML syntax error.
func tomlError(err error) string {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Sprintf("line %d, column %d: %v", row, col, de)
	}
	return err.Error()
}

// tomlText turns a TOML leaf back into the text form every source shares.
func tomlText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return "", fmt.Errorf("want a whole number, got %v", v)
	default:
		return "", fmt.Errorf("want a number, a boolean or a string, got %v", v)
	}
}

const envPrefix = "CTXKEEP_"

// env applies CTXKEEP_<SECTION>_<KEY> variables. Variables that name no
// setting are left alone: CTXKEEP_HOME and friends are not settings.
func (l *loader) env(environ []string) error {
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || val == "" || !strings.HasPrefix(name, envPrefix) {
			continue
		}
		key := l.envKey(strings.TrimPrefix(name, envPrefix))
		if key == "" {
			continue
		}
		if isList(key) {
			l.setList(key, splitList(val), Source{Kind: "env", Where: name})
			continue
		}
		if tx, ok := textKey(key); ok {
			if err := l.setText(tx, val, Source{Kind: "env", Where: name}); err != nil {
				return err
			}
			continue
		}
		if err := l.set(key, val, Source{Kind: "env", Where: name}); err != nil {
			return err
		}
	}
	return nil
}

// envKey maps RETENTION_NEVER_RETRIEVED to retention.never_retrieved and
// THRESHOLD_BASH to threshold.Bash (section keys match case-insensitively
// the keys already known, else are taken as written).
func (l *loader) envKey(rest string) string {
	for _, s := range settings {
		if strings.EqualFold(strings.ReplaceAll(s.key, ".", "_"), rest) {
			return s.key
		}
	}
	for _, li := range lists {
		if strings.EqualFold(strings.ReplaceAll(li.key, ".", "_"), rest) {
			return li.key
		}
	}
	for _, tx := range texts {
		if strings.EqualFold(strings.ReplaceAll(tx.key, ".", "_"), rest) {
			return tx.key
		}
	}
	for _, sec := range sections {
		name, ok := cutPrefixFold(rest, sec.name+"_")
		if !ok || name == "" {
			continue
		}
		for k := range l.vals {
			if known, ok := strings.CutPrefix(k, sec.name+"."); ok && strings.EqualFold(known, name) {
				return k
			}
		}
		for _, k := range sec.keys {
			if strings.EqualFold(k, name) {
				return sec.name + "." + k
			}
		}
		return sec.name + "." + name
	}
	return ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// set parses one value for a dotted key and records where it came from.
func (l *loader) set(key, text string, src Source) error {
	k, min, max, err := lookup(key)
	if err != nil {
		return &Error{Key: key, Source: src, Msg: err.Error()}
	}
	v, err := parse(k, text)
	if err == nil && (v < min || v > max) {
		err = fmt.Errorf("%s is out of range [%s, %s]", text, format(k, min), format(k, max))
	}
	if err != nil {
		return &Error{Key: key, Source: src, Msg: err.Error()}
	}
	l.vals[key] = entry{v: v, text: format(k, v), source: src}
	return nil
}

// lookup finds the kind and bounds of a dotted key.
func lookup(key string) (kind, int64, int64, error) {
	for _, s := range settings {
		if s.key == key {
			return s.kind, s.min, s.max, nil
		}
	}
	name, rest, ok := strings.Cut(key, ".")
	for _, sec := range sections {
		if sec.name != name {
			continue
		}
		if !ok || rest == "" || strings.Contains(rest, ".") {
			break
		}
		if sec.keys != nil && !contains(sec.keys, rest) {
			return 0, 0, 0, fmt.Errorf("unknown key; %s takes %s", sec.name, strings.Join(sec.keys, ", "))
		}
		return sec.kind, sec.min, sec.max, nil
	}
	return 0, 0, 0, fmt.Errorf("unknown key (see `ctxkeep config` for the list)")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// build applies the collected values to a Config, in a stable order.
func (l *loader) build() (*Config, []Value, error) {
	c := &Config{}
	var out []Value
	for _, s := range settings {
		e := l.vals[s.key]
		s.apply(c, e.v)
		out = append(out, Value{Key: s.key, Value: e.text, Source: e.source, Doc: s.doc})
	}
	for _, li := range lists {
		e := l.vals[li.key]
		li.apply(c, e.list)
		out = append(out, Value{Key: li.key, Value: e.text, Source: e.source, Doc: li.doc})
	}
	for _, tx := range texts {
		e := l.vals[tx.key]
		tx.apply(c, e.text)
		out = append(out, Value{Key: tx.key, Value: e.text, Source: e.source, Doc: tx.doc})
	}
	for _, sec := range sections {
		var keys []string
		for k := range l.vals {
			if rest, ok := strings.CutPrefix(k, sec.name+"."); ok {
				keys = append(keys, rest)
			}
		}
		sort.Slice(keys, func(i, j int) bool { // "default" first, then by name
			return keys[i] == "default" || (keys[j] != "default" && keys[i] < keys[j])
		})
		for _, k := range keys {
			e := l.vals[sec.name+"."+k]
			sec.apply(c, k, e.v)
			out = append(out, Value{Key: sec.name + "." + k, Value: e.text, Source: e.source, Doc: sec.doc})
		}
	}
	return c, append(out, l.ignored...), nil
}
