package cli

import (
	"errors"
	"flag"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// statusOptions are install's --statusline and --force.
type statusOptions struct {
	enabled bool
	force   bool
	command string // set by prepare: "<this binary> statusline"
}

func (s *statusOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.enabled, "statusline", false, "also make `ctxkeep statusline` the client's statusLine (not over another one without --force)")
	fs.BoolVar(&s.force, "force", false, "with --statusline: replace an existing statusLine (the backup keeps it)")
}

// edit adds the statusLine to what AddHooks returned, when asked to.
func (s *statusOptions) edit(out []byte, changed bool, err error) ([]byte, bool, error) {
	if err != nil || !s.enabled {
		return out, changed, err
	}
	out2, changed2, err := claudecode.SetStatusLine(out, s.command, s.force)
	return out2, changed || changed2, err
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
		return hint(err, "keep yours (it stays in %s), or run `ctxkeep install --statusline --force` to replace it; a backup of the file is written first", path)
	}
	return err
}

// removeAll takes ctxkeep's hooks and, when it is ctxkeep's, the
// statusLine out of a settings file.
func removeAll(b []byte) ([]byte, bool, error) {
	out, changed, err := claudecode.RemoveHooks(b)
	if err != nil {
		return nil, false, err
	}
	out2, changed2, err := claudecode.RemoveStatusLine(out)
	return out2, changed || changed2, err
}
