package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// statusOptions are install's --statusline and --force.
type statusOptions struct {
	enabled bool
	force   bool
	command string // set by prepare: "<this binary> statusline"
	// replaced is the user's statusLine, as written, that --force
	// replaced: kept for uninstall to put back.
	replaced json.RawMessage
}

func (s *statusOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.enabled, "statusline", false, "also make `ctxkeep statusline` the client's statusLine (not over another one without --force)")
	fs.BoolVar(&s.force, "force", false, "with --statusline: replace an existing statusLine (uninstall puts it back)")
}

// edit adds the statusLine to what AddHooks returned, when asked to.
func (s *statusOptions) edit(out []byte, changed bool, err error) ([]byte, bool, error) {
	if err != nil || !s.enabled {
		return out, changed, err
	}
	if s.replaced, err = claudecode.StatusLine(out); err != nil {
		return nil, false, err
	}
	out2, changed2, err := claudecode.SetStatusLine(out, s.command, s.force)
	return out2, changed || changed2, err
}

// statusLinesFile keeps, by settings file, the user's statusLine that
// install --statusline --force replaced, so that uninstall puts it back
// (the backups keep it too, but they are trimmed).
func (a *app) statusLinesFile() (string, error) {
	d, err := a.dirs()
	if err != nil {
		return "", err
	}
	return filepath.Join(d.State, "replaced-statuslines.json"), nil
}

// replacedStatusLines are the statusLines kept, by settings file, each as
// the user wrote it.
func (a *app) replacedStatusLines() (map[string]json.RawMessage, string) {
	path, err := a.statusLinesFile()
	if err != nil {
		return nil, ""
	}
	kept := map[string]string{} // strings: a RawMessage would be re-indented
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &kept)
	}
	m := map[string]json.RawMessage{}
	for k, v := range kept {
		if json.Valid([]byte(v)) {
			m[k] = json.RawMessage(v)
		}
	}
	return m, path
}

// keepReplacedStatusLine records (or, with nil, forgets) the statusLine
// ctxkeep's replaced in the settings file at settings.
func (a *app) keepReplacedStatusLine(settings string, raw json.RawMessage) error {
	m, path := a.replacedStatusLines()
	if path == "" || (raw == nil && m[settings] == nil) {
		return nil
	}
	if raw == nil {
		delete(m, settings)
	} else {
		m[settings] = raw
	}
	kept := map[string]string{}
	for k, v := range m {
		kept[k] = string(v)
	}
	data, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return err
	}
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, append(data, '\n'), fsx.FilePerm)
}

// prepare works out the statusLine command: the hook executable's, as the
// hooks' (it is redrawn as often as a hook runs), else ctxkeep's own.
func (s *statusOptions) prepare(reg claudecode.Registration) {
	s.command = claudecode.ShellQuote(hookExecutable(reg.CLI)) + " statusline"
}

// report says what the statusLine is now.
func (s *statusOptions) report(a *app, path string) {
	if !s.enabled {
		return
	}
	fmt.Fprintf(a.Stdout, "statusLine: %s (shown in interactive sessions; `claude -p` has none)\n", s.command)
}

// statusLineHint explains a refusal to replace the user's statusLine.
func statusLineHint(err error, path string) error {
	if errors.Is(err, claudecode.ErrStatusLineTaken) {
		return hint(err, "keep yours (it stays in %s), or run `ctxkeep install --statusline --force` to replace it; `ctxkeep uninstall` puts yours back", path)
	}
	return err
}

// removeAll takes ctxkeep's hooks and, when it is ctxkeep's, the
// statusLine out of a settings file, putting back the user's statusLine
// it replaced (previous; nil when none).
func removeAll(previous json.RawMessage) func(b []byte) ([]byte, bool, error) {
	return func(b []byte) ([]byte, bool, error) {
		out, changed, err := claudecode.RemoveHooks(b)
		if err != nil {
			return nil, false, err
		}
		out2, changed2, err := claudecode.RestoreStatusLine(out, previous)
		return out2, changed || changed2, err
	}
}
