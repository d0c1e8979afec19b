package hook

import "runtime/debug"

// Build is set at build time with -ldflags "-X …/internal/hook.Build=v1.2.3";
// otherwise the module version, or the commit, from the build info is used.
var Build = ""

// Version is this build's version: both executables (ctxkeep and
// ctxkeep-hook) built from one tree say the same, so doctor can tell a
// stale hook executable.
func Version() string {
	if Build != "" {
		return Build
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev+" + rev
}
