package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/pin"
)

// pinCommands are the slash commands install adds: /pin-last, /pin-next,
// /pin-start, /pin-end. The hook reads them as the user typed them and
// drops the prompt once done, so their bodies reach the model only when
// the hook did not run; they say so.
func pinCommands() []claudecode.SlashCommand {
	what := map[pin.Target]string{
		pin.Last:  "Pin the latest tool output ctxkeep stored in this session",
		pin.Next:  "Pin the next tool output ctxkeep stores in this session",
		pin.Start: "Pin every tool output ctxkeep stores from now until /pin-end",
		pin.End:   "Stop pinning (ends /pin-start)",
	}
	var cmds []claudecode.SlashCommand
	for _, name := range slices.Sorted(maps.Keys(pin.SlashCommands)) {
		target := pin.SlashCommands[name]
		c := claudecode.SlashCommand{
			Name:        name,
			Description: what[target] + " (ctxkeep)",
			Body: fmt.Sprintf("%s %s $ARGUMENTS\n\nThis line is a directive for ctxkeep, whose UserPromptSubmit hook handles it before the model sees it. "+
				"If you can read it, the hook did not run: tell the user that nothing was pinned, and suggest `ctxkeep doctor`.", pin.Prefix, target),
		}
		if target != pin.End {
			c.ArgumentHint = `[soft|hard|none] [reason="…"]`
		}
		cmds = append(cmds, c)
	}
	return cmds
}

func (a *app) commandsDir(scope claudecode.Scope) string {
	return claudecode.CommandsDir(scope, a.Getenv("HOME"), a.projectDir(), a.Getenv("CLAUDE_CONFIG_DIR"))
}

// installPinCommands writes the pin slash commands for scope and says so.
func (a *app) installPinCommands(dir string) error {
	r, err := claudecode.WriteSlashCommands(dir, pinCommands())
	if err != nil {
		return fmt.Errorf("writing the pin slash commands: %w", err)
	}
	switch {
	case len(r.Written) > 0:
		fmt.Fprintf(a.Stdout, "added the slash commands /pin-last, /pin-next, /pin-start, /pin-end in %s\n", dir)
	case len(r.Same) > 0:
		fmt.Fprintf(a.Stdout, "slash commands /pin-last, /pin-next, /pin-start, /pin-end already in %s\n", dir)
	}
	for _, p := range r.Kept {
		fmt.Fprintf(a.Stdout, "note: kept your own %s; ctxkeep's /%s is not installed (type `ccm:pin …` instead)\n", p, trimMD(p))
	}
	return nil
}

// removePinCommands removes the pin slash commands install wrote, unless
// ctxkeep is still registered in another scope that uses the same folder
// (user and local settings share the user's commands).
func (a *app) removePinCommands(scope claudecode.Scope, dryRun bool) error {
	dir := a.commandsDir(scope)
	for _, other := range a.installedScopes() {
		if other.scope != scope && a.commandsDir(other.scope) == dir {
			return nil
		}
	}
	r, err := claudecode.RemoveSlashCommands(dir, slices.Sorted(maps.Keys(pin.SlashCommands)), dryRun)
	if err != nil {
		return err
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(a.Stdout, "%s the slash commands /pin-last, /pin-next, /pin-start, /pin-end from %s\n", verb, dir)
	}
	if r.RemovedDir != "" {
		fmt.Fprintf(a.Stdout, "%s %s, which held only them\n", verb, r.RemovedDir)
	}
	return nil
}

func trimMD(path string) string {
	base := filepath.Base(path)
	return base[:len(base)-len(filepath.Ext(base))]
}
