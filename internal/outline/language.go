package outline

import (
	"bytes"
	"strings"
)

// Language guesses the language of a file from its name (extension, or
// special names like Makefile and Dockerfile) and, failing that, from a
// shebang line. It returns a lower-case name: "go", "python",
// "typescript", "javascript", "rust", "java", "csharp", "c", "cpp",
// "ruby", "php", "kotlin", "swift", "elixir", "scala", "shell", "lua",
// "sql", "markdown", …, names of data formats ("json", "yaml", "text"…),
// or "" when it cannot tell.
func Language(path string, content []byte) string {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	if lang := byName(base); lang != "" {
		return lang
	}
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i > 0 { // not .bashrc: see byName
		ext = base[i+1:]
	}
	lang := byExtension(ext)
	if lang == "" {
		lang = byExtension(strings.ToLower(ext))
	}
	switch lang {
	case "c":
		if looksCpp(content) {
			return "cpp"
		}
	case "":
		return byShebang(content)
	}
	return lang
}

// byName knows the files whose name, not extension, says what they are.
func byName(base string) string {
	switch base {
	case "Makefile", "makefile", "GNUmakefile":
		return "makefile"
	case "Dockerfile", "Containerfile", "dockerfile":
		return "dockerfile"
	case "Rakefile", "Gemfile", "Guardfile", "Vagrantfile", "Podfile", "Fastfile", "Brewfile", "Capfile", "Berksfile":
		return "ruby"
	case "Jenkinsfile":
		return "groovy"
	case "BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", "Tiltfile":
		return "starlark"
	case "CMakeLists.txt":
		return "cmake"
	case ".bashrc", ".bash_profile", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".kshrc", "PKGBUILD", "APKBUILD":
		return "shell"
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return "gomod"
	case "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CODEOWNERS", "README", "CHANGELOG":
		return "text"
	case "Cargo.lock", "Pipfile", "poetry.lock", ".editorconfig", ".gitconfig":
		return "toml"
	}
	switch {
	case strings.HasPrefix(base, "Dockerfile."), strings.HasSuffix(base, ".dockerfile"):
		return "dockerfile"
	case strings.HasPrefix(base, "Makefile."):
		return "makefile"
	}
	return ""
}

// byExtension maps an extension, without its dot, to a language.
func byExtension(ext string) string {
	switch ext {
	case "go":
		return "go"
	case "py", "pyi", "pyw", "pyx", "pxd":
		return "python"
	case "bzl", "star", "bazel", "sky":
		return "starlark"
	case "ts", "tsx", "mts", "cts":
		return "typescript"
	case "js", "jsx", "mjs", "cjs":
		return "javascript"
	case "vue", "svelte", "astro":
		return ext
	case "rs":
		return "rust"
	case "java", "jav":
		return "java"
	case "cs", "csx":
		return "csharp"
	case "c", "h":
		return "c"
	case "cc", "cpp", "cxx", "c++", "cp", "hh", "hpp", "hxx", "h++", "ipp", "tpp", "inl", "ixx", "cppm", "cu", "cuh", "ino":
		return "cpp"
	case "m", "mm":
		return "objc"
	case "rb", "rake", "gemspec", "ru", "podspec", "jbuilder", "thor":
		return "ruby"
	case "cr":
		return "crystal"
	case "php", "phtml", "php3", "php4", "php5", "php7", "php8", "phps":
		return "php"
	case "kt", "kts":
		return "kotlin"
	case "swift":
		return "swift"
	case "ex", "exs":
		return "elixir"
	case "heex", "leex", "eex", "sface":
		return "heex"
	case "scala", "sc", "sbt", "mill":
		return "scala"
	case "sh", "bash", "zsh", "ksh", "dash", "ash", "bats", "command":
		return "shell"
	case "fish":
		return "fish"
	case "lua", "luau", "rockspec":
		return "lua"
	case "sql", "psql", "pgsql", "mysql", "ddl", "plsql", "tsql":
		return "sql"
	case "md", "markdown", "mdx", "mkd", "mdown", "mkdn", "mdwn", "qmd", "rmd", "Rmd":
		return "markdown"
	case "dart":
		return "dart"
	case "groovy", "gradle", "gvy":
		return "groovy"
	case "pl", "pm", "psgi":
		return "perl"
	case "zig":
		return "zig"
	case "nim", "nims", "nimble":
		return "nim"
	case "hs", "lhs":
		return "haskell"
	case "ml", "mli":
		return "ocaml"
	case "fs", "fsi", "fsx":
		return "fsharp"
	case "clj", "cljs", "cljc", "edn", "bb":
		return "clojure"
	case "el", "lisp", "lsp", "cl", "scm", "ss", "rkt":
		return "lisp"
	case "erl", "hrl":
		return "erlang"
	case "gleam":
		return "gleam"
	case "r", "R":
		return "r"
	case "jl":
		return "julia"
	case "ps1", "psm1", "psd1":
		return "powershell"
	case "vim":
		return "vim"
	case "elm":
		return "elm"
	case "d":
		return "d"
	case "v", "sv", "svh", "vh":
		return "verilog"
	case "vhd", "vhdl":
		return "vhdl"
	case "f", "f90", "f95", "f03", "f08", "for":
		return "fortran"
	case "pas", "pp", "dpr":
		return "pascal"
	case "tcl":
		return "tcl"
	case "awk":
		return "awk"
	case "proto":
		return "protobuf"
	case "thrift":
		return "thrift"
	case "graphql", "gql", "graphqls":
		return "graphql"
	case "tf", "tfvars", "hcl", "nomad":
		return "terraform"
	case "cmake":
		return "cmake"
	case "mk", "mak", "make":
		return "makefile"
	case "toml":
		return "toml"
	case "ini", "cfg", "conf", "cnf", "properties", "desktop", "service", "editorconfig":
		return "ini"
	case "json", "jsonl", "ndjson", "jsonc", "json5", "geojson", "ipynb", "webmanifest":
		return "json"
	case "yaml", "yml":
		return "yaml"
	case "xml", "xsd", "xsl", "xslt", "plist", "csproj", "fsproj", "vbproj", "props", "targets", "resx", "svg", "xaml", "pom", "wsdl":
		return "xml"
	case "html", "htm", "xhtml", "shtml", "tmpl", "gohtml", "hbs", "handlebars", "mustache", "jinja", "j2", "njk", "liquid", "erb", "ejs":
		return "html"
	case "css", "scss", "sass", "less", "styl", "pcss":
		return "css"
	case "csv", "tsv", "psv":
		return "csv"
	case "txt", "text", "log", "out", "rst", "adoc", "asciidoc", "org", "tex", "sty", "cls", "bib", "lock", "sum", "pem", "crt", "key", "pub", "asc", "env", "gitignore", "dockerignore", "gitattributes", "srt", "vtt":
		return "text"
	case "diff", "patch":
		return "diff"
	}
	return ""
}

// looksCpp tells C++ headers from C ones by their first 16 KB.
func looksCpp(content []byte) bool {
	head := content[:min(len(content), 16<<10)]
	for _, w := range []string{"namespace ", "template <", "template<", "class ", "std::", "public:", "private:", "#include <iostream>", "#include <string>", "#include <vector>"} {
		if bytes.Contains(head, []byte(w)) {
			return true
		}
	}
	return false
}

// byShebang reads an interpreter from a #! line: #!/bin/sh,
// #!/usr/bin/env python3, #!/usr/bin/env -S deno run.
func byShebang(content []byte) string {
	if !bytes.HasPrefix(content, []byte("#!")) {
		return ""
	}
	first := content[2:]
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	fields := strings.Fields(string(first[:min(len(first), 256)]))
	if len(fields) == 0 {
		return ""
	}
	prog := fields[0][strings.LastIndexByte(fields[0], '/')+1:]
	if prog == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				prog = f[strings.LastIndexByte(f, '/')+1:]
				break
			}
		}
	}
	prog = strings.TrimRight(prog, "0123456789.-") // python3.12, ruby2.7, perl5
	switch prog {
	case "python", "pypy", "jython", "ipython":
		return "python"
	case "node", "nodejs", "bun", "qjs", "rhino":
		return "javascript"
	case "deno", "ts-node", "tsx", "esno":
		return "typescript"
	case "sh", "bash", "zsh", "ksh", "mksh", "dash", "ash", "busybox":
		return "shell"
	case "ruby", "jruby", "crystal":
		return "ruby"
	case "elixir", "iex", "mix":
		return "elixir"
	case "lua", "luajit", "texlua":
		return "lua"
	case "Rscript":
		return "r"
	case "pwsh", "powershell":
		return "powershell"
	case "make", "gmake":
		return "makefile"
	case "perl", "php", "fish", "julia", "swift", "scala", "groovy", "kotlin", "awk", "tcl", "dart":
		return prog
	case "gawk", "mawk", "nawk":
		return "awk"
	case "tclsh", "wish":
		return "tcl"
	case "escript":
		return "erlang"
	case "runhaskell", "runghc", "stack":
		return "haskell"
	}
	return ""
}

// rulesFor returns how to outline a language, or nil for the languages and
// formats that have no outline worth showing.
func rulesFor(lang string) *language {
	switch lang {
	case "go":
		return goLang
	case "python", "starlark":
		return pythonLang
	case "typescript", "javascript", "vue", "svelte", "astro":
		return jsLang
	case "rust":
		return rustLang
	case "java":
		return javaLang
	case "groovy":
		return groovyLang
	case "csharp":
		return csharpLang
	case "c", "cpp", "objc":
		return cLang
	case "dart":
		return dartLang
	case "ruby", "crystal":
		return rubyLang
	case "php":
		return phpLang
	case "kotlin":
		return kotlinLang
	case "swift":
		return swiftLang
	case "elixir":
		return elixirLang
	case "scala":
		return scalaLang
	case "shell":
		return shellLang
	case "lua":
		return luaLang
	case "sql":
		return sqlLang
	case "markdown":
		return markdownLang
	case "makefile":
		return makeLang
	case "dockerfile":
		return dockerLang
	case "toml", "ini":
		return sectionLang
	case "json", "yaml", "xml", "html", "heex", "css", "csv", "text", "diff", "gomod":
		return nil
	}
	return genericLang // other code, or nothing known: keywords at low indentation
}

// isHeader reports whether path is a C or C++ header, where prototypes
// are the declarations worth showing.
func isHeader(path string) bool {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return false
	}
	switch strings.ToLower(path[i+1:]) {
	case "h", "hh", "hpp", "hxx", "h++", "cuh", "inl", "ipp", "tpp":
		return true
	}
	return false
}
