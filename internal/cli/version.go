package cli

import "runtime/debug"

// Version is set at build time with -ldflags "-X …/internal/cli.Version=v1.2.3";
// otherwise the module version from the build info is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
