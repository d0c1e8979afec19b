package swap

// The condensers, tried in this order on every simple command of a Bash
// command line (CondenserFor). Each folds only lines of the shapes it
// lists, matched on the line as a terminal shows it, trimmed (glob.go:
// "…" is any run of characters, "{0-9}" a run of digits); every other
// line stays, and failures with their causes stay whatever the rules say.
// A new condenser is a row here and a case in testdata/condense (one
// failing run whose causes must survive, one passing run that must
// shrink), checked by TestCondenseCorpus.

var (
	goTestFolds = []Fold{
		{Label: "test starts", Patterns: []string{"=== RUN …", "=== PAUSE …", "=== CONT …", "=== NAME …"}},
		{Label: "passed tests", Patterns: []string{"--- PASS: …"}},
		{Label: "skipped tests", Patterns: []string{"--- SKIP: …"}},
		{Label: "test log lines", Patterns: []string{"…_test.go:{0-9}: …", "…_test.go:{0-9}:"}, Indented: true},
		{Label: "packages without tests", Patterns: []string{"? …[no test files]"}},
		{Label: "module downloads", Patterns: []string{"go: downloading …", "go: finding …", "go: extracting …"}},
	}
	pytestFolds = []Fold{
		{Label: "passed tests", Patterns: []string{"…::… PASSED…", "… ... ok"}},
		{Label: "skipped tests", Patterns: []string{"…::… SKIPPED…", "…::… XFAIL…", "… ... skipped…", "… ... expected failure"}},
		{Label: "progress lines", Patterns: []string{"… {.sx} …[…%]", "… {.sx}"}},
		{Label: "session header lines", Patterns: []string{"platform …", "cachedir: …", "rootdir: …", "configfile: …", "plugins: …", "cacheprovider…"}},
	}
	jestFolds = []Fold{
		{Label: "passed tests", Patterns: []string{"✓ …", "✔ …", "√ …"}},
		{Label: "passed test files", Patterns: []string{"PASS …"}},
		{Label: "skipped tests", Patterns: []string{"○ …", "↓ …"}},
	}
	cargoBuildFolds = []Fold{
		{Label: "build steps", Patterns: []string{
			"Compiling … v…", "Checking … v…", "Downloaded … v…", "Downloading crates …", "Updating …index", "Locking {0-9} package…",
			"Adding … v…", "Blocking waiting for file lock…", "Fresh …", "Documenting … v…", "Installing … v…",
		}},
	}
	cargoTestFolds = append([]Fold{
		{Label: "passed tests", Patterns: []string{"test … ... ok", "PASS […] …"}},
		{Label: "ignored tests", Patterns: []string{"test … ... ignored…"}},
		{Label: "test binaries", Patterns: []string{"Running unittests …", "Running tests/…", "Running benches/…", "Doc-tests …", "running {0-9} test…"}},
	}, cargoBuildFolds...)
	mixBuildFolds = []Fold{
		{Label: "compile steps", Patterns: []string{"==> …", "===> …", "Compiling {0-9} file…", "Compiled …", "Generated … app"}},
	}
	// mixDeps folds what the dependencies print while they compile (their
	// own warnings included): mix builds each under "==> name", and the
	// project last, whose section is spared.
	mixDeps      = &Section{Starts: []string{"==> …"}, Keep: 0, Label: "dependency output lines", SpareLast: true}
	mixTestFolds = append([]Fold{
		{Label: "progress dots", Patterns: []string{"{.*}"}},
		{Label: "passed tests (--trace)", Patterns: []string{"* test … [L#{0-9}]", "* doctest … [L#{0-9}]"}},
		{Label: "run settings", Patterns: []string{"Running ExUnit with seed: …", "Excluding tags: …", "Including tags: …"}},
		// What the code under test logs while tests pass; an [error] line,
		// or one that says it failed, is never folded.
		{Label: "log lines", Patterns: []string{"{0-9:.} [debug] …", "{0-9:.} [info] …", "{0-9:.} [notice] …", "{0-9:.} [warning] …", "{0-9:.} [warn] …"}},
	}, mixBuildFolds...)
	rspecFolds = []Fold{ // an F in the progress line is a failure listed in full under "Failures:"
		{Label: "progress lines", Patterns: []string{"{.*F}"}},
	}
)

func folds(groups ...[]Fold) []Fold {
	var out []Fold
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

var condensers = []*Condenser{
	// Test runners.
	{Name: "go test", Commands: []string{"go test", "gotestsum"}, Fold: goTestFolds},
	{Name: "pytest", Commands: []string{"pytest", "py.test", "python -m pytest", "python3 -m pytest", "uv run pytest", "poetry run pytest",
		"python -m unittest", "python3 -m unittest", "tox"}, Fold: pytestFolds},
	{Name: "jest/vitest", Commands: []string{"jest", "npx jest", "vitest", "npx vitest", "bunx vitest", "pnpm vitest", "pnpm jest",
		"yarn jest", "yarn vitest", "mocha", "npx mocha"}, Fold: jestFolds},
	{Name: "cargo test", Commands: []string{"cargo test", "cargo nextest"}, Fold: cargoTestFolds},
	{Name: "mix test", Commands: []string{"mix test"}, Fold: mixTestFolds, Section: mixDeps},
	{Name: "rspec", Commands: []string{"rspec", "bundle exec rspec", "bin/rspec"}, Fold: rspecFolds},
	// Test scripts whose runner the command does not name: every runner's
	// rules (each folds only its own shapes).
	{Name: "tests", Commands: []string{"npm test", "npm run test", "npm t", "yarn test", "pnpm test", "pnpm run test", "bun test",
		"make test", "make check", "just test"}, Fold: folds(goTestFolds, pytestFolds, jestFolds, cargoTestFolds, mixTestFolds)},

	// Package managers.
	{Name: "npm install", Commands: []string{"npm install", "npm i", "npm ci", "npm add", "npm update", "npm uninstall"}, Fold: []Fold{
		{Label: "deprecation warnings", Patterns: []string{"npm warn deprecated …", "npm WARN deprecated …"}},
		{Label: "progress", Patterns: []string{"npm http …", "npm sill …", "npm verb …", "npm timing …", "npm info …"}},
		{Label: "funding notices", Patterns: []string{"{0-9} package… looking for funding", "run `npm fund` for details"}},
		{Label: "install script banners", Patterns: []string{"> …"}},
	}},
	{Name: "pnpm install", Commands: []string{"pnpm install", "pnpm i", "pnpm add", "pnpm update", "pnpm remove"}, Fold: []Fold{
		{Label: "progress", Patterns: []string{"Progress: resolved …", "{+-}"}},
		{Label: "deprecation warnings", Patterns: []string{"WARN …deprecated…"}},
		{Label: "added packages", Patterns: []string{"+ … {0-9}…"}},
	}},
	{Name: "yarn install", Commands: []string{"yarn install", "yarn add", "yarn upgrade", "yarn remove"}, Fold: []Fold{
		{Label: "steps", Patterns: []string{"[{0-9}/{0-9}] …"}},
		{Label: "info lines", Patterns: []string{"info …", "➤ YN0000: …"}},
		{Label: "deprecation warnings", Patterns: []string{"warning … > …@{0-9}…: …", "warning …@{0-9}…: … deprecated…", "warning …@{0-9}…: Use …", "warning …@{0-9}…: Please …"}},
	}},
	{Name: "pip install", Commands: []string{"pip install", "pip3 install", "python -m pip install", "python3 -m pip install",
		"uv pip install", "uv sync", "uv add", "poetry install", "poetry add"}, Fold: []Fold{
		{Label: "collected packages", Patterns: []string{"Collecting …", "Obtaining …", "Looking in indexes: …"}},
		{Label: "downloads", Patterns: []string{"Downloading …", "Using cached …", "━…", "|█…", "Downloaded …"}},
		{Label: "already satisfied", Patterns: []string{"Requirement already satisfied: …"}},
		{Label: "build steps", Patterns: []string{"Building wheel for … done", "Created wheel for …", "Stored in directory: …", "Preparing metadata … done",
			"Installing build dependencies … done", "Getting requirements to build wheel … done", "Building wheels for collected packages: …"}},
		{Label: "package lines", Patterns: []string{"+ …=={0-9}…", "- …=={0-9}…", "- Installing … (…)", "- Updating … (…)", "- Downgrading … (…)"}},
	}},
	{Name: "cargo build", Commands: []string{"cargo build", "cargo check", "cargo clippy", "cargo run", "cargo install", "cargo fetch",
		"cargo doc", "cargo update"}, Fold: cargoBuildFolds},
	{Name: "go build", Commands: []string{"go build", "go mod", "go get", "go install", "go run", "go vet", "go generate", "go work"}, Fold: []Fold{
		{Label: "module downloads", Patterns: []string{"go: downloading …", "go: finding …", "go: extracting …"}},
	}},
	{Name: "mix", Commands: []string{"mix"}, Fold: append([]Fold{
		{Label: "dependency fetches", Patterns: []string{"* Getting … (…)", "* Updating … (…)", "* Fetching …", "Resolving Hex dependencies…",
			"Resolution completed in …"}},
		{Label: "dependency lines", Patterns: []string{"{a-z0-9_} {0-9}…"}, Indented: true},
		{Label: "dialyzer steps", Patterns: []string{"Finding suitable PLTs", "Checking PLT…", "PLT is up to date!", "Looking up modules in …",
			"Finding applications for …", "Finding modules for …", "Checking {0-9} modules in …", "Adding {0-9} modules to …", "Starting Dialyzer",
			"check_plt: …", "init_plt: …", "files: …", "files_rec: …", "warnings: …", "[", "]"}},
		{Label: "credo notices", Patterns: []string{"Please report incorrect results: …", "Showing priority issues: …", "Use `mix credo explain` …",
			"(use `mix credo explain` …"}},
		{Label: "info log lines", Patterns: []string{"…[info] …"}},
	}, mixBuildFolds...), Section: mixDeps},

	// Builds.
	{Name: "npm run", Commands: []string{"npm run", "pnpm run", "yarn run", "npx vite", "vite", "npx webpack", "webpack", "next build", "npx next"}, Fold: []Fold{
		{Label: "script banners", Patterns: []string{"> …"}},
		{Label: "build steps", Patterns: []string{"transforming…", "✓ {0-9} modules transformed.", "rendering chunks…", "computing gzip size…"}},
		{Label: "asset lines", Patterns: []string{"…│ gzip:…", "asset … [emitted]…", "orphan modules …", "runtime modules …", "cacheable modules …", "modules by path …"}},
	}},
	{Name: "make", Commands: []string{"make", "gmake", "cmake", "ninja"}, Fold: []Fold{
		{Label: "directory changes", Patterns: []string{"make[{0-9}]: Entering directory …", "make[{0-9}]: Leaving directory …",
			"make: Entering directory …", "make: Leaving directory …", "make[{0-9}]: Nothing to be done for …"}},
		{Label: "compiler invocations", Patterns: []string{"gcc …", "g++ …", "cc …", "c++ …", "clang …", "clang++ …", "ar …", "ranlib …",
			"libtool: …", "/usr/bin/cc …", "/usr/bin/c++ …", "CC …", "CXX …", "LD …", "AR …", "CCLD …"}},
		{Label: "build steps", Patterns: []string{"[{0-9 }%] Building …", "[{0-9 }%] Linking …", "[{0-9 }%] Built target …",
			"Scanning dependencies of target …", "Consolidate compiler generated dependencies of target …", "[{0-9}/{0-9}] …", "-- …"}},
	}},
	{Name: "gradle", Commands: []string{"gradle", "./gradlew", "gradlew"}, Fold: []Fold{
		{Label: "tasks", Patterns: []string{"> Task :…", "> Configure project …"}},
		{Label: "downloads", Patterns: []string{"Download …"}},
	}},
	{Name: "maven", Commands: []string{"mvn", "./mvnw", "mvnw"}, Fold: []Fold{
		{Label: "downloads", Patterns: []string{"[INFO] Downloading from …", "[INFO] Downloaded from …", "Downloading from …", "Downloaded from …", "Progress (…"}},
		{Label: "plugin steps", Patterns: []string{"[INFO] --- … ---", "[INFO] Building jar: …", "[INFO] Copying … resource…", "[INFO] Nothing to compile …",
			"[INFO] Using '…' encoding …", "[INFO] skip non existing resourceDirectory …", "[INFO] Changes detected - recompiling the module!",
			"[INFO] Compiling {0-9} source file…", "[INFO] {-}", "[INFO]"}},
	}},

	// Git.
	{Name: "git log", Commands: []string{"git log", "git reflog"}, Alone: true, Fold: []Fold{
		{Label: "author and date lines", Patterns: []string{"Author: …", "Date: …", "AuthorDate: …", "Commit: …", "CommitDate: …", "Merge: …"}},
	}, Section: &Section{Starts: []string{"commit {0-9a-f}…"}, Keep: 2, Label: "commit message lines"},
		Middle: &Middle{First: 60, Last: 10, Label: "log lines"}},
	{Name: "git diff", Commands: []string{"git diff", "git show"}, Alone: true, Fold: []Fold{
		{Label: "index lines", Patterns: []string{"index {0-9a-f}..{0-9a-f}…"}},
	}, Section: &Section{Starts: []string{"diff --git …"}, Keep: 60, Label: "diff lines"}},
	{Name: "git status", Commands: []string{"git status"}, Alone: true, Fold: []Fold{
		{Label: "hints", Patterns: []string{`(use "git …)`, "(commit or discard the untracked or modified content in submodules)"}},
	}, Section: &Section{Starts: []string{"Changes to be committed:", "Changes not staged for commit:", "Untracked files:", "Unmerged paths:"},
		Keep: 21, Label: "file lines"}},

	// Listings.
	{Name: "listing", Commands: []string{"ls", "find", "tree", "fd", "fdfind", "git ls-files", "du", "eza", "exa"}, Alone: true,
		Middle: &Middle{First: 30, Last: 5, Label: "entries"}},
}
