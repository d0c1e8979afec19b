// Package sample carries one real Claude Code session inside the binary,
// so that `ctxkeep replay` shows what ctxkeep does on a machine that has no
// sessions of its own yet (a fresh install, CI).
//
// The session is 258c7280-ae70-4798-800f-63464d01a85d.jsonl from the public
// repository marot/spotter (test/fixtures/transcripts, MIT License,
// Copyright (c) 2026 marot; see LICENSE beside this file): a long session
// building an Elixir/Phoenix app with Claude Code 2.1.38, 186 tool calls,
// one automatic compaction. It is stored byte for byte, zstd-compressed.
package sample

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

//go:embed spotter-258c7280.jsonl.zst
var packed []byte

// Name is the sample's file name: its session id.
const Name = "258c7280-ae70-4798-800f-63464d01a85d.jsonl"

// sum is the sha256 of the original file.
const sum = "a98f838510e41961a74c1d9a8f4bea2ec34e692fc885ecc1e1c2501dc65ed33e"

// Source says where the sample comes from, for reports.
const Source = "a real public Claude Code session (marot/spotter, MIT License)"

// Transcript returns the sample session's exact bytes.
func Transcript() ([]byte, error) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	data, err := dec.DecodeAll(packed, nil)
	if err != nil {
		return nil, err
	}
	if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("the built-in sample session is damaged")
	}
	return data, nil
}

// WriteTo writes the sample session into dir (private) and returns its path.
func WriteTo(dir string) (string, error) {
	data, err := Transcript()
	if err != nil {
		return "", err
	}
	if err := fsx.MkdirPrivate(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, Name)
	return path, os.WriteFile(path, data, fsx.FilePerm)
}
