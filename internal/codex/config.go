package codex

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Trust is one hooks.state entry ctxkeep writes: the key of one of its
// handlers and the hash to trust.
type Trust struct {
	Key  string
	Hash string
}

// ErrConfig wraps the errors about a config.toml ctxkeep will not edit:
// one that does not parse, or one where its tables cannot go (hooks.state
// written as an inline table). The file is left as it is.
var ErrConfig = errors.New("cannot record hook trust in config.toml")

// trustMarker ends the header of every table ctxkeep writes into the
// user's config.toml, so that it finds its own again and nothing else.
const trustMarker = "# ctxkeep"

// SetTrust returns config.toml's content with ctxkeep's trust entries for
// the hooks file at hooksPath replaced by entries: every table ctxkeep
// wrote before for that file goes, as does any other table of the same
// keys (a trust given through Codex's own review, now rewritten); the new
// ones are appended. The user's other keys, tables and comments are kept
// as written. The result is parsed again, and must hold exactly the
// hashes given, or nothing is returned.
func SetTrust(config []byte, hooksPath string, entries []Trust) ([]byte, bool, error) {
	return setTrust(config, hooksPath, entries, nil)
}

// setTrust is SetTrust that also writes the user's entries: trust that
// follows a handler of theirs to its new index, written as theirs (without
// ctxkeep's marker, so that ctxkeep never takes it out again).
func setTrust(config []byte, hooksPath string, ours, theirs []Trust) ([]byte, bool, error) {
	if err := parses(config); err != nil {
		return nil, false, err
	}
	return editTrust(config, hooksPath, ours, theirs)
}

// editTrust is setTrust of a config.toml known to parse.
func editTrust(config []byte, hooksPath string, ours, theirs []Trust) ([]byte, bool, error) {
	want := map[string]bool{}
	for _, e := range append(ours, theirs...) {
		want[e.Key] = true
	}
	kept := dropTables(string(config), func(key string, marked bool) bool {
		return want[key] || (marked && strings.HasPrefix(key, hooksPath+":"))
	})
	var b strings.Builder
	b.WriteString(kept)
	if len(want) > 0 && strings.TrimSpace(kept) != "" {
		if !strings.HasSuffix(kept, "\n") {
			b.WriteByte('\n')
		}
		if !strings.HasSuffix(kept, "\n\n") {
			b.WriteByte('\n')
		}
	}
	for _, e := range theirs {
		fmt.Fprintf(&b, "[hooks.state.%s]\ntrusted_hash = %s\n", quote(e.Key), quote(e.Hash))
	}
	for _, e := range ours {
		fmt.Fprintf(&b, "[hooks.state.%s] %s\ntrusted_hash = %s\n", quote(e.Key), trustMarker, quote(e.Hash))
	}
	out := b.String()
	if out == string(config) {
		return config, false, nil
	}
	if err := holds(out, append(ours, theirs...)); err != nil {
		return nil, false, err
	}
	return []byte(out), true, nil
}

// RemoveTrust takes out every table ctxkeep wrote for the hooks file at
// hooksPath.
func RemoveTrust(config []byte, hooksPath string) ([]byte, bool, error) {
	return SetTrust(config, hooksPath, nil)
}

// TrustState reads config.toml's hooks.state: the trusted hash of each key
// (entries disabled with enabled = false are left out), and whether hooks
// are turned off altogether ([features] hooks = false).
func TrustState(config []byte) (hashes map[string]string, hooksOff bool, err error) {
	sc, err := scanConfig(config)
	if err != nil {
		return nil, false, err
	}
	return sc.state()
}

// state is TrustState of a scanned config.toml: go-toml decodes the few
// lines that can hold it.
func (sc scanned) state() (hashes map[string]string, hooksOff bool, err error) {
	var doc struct {
		Features struct {
			Hooks *bool `toml:"hooks"`
		} `toml:"features"`
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
				Enabled     *bool  `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := unmarshal(sc.trust, &doc); err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	hashes = map[string]string{}
	for k, s := range doc.Hooks.State {
		if s.Enabled == nil || *s.Enabled {
			hashes[k] = s.TrustedHash
		}
	}
	return hashes, doc.Features.Hooks != nil && !*doc.Features.Hooks, nil
}

// parses checks that config is a TOML document, in time linear in its
// size (scanConfig).
func parses(config []byte) error {
	_, err := scanConfig(config)
	return err
}

// holds checks that config parses and trusts exactly entries' hashes.
func holds(config string, entries []Trust) error {
	hashes, _, err := TrustState([]byte(config))
	if err != nil {
		return fmt.Errorf("%w (is hooks.state written as an inline table?)", err)
	}
	for _, e := range entries {
		if hashes[e.Key] != e.Hash {
			return fmt.Errorf("%w: %s would not be trusted", ErrConfig, e.Key)
		}
	}
	return nil
}

// header matches a hooks.state table's header: its key, basic or literal
// string, and what follows on the line.
// It is compiled on first use: every hook process would pay for it at
// start-up, and only install, uninstall and doctor read the file.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(#.*)?$`)
})

// dropTables removes the hooks.state tables whose key drop selects (ours:
// the header carries ctxkeep's marker), each from its header to the next
// table header, with the blank lines before it: what SetTrust appended
// goes without a trace.
func dropTables(config string, drop func(key string, ours bool) bool) string {
	var out []string
	skipping, dropped := false, false
	for _, line := range strings.SplitAfter(config, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "[") {
			skipping = false
			if m := header().FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
				if key, err := unquote(m[1]); err == nil && drop(key, strings.TrimSpace(m[2]) == trustMarker) {
					for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
						out = out[:len(out)-1]
					}
					skipping, dropped = true, true
					continue
				}
			}
			if dropped && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" {
				out = append(out, "\n") // the blank line before the next table
			}
			dropped = false
		}
		if !skipping {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// quote writes s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// unquote reads a TOML basic or literal string.
func unquote(s string) (string, error) {
	if strings.HasPrefix(s, "'") {
		return strings.Trim(s, "'"), nil
	}
	var v struct{ K string }
	if err := unmarshal([]byte("K = "+s), &v); err != nil {
		return "", err
	}
	return v.K, nil
}
