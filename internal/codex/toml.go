package codex

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml can be large: Codex adds a [projects."<path>"]
// table for every folder the user trusts, and a user of many worktrees has
// tens of thousands of them. go-toml v2.4.3 checks a document for keys
// defined twice by scanning every key seen so far for each new one, which
// makes decoding quadratic in the number of tables (200,000 tables: 541 s
// for one install). So ctxkeep reads the file once with go-toml's own
// parser (linear), checks that no key is defined twice with the same rules
// go-toml applies (seen, below, a map where go-toml scans), and hands to
// go-toml's decoder only what it needs decoded: the top-level keys and the
// tables that can hold hooks.state or features.hooks, a few lines.

// unmarshal is toml.Unmarshal; a test counts what goes through it.
var unmarshal = toml.Unmarshal

// scanned is what scanConfig reads of a config.toml.
type scanned struct {
	// trust is the part of the file that can hold hooks.state and
	// features.hooks, as a document of its own: every top-level key whose
	// first part is hooks or features, and every table whose header's
	// first part is; no other key can reach either.
	trust []byte
	// expressions is how many keys and table headers the file has, and
	// steps the work the check of their definitions took (seen.steps).
	expressions, steps int
}

// trustRoots are the first parts of the keys TrustState reads.
func trustRoot(part []byte) bool { return string(part) == "hooks" || string(part) == "features" }

// scanConfig reads config in one pass and returns an error wrapping
// ErrConfig when it is not a TOML document go-toml would decode: a syntax
// error, a key or table defined twice or as two kinds of thing, or a value
// out of its range (an integer past 64 bits, February 30th).
func scanConfig(config []byte) (scanned, error) {
	var out scanned
	var p unstable.Parser
	p.Reset(config)
	s := newSeen(len(config))
	var scalars [][]byte // numbers and dates, which only decoding checks
	var trust bytes.Buffer
	section := -1 // where the table being read started, when it is kept
	endSection := func(at int) {
		if section >= 0 {
			trust.Write(config[section:at])
			if trust.Len() > 0 && trust.Bytes()[trust.Len()-1] != '\n' {
				trust.WriteByte('\n')
			}
		}
		section = -1
	}
	for p.NextExpression() {
		e := p.Expression()
		out.expressions++
		switch e.Kind {
		case unstable.KeyValue:
			first := e.Key()
			first.Next()
			if s.current == 0 && trustRoot(first.Node().Data) {
				trust.Write(p.Raw(e.Raw))
				trust.WriteByte('\n')
			}
			if err := s.keyValue(s.current, e, &scalars); err != nil {
				return out, fmt.Errorf("%w: it does not parse: %v", ErrConfig, err)
			}
		case unstable.Table, unstable.ArrayTable:
			key := e.Key()
			key.Next()
			first := key.Node()
			start := lineStart(config, int(first.Raw.Offset))
			endSection(start)
			if trustRoot(first.Data) {
				section = start
			}
			var err error
			if e.Kind == unstable.Table {
				err = s.table(e)
			} else {
				err = s.arrayTable(e)
			}
			if err != nil {
				return out, fmt.Errorf("%w: it does not parse: %v", ErrConfig, err)
			}
		}
	}
	if err := p.Error(); err != nil {
		return out, fmt.Errorf("%w: it does not parse: %v", ErrConfig, parseError(&p, err))
	}
	endSection(len(config))
	if len(scalars) > 0 {
		// Each number and date once more, through go-toml's decoder: one
		// array, which costs no key to check.
		doc := append([]byte("v = ["), bytes.Join(scalars, []byte(", "))...)
		var v struct{ V []any }
		if err := unmarshal(append(doc, "]\n"...), &v); err != nil {
			return out, fmt.Errorf("%w: it does not parse: %v", ErrConfig, err)
		}
	}
	out.trust, out.steps = trust.Bytes(), s.steps
	return out, nil
}

// lineStart is the offset of the start of the line holding offset.
func lineStart(data []byte, offset int) int {
	return bytes.LastIndexByte(data[:offset], '\n') + 1
}

// parseError says where a syntax error is: "line N: …".
func parseError(p *unstable.Parser, err error) error {
	perr, ok := err.(*unstable.ParserError)
	if !ok || len(perr.Highlight) == 0 && cap(perr.Highlight) == 0 {
		return err
	}
	defer func() { recover() }() // a highlight that is not of the input: the error as it is
	line := p.Shape(p.Range(perr.Highlight)).Start.Line
	return fmt.Errorf("line %d: %s", line, perr.Message)
}

// seen is go-toml's check of which keys a document defines
// (internal/tracker.SeenTracker in v2.4.3: the same kinds and the same
// rules), with the children of each key found through a map instead of a
// scan of every key seen before. A [[table]] met again gets a fresh entry,
// so that the keys of its previous element are out of reach, as go-toml's
// clear makes them.
type seen struct {
	kinds   []seenKind // by entry id; 0 is the root table
	defined []bool     // tableKind: defined by its own header, not only as a prefix
	index   map[seenKey]int32
	current int32 // the table key-values go into
	steps   int   // lookups and entries made: the work done
}

type seenKind uint8

const (
	valueKind      seenKind = iota + 1 // a value: a scalar, an array, an inline table
	kvTableKind                        // a table made by a dotted key
	tableKind                          // a table made by a header, or as a prefix of one
	arrayTableKind                     // an array of tables, [[…]]
	anonymousKind                      // an inline table or array in an array: no name
)

func (k seenKind) String() string {
	return [...]string{"invalid", "value", "kv-table", "table", "array-table", "anonymous"}[k]
}

type seenKey struct {
	parent int32
	name   string
}

// newSeen is a check of a document of size bytes.
func newSeen(size int) *seen {
	n := max(1, min(size/32, 1<<22)) // about a key every 32 bytes in Codex's files: no growing
	s := &seen{kinds: make([]seenKind, 1, n), defined: make([]bool, 1, n), index: make(map[seenKey]int32, n)}
	s.kinds[0], s.defined[0] = tableKind, true
	return s
}

// lookup is a key part as the key of a map lookup, without a copy: the map
// does not keep it.
func lookup(part []byte) string { return unsafe.String(unsafe.SliceData(part), len(part)) }

func (s *seen) find(parent int32, part []byte) int32 {
	s.steps++
	if id, ok := s.index[seenKey{parent, lookup(part)}]; ok {
		return id
	}
	return -1
}

func (s *seen) create(parent int32, part []byte, kind seenKind, defined bool) int32 {
	s.steps++
	id := int32(len(s.kinds))
	s.kinds, s.defined = append(s.kinds, kind), append(s.defined, defined)
	if kind != anonymousKind {
		s.index[seenKey{parent, string(part)}] = id
	}
	return id
}

// parents walks the key parts before the last of a header, making the
// tables that are not there yet, and returns the last part and its parent.
func (s *seen) parents(e *unstable.Node) (int32, []byte, error) {
	parent := int32(0)
	it := e.Key()
	for it.Next() {
		name := it.Node().Data
		if it.IsLast() {
			return parent, name, nil
		}
		i := s.find(parent, name)
		if i < 0 {
			i = s.create(parent, name, tableKind, false)
		} else if k := s.kinds[i]; k != tableKind && k != arrayTableKind && k != kvTableKind {
			return 0, nil, fmt.Errorf("toml: key %s already exists as a value", name)
		}
		parent = i
	}
	panic("unreachable: a header without a key")
}

// table is a [table] header.
func (s *seen) table(e *unstable.Node) error {
	parent, name, err := s.parents(e)
	if err != nil {
		return err
	}
	i := s.find(parent, name)
	if i < 0 {
		s.current = s.create(parent, name, tableKind, true)
		return nil
	}
	switch s.kinds[i] {
	case tableKind:
		if s.defined[i] {
			return fmt.Errorf("toml: table %s already exists", name)
		}
		s.defined[i], s.current = true, i
		return nil
	case kvTableKind:
		return fmt.Errorf("toml: table %s already exists as defined by a dotted key", name)
	case arrayTableKind:
		return fmt.Errorf("toml: table %s already exists as an array of tables", name)
	default:
		return fmt.Errorf("toml: key %s should be a table, not a %s", name, s.kinds[i])
	}
}

// arrayTable is an [[array table]] header: a new element.
func (s *seen) arrayTable(e *unstable.Node) error {
	parent, name, err := s.parents(e)
	if err != nil {
		return err
	}
	if i := s.find(parent, name); i >= 0 && s.kinds[i] != arrayTableKind {
		return fmt.Errorf("toml: key %s already exists as a %s, but should be an array table", name, s.kinds[i])
	}
	s.current = s.create(parent, name, arrayTableKind, true)
	return nil
}

// keyValue is a key = value under parent, its value checked too.
func (s *seen) keyValue(parent int32, e *unstable.Node, scalars *[][]byte) error {
	it := e.Key()
	for it.Next() {
		name := it.Node().Data
		if it.IsLast() {
			if s.find(parent, name) >= 0 {
				return fmt.Errorf("toml: key %s is already defined", name)
			}
			return s.value(s.create(parent, name, valueKind, false), e.Value(), scalars)
		}
		i := s.find(parent, name)
		if i < 0 {
			i = s.create(parent, name, kvTableKind, false)
		} else if s.kinds[i] != kvTableKind {
			return fmt.Errorf("toml: key %s is already defined", name)
		}
		parent = i
	}
	panic("unreachable: a key-value without a key")
}

// value checks what an inline table or an array holds, and keeps the
// numbers and dates for decoding.
func (s *seen) value(id int32, v *unstable.Node, scalars *[][]byte) error {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if err := s.keyValue(id, it.Node(), scalars); err != nil {
				return err
			}
		}
	case unstable.Array:
		it := v.Children()
		for it.Next() {
			el := it.Node()
			if el.Kind == unstable.InlineTable || el.Kind == unstable.Array {
				if err := s.value(s.create(id, nil, anonymousKind, false), el, scalars); err != nil {
					return err
				}
				continue
			}
			s.value(id, el, scalars)
		}
	case unstable.Integer, unstable.Float, unstable.DateTime, unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime:
		*scalars = append(*scalars, v.Data)
	}
	return nil
}
