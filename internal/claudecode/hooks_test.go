package claudecode

import (
	"errors"
	"strings"
	"testing"
)

// testReg is what the tests install: a tool hook with a matcher and an
// event hook without one.
var testReg = Registration{
	Command: "/usr/local/bin/ctxkeep hook",
	Hooks: []HookSpec{
		{Event: "PostToolUse", Matcher: "Bash", Timeout: 30},
		{Event: "SessionEnd", Timeout: 10},
	},
}

// installed is testReg installed in an empty file.
const installed = `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 30
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`

// userSettings has everything a real file holds, including the user's own
// hook in the event and under the matcher ctxkeep uses.
const userSettings = `{
  "model": "claude-opus-5-5",
  "permissions": {
    "allow": [
      "Bash(git *)",
      "Read"
    ],
    "deny": []
  },
  "env": {
    "BASH_MAX_OUTPUT": "1e3",
    "RATIO": 10.50
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "echo 'done' >> ~/log & true",
            "timeout": 1e3
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send <done>"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/bin/status.sh"
  }
}
`

func TestAddHooks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" means unchanged
	}{
		{name: "empty file", in: "", want: installed},
		{name: "blank file", in: " \n", want: installed},
		{name: "empty object", in: "{}", want: installed},
		{name: "already installed", in: installed, want: ""},
		{
			name: "already installed, formatted otherwise, is left as it is",
			in: `{"hooks": {"PostToolUse": [{"hooks": [{"timeout": 30, "command": "/usr/local/bin/ctxkeep hook", "type": "command"}],
				"matcher": "Bash"}], "SessionEnd": [{"hooks": [{"type": "command", "command": "/usr/local/bin/ctxkeep hook", "timeout": 10}]}]}}`,
			want: "",
		},
		{
			name: "user hooks in the same event and matcher are kept, ours follow",
			in:   userSettings,
			want: `{
  "model": "claude-opus-5-5",
  "permissions": {
    "allow": [
      "Bash(git *)",
      "Read"
    ],
    "deny": []
  },
  "env": {
    "BASH_MAX_OUTPUT": "1e3",
    "RATIO": 10.50
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "echo 'done' >> ~/log & true",
            "timeout": 1e3
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 30
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send <done>"
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 10
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/bin/status.sh"
  }
}
`,
		},
		{
			name: "older ctxkeep handler is replaced in place, next to the user's",
			in: `{"hooks": {
  "PostToolUse": [
    {"matcher": "Bash", "hooks": [
      {"type": "command", "command": "'/old path/ctxkeep' hook", "timeout": 5, "async": true},
      {"type": "command", "command": "user-thing"}
    ]},
    {"matcher": "Read", "hooks": [{"type": "command", "command": "user-read"}]}
  ],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "/usr/local/bin/ctxkeep hook", "timeout": 10}]}]
}}`,
			want: `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 30
          },
          {
            "type": "command",
            "command": "user-thing"
          }
        ]
      },
      {
        "matcher": "Read",
        "hooks": [
          {
            "type": "command",
            "command": "user-read"
          }
        ]
      }
    ],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "/usr/local/bin/ctxkeep hook", "timeout": 10}]}]
  }
}
`,
		},
		{
			name: "stale events, duplicates and old matchers lose our handlers",
			in: `{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "ctxkeep hook"}, {"type": "command", "command": "user-stop"}]}],
  "PreCompact": [{"hooks": [{"type": "command", "command": "ctxkeep hook"}]}],
  "PostToolUse": [
    {"matcher": "Bash|Read", "hooks": [{"type": "command", "command": "ctxkeep hook"}]},
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/ctxkeep hook", "timeout": 30}]},
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/ctxkeep hook", "timeout": 30}]}
  ]
}}`,
			want: `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "user-stop"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 30
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`,
		},
		{
			name: "key order, numbers, escapes and odd groups are kept",
			in: `{"zeta": [1e3, 10.50, -0, 1.0E+2, 12345678901234567890], "alpha": "<a href=\"x\">&amp; é \u00e9 \u003c",
 "hooks": {"SessionEnd": [], "PostToolUse": [42, {"matcher": 7, "hooks": [{"command": "ctxkeep hook"}]}, {"hooks": "x"}]},
 "mid": {"b": true, "a": null}}`,
			want: `{
  "zeta": [
    1e3,
    10.50,
    -0,
    1.0E+2,
    12345678901234567890
  ],
  "alpha": "<a href=\"x\">&amp; é \u00e9 \u003c",
  "hooks": {
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUse": [
      42,
      {
        "hooks": "x"
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxkeep hook",
            "timeout": 30
          }
        ]
      }
    ]
  },
  "mid": {
    "b": true,
    "a": null
  }
}
`,
		},
		{
			name: "CRLF line endings are tolerated and kept",
			in:   "{\r\n  \"model\": \"x\"\r\n}\r\n",
			want: "{\r\n  \"model\": \"x\",\r\n" + strings.ReplaceAll(installed[2:], "\n", "\r\n"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := AddHooks([]byte(tt.in), testReg)
			if err != nil {
				t.Fatal(err)
			}
			want, wantChanged := tt.want, true
			if want == "" {
				want, wantChanged = tt.in, false
			}
			if string(got) != want || changed != wantChanged {
				t.Errorf("AddHooks changed=%v, want %v; got:\n%s\nwant:\n%s", changed, wantChanged, got, want)
			}
			if again, changed, err := AddHooks(got, testReg); err != nil || changed || string(again) != string(got) {
				t.Errorf("AddHooks is not idempotent: changed=%v err=%v\n%s", changed, err, again)
			}
		})
	}
}

func TestRemoveHooks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" means unchanged
	}{
		{name: "empty file", in: "", want: ""},
		{name: "no hooks", in: `{"model": "x"}`, want: ""},
		{name: "only user hooks", in: userSettings, want: ""},
		{name: "only ours", in: installed, want: "{}\n"},
		{
			name: "ours next to the user's, in the same group and event",
			in: `{"model": "x", "hooks": {"PostToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "user"}, {"type": "command", "command": "\"C:\\bin\\ctxkeep.exe\" hook"}]},
  {"hooks": [{"type": "command", "command": "ctxkeep hook --verbose"}]},
  {"hooks": [{"type": "command", "command": "ctxkeep status"}]}
]}}`,
			want: `{
  "model": "x",
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "user"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "ctxkeep status"
          }
        ]
      }
    ]
  }
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := RemoveHooks([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			want, wantChanged := tt.want, true
			if want == "" {
				want, wantChanged = tt.in, false
			}
			if string(got) != want || changed != wantChanged {
				t.Errorf("RemoveHooks changed=%v, want %v; got:\n%s\nwant:\n%s", changed, wantChanged, got, want)
			}
		})
	}
}

// The user's own events keep the form they were written in through an
// install and an uninstall: only the events ctxkeep edits are indented.
func TestOneLineUserHooksKeepTheirForm(t *testing.T) {
	orig := `{
  "model": "x",
  "hooks": {
    "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "say hi"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
  }
}
`
	in, _, err := AddHooks([]byte(orig), testReg)
	if err != nil {
		t.Fatal(err)
	}
	line := `"Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "say hi"}]}]`
	if !strings.Contains(string(in), line) {
		t.Errorf("install re-indented an event it does not touch:\n%s", in)
	}
	out, _, err := RemoveHooks(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), line) {
		t.Errorf("uninstall re-indented an event it does not touch:\n%s", out)
	}
}

// TestInstallUninstallRoundTrip checks that uninstalling gives the user
// back their file byte for byte, when Claude Code wrote it.
func TestInstallUninstallRoundTrip(t *testing.T) {
	originals := map[string]string{
		"empty object":  "{}\n",
		"user settings": userSettings,
		"CRLF":          strings.ReplaceAll(userSettings, "\n", "\r\n"),
		"other events only": `{
  "hooks": {
    "Notification": [
      {
        "matcher": "idle_prompt",
        "hooks": [
          {
            "type": "command",
            "command": "say hi"
          }
        ]
      }
    ]
  }
}
`,
	}
	for name, orig := range originals {
		t.Run(name, func(t *testing.T) {
			in, changed, err := AddHooks([]byte(orig), testReg)
			if err != nil || !changed {
				t.Fatalf("AddHooks: changed=%v err=%v", changed, err)
			}
			out, changed, err := RemoveHooks(in)
			if err != nil || !changed {
				t.Fatalf("RemoveHooks: changed=%v err=%v", changed, err)
			}
			if string(out) != orig {
				t.Errorf("round trip:\n got %q\nwant %q", out, orig)
			}
		})
	}
}

func TestMalformedSettings(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"syntax", "{\n  \"model\": \"x\",\n}\n", "invalid JSON at line 3, column 1: invalid character '}'"},
		{"syntax in a later line's middle", "{\n  \"a\": [1, 2 3]\n}", "line 2, column 14: invalid character '3'"},
		{"truncated", `{"a": `, "invalid JSON at line 1"},
		{"trailing data", `{} {}`, "invalid JSON"},
		{"top level array", `[]`, "the top level is an array, not an object"},
		{"top level null", `null`, "the top level is null, not an object"},
		{"top level string", `"x"`, "the top level is a string, not an object"},
		{"hooks array", `{"hooks": []}`, `"hooks" is an array, not an object`},
		{"hooks null", `{"hooks": null}`, `"hooks" is null, not an object`},
		{"event object", `{"hooks": {"PostToolUse": {}}}`, `"hooks"."PostToolUse" is an object, not an array`},
		{"event number", `{"hooks": {"Stop": 1}}`, `"hooks"."Stop" is a number, not an array`},
		{"hooks twice", `{"hooks": {}, "model": "x", "hooks": {}}`, `"hooks" appears more than once`},
		{"event twice", `{"hooks": {"Stop": [], "Stop": []}}`, `"hooks"."Stop" appears more than once`},
	}
	edits := map[string]func([]byte) error{
		"AddHooks":    func(b []byte) error { _, _, err := AddHooks(b, testReg); return err },
		"RemoveHooks": func(b []byte) error { _, _, err := RemoveHooks(b); return err },
		"FindHooks":   func(b []byte) error { _, err := FindHooks(b); return err },
	}
	for _, tt := range tests {
		for fn, run := range edits {
			t.Run(tt.name+"/"+fn, func(t *testing.T) {
				err := run([]byte(tt.in))
				if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %q, want ErrMalformed containing %q", err, tt.want)
				}
			})
		}
	}
}

func TestAddHooksRejectsBadRegistrations(t *testing.T) {
	tests := []struct {
		name string
		reg  Registration
		want string
	}{
		{"not ctxkeep", Registration{Command: "/bin/other hook"}, "does not run"},
		{"no hook word", Registration{Command: "ctxkeep"}, "does not run"},
		{"no event", Registration{Command: "ctxkeep hook", Hooks: []HookSpec{{}}}, "no event"},
		{"negative timeout", Registration{Command: "ctxkeep hook", Hooks: []HookSpec{{Event: "Stop", Timeout: -1}}}, "negative timeout"},
		{"twice", Registration{Command: "ctxkeep hook", Hooks: []HookSpec{{Event: "Stop"}, {Event: "Stop"}}}, "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := AddHooks([]byte("{}"), tt.reg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestSeveralMatchersForOneEvent(t *testing.T) {
	reg := Registration{Command: "ctxkeep hook", Hooks: []HookSpec{
		{Event: "SessionStart", Matcher: "compact"},
		{Event: "SessionStart", Matcher: "startup|resume"},
	}}
	out, _, err := AddHooks(nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	found, err := FindHooks(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || found[0].Matcher != "compact" || found[1].Matcher != "startup|resume" {
		t.Errorf("found %+v", found)
	}
	if _, changed, _ := AddHooks(out, reg); changed {
		t.Error("second AddHooks changed the settings")
	}
}

func TestFindHooks(t *testing.T) {
	in := `{"hooks": {
  "Stop": [{"hooks": [{"command": "ctxkeep hook"}]}],
  "PostToolUse": [
    {"matcher": "Bash", "hooks": [{"command": "user"}, {"type": "command", "command": "'/a b/ctxkeep' hook", "timeout": 30}]},
    {"hooks": [{"command": "ctxkeep hook", "timeout": 1.5}]}
  ]
}}`
	found, err := FindHooks([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Found{
		{Event: "Stop", Command: "ctxkeep hook"},
		{Event: "PostToolUse", Matcher: "Bash", Command: "'/a b/ctxkeep' hook", Timeout: 30},
		{Event: "PostToolUse", Command: "ctxkeep hook"},
	}
	if len(found) != len(want) {
		t.Fatalf("found %+v, want %+v", found, want)
	}
	for i := range want {
		if found[i] != want[i] {
			t.Errorf("found[%d] = %+v, want %+v", i, found[i], want[i])
		}
	}
	if found, err := FindHooks(nil); err != nil || len(found) != 0 {
		t.Errorf("FindHooks(nil) = %v, %v", found, err)
	}
}

func TestDuplicateKeysInGroupsFollowJSONParse(t *testing.T) {
	// JSON.parse keeps the last of repeated keys, and so does ctxkeep.
	in := `{"hooks": {"Stop": [{"matcher": 1, "hooks": [{"command": "ctxkeep hook"}], "matcher": "", "hooks": [{"command": "user"}]}]}}`
	if found, err := FindHooks([]byte(in)); err != nil || len(found) != 0 {
		t.Fatalf("FindHooks = %+v, %v; want nothing from the shadowed hooks", found, err)
	}
	reg := Registration{Command: "ctxkeep hook", Hooks: []HookSpec{{Event: "Stop"}}}
	out, _, err := AddHooks([]byte(in), reg)
	if err != nil {
		t.Fatal(err)
	}
	found, _ := FindHooks(out)
	if len(found) != 1 || !strings.Contains(string(out), `"matcher": 1`) {
		t.Errorf("found %+v in:\n%s", found, out)
	}
}

// An install leaves the user's other members exactly as written, so that
// its diff touches only the hooks.
func TestAddHooksKeepsOtherMembersVerbatim(t *testing.T) {
	in := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test:*)\", \"Read\"]\n  },\n  \"env\": {\"A\": \"1\"}\n}\n"
	out, changed, err := AddHooks([]byte(in), Registration{Command: "/bin/ctxkeep hook", Hooks: []HookSpec{{Event: "Stop"}}})
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	wantPrefix := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test:*)\", \"Read\"]\n  },\n  \"env\": {\"A\": \"1\"},\n  \"hooks\": {\n    \"Stop\": ["
	if !strings.HasPrefix(string(out), wantPrefix) {
		t.Fatalf("got\n%s", out)
	}
	back, _, err := RemoveHooks(out)
	if err != nil || string(back) != in {
		t.Fatalf("round trip:\n%s", back)
	}
	// A file indented otherwise is re-indented as a whole, as before.
	four := "{\n    \"env\": {\n        \"A\": \"1\"\n    }\n}\n"
	out, _, _ = AddHooks([]byte(four), Registration{Command: "/bin/ctxkeep hook", Hooks: []HookSpec{{Event: "Stop"}}})
	if !strings.HasPrefix(string(out), "{\n  \"env\": {\n    \"A\": \"1\"\n  },") {
		t.Fatalf("four-space file:\n%s", out)
	}
}
