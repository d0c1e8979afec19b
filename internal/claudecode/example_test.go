package claudecode_test

import (
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

func ExampleAddHooks() {
	settings := []byte(`{"model": "claude-opus-5-5", "env": {"RATIO": 10.50}}`)
	reg := claudecode.Registration{
		Command: claudecode.ShellQuote("/opt/R&D tools/ctxkeep") + " hook",
		Hooks:   []claudecode.HookSpec{{Event: "SessionEnd", Timeout: 10}},
	}
	out, changed, err := claudecode.AddHooks(settings, reg)
	if err != nil {
		panic(err)
	}
	fmt.Printf("changed: %v\n%s", changed, out)
	// Output:
	// changed: true
	// {
	//   "model": "claude-opus-5-5",
	//   "env": {"RATIO": 10.50},
	//   "hooks": {
	//     "SessionEnd": [
	//       {
	//         "hooks": [
	//           {
	//             "type": "command",
	//             "command": "'/opt/R&D tools/ctxkeep' hook",
	//             "timeout": 10
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
}

func ExampleApplyFile() {
	reg := claudecode.Registration{
		Command: "/usr/local/bin/ctxkeep hook",
		Hooks:   []claudecode.HookSpec{{Event: "PostToolUse", Matcher: "Bash", Timeout: 30}},
	}
	path := claudecode.SettingsPath(claudecode.User, "/home/me", "", "")
	install := func(b []byte) ([]byte, bool, error) { return claudecode.AddHooks(b, reg) }
	_, _ = claudecode.ApplyFile(path, install, claudecode.ApplyOptions{DryRun: true})
}
