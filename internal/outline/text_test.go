package outline

import (
	"slices"
	"testing"
)

func TestMarkdown(t *testing.T) {
	src := `---
title: Guide
# not a heading
---

# ctxkeep

Keep the context lean.

## Install ##

` + "```sh" + `
# a shell comment, not a heading
make install
` + "```" + `

    # indented code, not a heading

<!--
# commented out
-->

Setext Title
============

Second level
------------

- a list item
---

#hashtag is not a heading
####### seven is too many
### Deep *emphasis* ###
`
	syms := Outline("docs/GUIDE.md", []byte(src), 0)
	want := []string{"6 heading ctxkeep", "10 heading Install", "23 heading Setext Title", "26 heading Second level", "34 heading Deep *emphasis*"}
	if got := render(syms); !slices.Equal(got, want) {
		t.Fatalf("\n%s", diff(got, want))
	}
	var depths []int
	for _, s := range syms {
		depths = append(depths, s.Depth)
	}
	if want := []int{0, 1, 0, 1, 2}; !slices.Equal(depths, want) {
		t.Errorf("depths %v, want %v", depths, want)
	}
	if syms[1].Text != "## Install ##" {
		t.Errorf("Text %q", syms[1].Text)
	}
}

func TestMakefile(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "targets",
		path: "Makefile",
		src: `BINDIR ?= $(HOME)/.local/bin
GOFLAGS := -trimpath
URL = http://example.com:8080

.PHONY: install build

install: build ## install it
	mkdir -p $(BINDIR)
	echo "not: a target"

build:
	go build ./...

define HELP
fake: target
endef

%.o: %.c
	cc -c $<
export PATH := $(PATH):/x
`,
		want: []string{"7 target install", "11 target build", "18 target %.o"},
	}})
}

func TestDockerfile(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "stages",
		path: "Dockerfile",
		src:  "# syntax=docker/dockerfile:1\nFROM --platform=$BUILDPLATFORM golang:1.26 AS build\nRUN go build\n\nfrom gcr.io/distroless/static\nCOPY --from=build /out /\n",
		want: []string{"2 stage build", "5 stage gcr.io/distroless/static"},
	}})
}

func TestTOML(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "tables",
		path: "pyproject.toml",
		src: `[project]
name = "x"
description = """
[not.a.table]
"""
matrix = [
  [1, 2],
]

[tool.ruff.lint]
select = ["E"]

[[tool.mypy.overrides]] # per module
module = "x"
`,
		want: []string{"1 section project", "10 section tool.ruff.lint", "13 section tool.mypy.overrides"},
	}})
}

func TestGeneric(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "zig",
		path: "src/main.zig",
		src:  "const std = @import(\"std\");\n\npub fn main() !void {\n    const x = 1;\n}\n\nfn helper(a: u8) u8 {\n    return a;\n}\n",
		want: []string{"3 func main", "7 func helper"},
	}, {
		name: "perl",
		path: "lib/Foo.pm",
		src:  "package Foo;\nuse strict;\n\nsub new {\n    my ($class) = @_;\n}\n\nsub name { $_[0]{name} }\n",
		want: []string{"4 func new", "8 func name"},
	}, {
		name: "clojure",
		path: "src/app/core.clj",
		src:  "(ns app.core)\n\n(defn greet\n  [name]\n  (str \"Hello \" name))\n\n(defn- helper [x] x)\n(defmacro unless [c & body])\n",
		want: []string{"3 func greet", "8 macro unless"},
	}, {
		name: "terraform",
		path: "main.tf",
		src:  "provider \"aws\" {\n  region = \"eu-west-1\"\n}\n\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"logs\"\n}\n\nvariable \"env\" {}\n",
		want: []string{"1 provider aws", "5 resource aws_s3_bucket.logs", "9 variable env"},
	}, {
		name: "protobuf",
		path: "api/v1/store.proto",
		src:  "syntax = \"proto3\";\n\nservice Store {\n  rpc Put(PutRequest) returns (PutReply);\n}\n\nmessage PutRequest {\n  bytes data = 1;\n}\n",
		want: []string{"3 interface Store", "4 method Put", "7 struct PutRequest"},
	}, {
		name: "prose is not code",
		path: "NOTES",
		src:  "The class of problems we solve.\nfunction as a word\ntype something here\n",
		want: nil,
	}})
}
