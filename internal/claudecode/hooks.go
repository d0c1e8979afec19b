package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// HookSpec is one handler ctxkeep wants Claude Code to run.
type HookSpec struct {
	Event   string // a hook event name, e.g. "PostToolUse"
	Matcher string // "" matches everything and is left out of the file
	Timeout int    // seconds; 0 leaves it out and Claude Code's default applies
}

// Registration is everything ctxkeep registers: one command line, run for
// each of the hooks.
type Registration struct {
	Command string // the full command line, e.g. "'/opt/my tools/ctxkeep-hook' hook"
	Hooks   []HookSpec
	MCP     *MCPServer // the MCP server a plugin starts along with the hooks; nil: none
	CLI     string     // the path of ctxkeep itself (the statusline's command)
}

// Found is a ctxkeep handler found in a settings file.
type Found struct {
	Event   string
	Matcher string // "" when the group has none
	Command string
	Timeout int // seconds; 0 when absent or not a whole number
}

// ErrMalformed is wrapped by the errors about settings that are not the
// JSON Claude Code expects. ctxkeep does not edit such a file: it could only
// guess what the user meant.
var ErrMalformed = errors.New("malformed settings")

// AddHooks registers reg in a settings file's content. Each HookSpec gets
// exactly one ctxkeep handler, in a matcher group of its own; a handler left
// by another ctxkeep version (another path or timeout) is updated where it
// stands, and ctxkeep handlers under events reg does not list are removed.
// Everything else is kept. When nothing needs to change, AddHooks returns
// settings itself and changed is false.
func AddHooks(settings []byte, reg Registration) (out []byte, changed bool, err error) {
	p, err := newPlan(reg)
	if err != nil {
		return nil, false, err
	}
	return editSettings(settings, p)
}

// RemoveHooks takes every ctxkeep handler out of a settings file's content,
// along with the matcher groups, events and hooks object that are left
// empty by it. When there is none, it returns settings itself and changed
// is false.
func RemoveHooks(settings []byte) (out []byte, changed bool, err error) {
	return editSettings(settings, plan{})
}

// FindHooks lists the ctxkeep handlers in a settings file's content, in
// file order.
func FindHooks(settings []byte) ([]Found, error) {
	doc, err := parseSettings(settings)
	if err != nil {
		return nil, err
	}
	var found []Found
	for _, ev := range doc.hooks {
		groups, _ := rawjson.ParseArray(ev.Value)
		for _, raw := range groups {
			g, ok := parseGroup(raw)
			if !ok {
				continue
			}
			for _, h := range g.handlers {
				if cmd, timeout, ok := ctxkeepHandler(h); ok {
					found = append(found, Found{Event: ev.Name, Matcher: g.matcher, Command: cmd, Timeout: timeout})
				}
			}
		}
	}
	return found, nil
}

// plan is the set of handlers ctxkeep wants, by event. The zero plan wants
// none, which removes them all.
type plan struct {
	command string
	events  []string              // in registration order, for new events
	specs   map[string][]HookSpec // by event
}

func newPlan(reg Registration) (plan, error) {
	if !IsCtxkeepCommand(reg.Command) {
		// A handler AddHooks could not recognise would be added again on
		// every install and never removed.
		return plan{}, fmt.Errorf("hook command %q does not run \"ctxkeep hook\"", reg.Command)
	}
	p := plan{command: reg.Command, specs: map[string][]HookSpec{}}
	for _, s := range reg.Hooks {
		switch {
		case s.Event == "":
			return plan{}, errors.New("hook with no event")
		case s.Timeout < 0:
			return plan{}, fmt.Errorf("hook %s: negative timeout %d", s.Event, s.Timeout)
		case slices.ContainsFunc(p.specs[s.Event], func(o HookSpec) bool { return o.Matcher == s.Matcher }):
			return plan{}, fmt.Errorf("hook %s with matcher %q registered twice", s.Event, s.Matcher)
		}
		if _, ok := p.specs[s.Event]; !ok {
			p.events = append(p.events, s.Event)
		}
		p.specs[s.Event] = append(p.specs[s.Event], s)
	}
	return p, nil
}

// handler and group are the JSON ctxkeep writes, fields in file order.
type (
	handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout,omitempty"`
	}
	group struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []handler `json:"hooks"`
	}
)

func (p plan) handler(s HookSpec) handler {
	return handler{Type: "command", Command: p.command, Timeout: s.Timeout}
}

func (p plan) group(s HookSpec) json.RawMessage {
	return rawjson.Encode(group{Matcher: s.Matcher, Hooks: []handler{p.handler(s)}})
}

// editSettings applies p to a settings file's content.
func editSettings(data []byte, p plan) ([]byte, bool, error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	hooks, edited := p.editHooks(doc.hooks)
	if len(edited) == 0 {
		return data, false, nil
	}
	keep := twoSpaceIndented(data)
	value := hooks.Marshal()
	if keep {
		var err error
		if value, err = indentHooks(hooks, edited); err != nil {
			return nil, false, err
		}
	}
	top := doc.top
	switch i := top.Find("hooks"); {
	case i < 0:
		top = append(top, rawjson.NewMember("hooks", value))
	case len(hooks) == 0:
		top = slices.Delete(top, i, i+1)
	default:
		top[i].Value = value
	}
	if !keep {
		out, err := format(top.Marshal(), usesCRLF(data))
		return out, err == nil, err
	}
	out, err := formatKeeping(top, "", usesCRLF(data))
	return out, err == nil, err
}

// indentHooks writes the hooks object at its depth in a file indented
// with two spaces: the events ctxkeep edited are indented as the client
// writes them, the others kept as the user wrote them (on one line, say).
func indentHooks(hooks rawjson.Object, edited map[string]bool) (json.RawMessage, error) {
	return writeKeeping(hooks, "  ", func(name string) bool { return edited[name] })
}

// editHooks brings each event of the hooks object in line with the plan
// and returns the events it changed, added or removed. Events keep their
// order; new ones go at the end.
func (p plan) editHooks(hooks rawjson.Object) (rawjson.Object, map[string]bool) {
	out := make(rawjson.Object, 0, len(hooks)+len(p.events))
	edited := map[string]bool{}
	for _, ev := range hooks {
		value, changed := p.editEvent(ev.Name, ev.Value)
		if changed {
			edited[ev.Name] = true
		}
		if value != nil {
			ev.Value = value
			out = append(out, ev)
		}
	}
	for _, name := range p.events {
		if hooks.Find(name) < 0 {
			value, _ := p.editEvent(name, json.RawMessage("[]"))
			out = append(out, rawjson.NewMember(name, value))
			edited[name] = true
		}
	}
	return out, edited
}

// editEvent edits the matcher groups of one event. The planned handlers
// not already present get a new group each, at the end. It returns nil when
// the event is left with no group.
func (p plan) editEvent(event string, raw json.RawMessage) (json.RawMessage, bool) {
	groups, _ := rawjson.ParseArray(raw) // checked by parseSettings
	pending := slices.Clone(p.specs[event])
	out := make([]json.RawMessage, 0, len(groups)+len(pending))
	changed := false
	for _, g := range groups {
		g, edited := p.editGroup(g, &pending)
		changed = changed || edited
		if g != nil {
			out = append(out, g)
		}
	}
	for _, s := range pending {
		out = append(out, p.group(s))
		changed = true
	}
	switch {
	case !changed:
		return raw, false
	case len(out) == 0:
		return nil, true
	default:
		return rawjson.MarshalArray(out), true
	}
}

// editGroup edits ctxkeep's handlers in one matcher group. The first one
// under a matcher the plan still wants becomes the planned handler, in
// place; any other is removed. The user's handlers are not touched. It
// returns nil when the group is left with no handler.
func (p plan) editGroup(raw json.RawMessage, pending *[]HookSpec) (json.RawMessage, bool) {
	g, ok := parseGroup(raw)
	if !ok {
		return raw, false
	}
	out := make([]json.RawMessage, 0, len(g.handlers))
	changed := false
	for _, h := range g.handlers {
		if _, _, ours := ctxkeepHandler(h); !ours {
			out = append(out, h)
			continue
		}
		spec, wanted := take(pending, g)
		if !wanted {
			changed = true
			continue
		}
		if want := rawjson.Encode(p.handler(spec)); !sameJSON(h, want) {
			h = want
			changed = true
		}
		out = append(out, h)
	}
	switch {
	case !changed:
		return raw, false
	case len(out) == 0:
		return nil, true
	default:
		g.obj[g.hooksAt].Value = rawjson.MarshalArray(out)
		return g.obj.Marshal(), true
	}
}

// take removes from pending, and returns, the spec for g's matcher.
func take(pending *[]HookSpec, g matcherGroup) (HookSpec, bool) {
	if !g.matcherOK {
		return HookSpec{}, false
	}
	i := slices.IndexFunc(*pending, func(s HookSpec) bool { return s.Matcher == g.matcher })
	if i < 0 {
		return HookSpec{}, false
	}
	s := (*pending)[i]
	*pending = slices.Delete(*pending, i, i+1)
	return s, true
}

// matcherGroup is an element of an event's array that has the expected
// shape, {"matcher": "…", "hooks": […]}. Elements of any other shape are not
// ctxkeep's, and are kept as they are.
type matcherGroup struct {
	obj       rawjson.Object
	hooksAt   int // index of "hooks" in obj
	handlers  []json.RawMessage
	matcher   string
	matcherOK bool // the matcher is absent or a string
}

func parseGroup(raw json.RawMessage) (matcherGroup, bool) {
	obj, err := rawjson.ParseObject(raw)
	if err != nil {
		return matcherGroup{}, false
	}
	g := matcherGroup{obj: obj, hooksAt: obj.Find("hooks"), matcherOK: true}
	if g.hooksAt < 0 {
		return matcherGroup{}, false
	}
	if g.handlers, err = rawjson.ParseArray(obj[g.hooksAt].Value); err != nil {
		return matcherGroup{}, false
	}
	if m := obj.Get("matcher"); m != nil {
		g.matcherOK = json.Unmarshal(m, &g.matcher) == nil
	}
	return g, true
}

// ctxkeepHandler decodes a handler when it runs ctxkeep's hook command.
func ctxkeepHandler(raw json.RawMessage) (cmd string, timeout int, ok bool) {
	var fields map[string]json.RawMessage // exact keys, unlike a struct
	if json.Unmarshal(raw, &fields) != nil ||
		json.Unmarshal(fields["command"], &cmd) != nil ||
		!IsCtxkeepCommand(cmd) {
		return "", 0, false
	}
	_ = json.Unmarshal(fields["timeout"], &timeout) // 0 unless a whole number
	return cmd, timeout, true
}
