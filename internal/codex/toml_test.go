package codex

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// projects is a config.toml as Codex leaves it for a user of many
// worktrees: n trusted folders, each a table, and ctxkeep's trust.
func projects(n int) []byte {
	var b strings.Builder
	b.WriteString("model = \"gpt-5.5\"\nmodel_auto_compact_token_limit = 200_000\n\n[features]\nhooks = true\n\n")
	for i := range n {
		fmt.Fprintf(&b, "[projects.\"/home/you/src/worktree-%06d\"]\ntrust_level = \"trusted\"\n\n", i)
	}
	b.WriteString("[hooks.state.\"/home/you/.codex/hooks.json:stop:0:0\"] # ctxkeep\ntrusted_hash = \"sha256:aa\"\n")
	return []byte(b.String())
}

// Reading and editing Codex's config.toml is linear in its size: go-toml's
// decoder, whose check for keys defined twice scans every key seen before
// (quadratic: 200,000 [projects] tables took 541 s for one install), is
// given only the lines that can hold hooks.state and features.hooks, the
// same few lines however many tables the file has; the check of the whole
// file does a bounded amount of work per key. Counted, not timed.
func TestConfigWorkIsLinear(t *testing.T) {
	type work struct{ decoded, steps, expressions int }
	measure := func(n int) work {
		var w work
		defer func(u func([]byte, any) error) { unmarshal = u }(unmarshal)
		unmarshal = func(data []byte, v any) error {
			w.decoded += len(data)
			return toml.Unmarshal(data, v)
		}
		cfg := projects(n)
		if hashes, off, err := TrustState(cfg); err != nil || off || hashes["/home/you/.codex/hooks.json:stop:0:0"] != "sha256:aa" {
			t.Fatalf("TrustState of %d tables: %v %v %v", n, hashes, off, err)
		}
		out, changed, err := SetTrust(cfg, "/home/you/.codex/hooks.json", []Trust{{Key: "/home/you/.codex/hooks.json:stop:0:0", Hash: "sha256:bb"}})
		if err != nil || !changed || !strings.HasPrefix(string(out), string(cfg[:len(cfg)-200])) {
			t.Fatalf("SetTrust of %d tables: %v %v", n, changed, err)
		}
		sc, err := scanConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		w.steps, w.expressions = sc.steps, sc.expressions
		return w
	}
	small, large := measure(1000), measure(20000)
	if small.decoded != large.decoded || large.decoded > 2000 {
		t.Errorf("go-toml decoded %d bytes for 1,000 tables, %d for 20,000: it must be given only the trust lines", small.decoded, large.decoded)
	}
	if large.expressions < 40000 || large.steps > 4*large.expressions {
		t.Errorf("the check of 20,000 tables took %d steps for %d keys and headers: want at most 4 a key", large.steps, large.expressions)
	}
}

// trustStateWhole is TrustState as it was: the whole file decoded by
// go-toml, the reference scanConfig must agree with.
func trustStateWhole(config []byte) (map[string]string, bool, error) {
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
	if err := toml.Unmarshal(config, &doc); err != nil {
		return nil, false, err
	}
	hashes := map[string]string{}
	for k, s := range doc.Hooks.State {
		if s.Enabled == nil || *s.Enabled {
			hashes[k] = s.TrustedHash
		}
	}
	return hashes, doc.Features.Hooks != nil && !*doc.Features.Hooks, nil
}

// configSeeds are documents on each rule of what a key may be defined as,
// valid and not.
var configSeeds = []string{
	"",
	"a = 1\n",
	"a = 1\na = 2\n",
	"[a]\n[a]\n",
	"[a]\nb = 1\n[a.c]\n",
	"[a.b]\n[a]\n",
	"[a.b]\n[a]\nb.c = 1\n",
	"[a]\nb.c = 1\n[a.b]\n",
	"[a]\nb.c = 1\n[a.b.d]\n",
	"a.b = 1\na.c = 2\n",
	"a.b = 1\na = 2\n",
	"a = {b = 1}\n[a.c]\n",
	"a = {b = 1, b = 2}\n",
	"a = [{b = 1}, {b = 2}]\n",
	"a = [{b = 1, b = 2}]\n",
	"[[a]]\nb = 1\n[[a]]\nb = 2\n",
	"[[a]]\n[a]\n",
	"[a]\n[[a]]\n",
	"a = []\n[[a]]\n",
	"[[a.b]]\n[a]\n",
	"[[a]]\n[a.b]\nc = 1\n[[a]]\n[a.b]\nc = 2\n",
	"[[a]]\n[a.b]\n[a.b]\n",
	"a = 9223372036854775807\n",
	"a = 9223372036854775808\n",
	"a = 0x7fffffffffffffff\nb = 0o17\nc = 0b11\nd = 1_000\n",
	"a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\nd = 1979-05-27 07:32:00.999\n",
	"a = 2021-02-30\n",
	"a = 25:00:00\n",
	"a = inf\nb = -nan\nc = +1e10\nd = 6.02e23\n",
	"a = [1, [2, [3.5, 1979-05-27]], {b = 2021-13-01}]\n",
	"model = \"x\"\n[hooks.state.\"/h:stop:0:0\"] # ctxkeep\ntrusted_hash = \"sha256:aa\"\n",
	"hooks = { state = {} }\n[hooks.state.\"k\"]\ntrusted_hash = \"x\"\n",
	"[hooks]\nstate.\"k\".trusted_hash = \"x\"\n[features]\nhooks = false\n",
	"[hooks.state]\n\"k\" = { trusted_hash = \"x\", enabled = false }\n\"j\" = { trusted_hash = \"y\" }\n",
	"hooks.state.k.trusted_hash = \"x\"\n[projects.\"/a\"]\ntrust_level = \"trusted\"\n",
	"[features]\nhooks = 1\n",
	"[hooks.state.\"k\"]\ntrusted_hash = 1\n",
	"[[hooks.state]]\n",
	"[projects.\"/a\"]\ntrust_level = \"trusted\"\n[projects.\"/a\"]\ntrust_level = \"trusted\"\n",
	"a = \"\"\"\n[hooks.state.\"x\"]\ntrusted_hash = \"no\"\n\"\"\"\n",
	"[ hooks . state . 'k' ]\r\ntrusted_hash = 'x'\r\n",
	"a = 1 # c\n\n  [ t ]  # c\nb = 'x'",
	"a = \"\\uD800\"\n",
	"a = 1\nb = \n",
	"[a\n",
}

// scanConfig accepts exactly the documents go-toml decodes, and TrustState
// reads from the lines it keeps what go-toml reads from the whole file.
func FuzzConfigAgreesWithGoTOML(f *testing.F) {
	for _, s := range configSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		theirs := toml.Unmarshal(data, &m)
		_, ours := scanConfig(data)
		if (theirs == nil) != (ours == nil) {
			t.Fatalf("%q: go-toml says %v, scanConfig %v", data, theirs, ours)
		}
		if theirs != nil {
			return
		}
		wantHashes, wantOff, wantErr := trustStateWhole(data)
		hashes, off, err := TrustState(data)
		if (err == nil) != (wantErr == nil) || !maps.Equal(hashes, wantHashes) || off != wantOff {
			t.Fatalf("%q: TrustState = %v %v %v, the whole file decoded gives %v %v %v", data, hashes, off, err, wantHashes, wantOff, wantErr)
		}
	})
}

func BenchmarkTrustState200k(b *testing.B) {
	cfg := projects(200_000)
	b.SetBytes(int64(len(cfg)))
	for b.Loop() {
		if _, _, err := TrustState(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetTrust200k(b *testing.B) {
	cfg := projects(200_000)
	b.SetBytes(int64(len(cfg)))
	entries := []Trust{{Key: "/home/you/.codex/hooks.json:stop:0:0", Hash: "sha256:bb"}}
	for b.Loop() {
		if _, _, err := SetTrust(cfg, "/home/you/.codex/hooks.json", entries); err != nil {
			b.Fatal(err)
		}
	}
}
