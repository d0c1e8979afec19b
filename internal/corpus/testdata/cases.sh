# The cases of the runner corpus, read by scripts/corpus.sh:
#   kase NAME RUNNER OVERLAYS COMMAND LABEL-COMMAND
# COMMAND is the command line as an agent types it, run with `bash -c` in a
# copy of projects/RUNNER/base with the OVERLAYS (folders of
# projects/RUNNER) copied over it; LABEL-COMMAND runs after it in the same
# folder and writes the runner's machine-readable report (to stdout, or
# into the folder $L), which labels.py reads. Single quotes: $L is
# expanded when the label command runs.
# shellcheck shell=bash disable=SC2016

# go test: labels from go test -json (one event per test, subtests
# included; a package that does not build is a "build-fail").
kase go-pass go '' 'go test ./... 2>&1' 'go test -json ./...'
kase go-pass-verbose go '' 'go test -v ./... 2>&1' 'go test -json ./...'
kase go-fail-one go 'fail-one' 'go test ./... 2>&1' 'go test -json ./...'
kase go-fail-many go 'fail-many' 'go test ./... 2>&1' 'go test -json ./...'
kase go-fail-many-verbose go 'fail-many' 'go test -v ./... 2>&1' 'go test -json ./...'
kase go-fail-many-tail go 'fail-many' 'go test ./... 2>&1 | tail -50' 'go test -json ./...'
kase go-fail-one-pkg go 'fail-one' 'go test ./calc/ 2>&1' 'go test -json ./calc/'
kase go-panic go 'panic' 'go test ./... 2>&1' 'go test -json ./...'
kase go-build-error go 'build-error' 'go test ./... 2>&1' 'go test -json ./...'

# pytest: labels from --junitxml in a second run with the same arguments.
kase pytest-pass pytest '' 'python3 -m pytest 2>&1' 'python3 -m pytest --junitxml=$L/junit.xml'
kase pytest-pass-verbose pytest '' 'python3 -m pytest -v -s 2>&1' 'python3 -m pytest -s --junitxml=$L/junit.xml'
kase pytest-fail-one pytest 'fail-one' 'python3 -m pytest -q 2>&1' 'python3 -m pytest --junitxml=$L/junit.xml'
kase pytest-fail-many pytest 'fail-many' 'pytest 2>&1' 'pytest --junitxml=$L/junit.xml'
kase pytest-fail-many-color pytest 'fail-many' 'python3 -m pytest --color=yes tests 2>&1' 'python3 -m pytest tests --junitxml=$L/junit.xml'
kase pytest-fail-many-tail pytest 'fail-many' 'python3 -m pytest 2>&1 | tail -15' 'python3 -m pytest --junitxml=$L/junit.xml'
kase pytest-fail-many-exitfirst pytest 'fail-many' 'python3 -m pytest -x 2>&1' 'python3 -m pytest -x --junitxml=$L/junit.xml'
kase pytest-collect-error pytest 'fail-one collect-error' 'python3 -m pytest 2>&1' 'python3 -m pytest --junitxml=$L/junit.xml'

# python -m unittest: labels from unittest's own TestResult, dumped as JSON
# by tools/unittest_json.py in a second run with the same arguments.
kase unittest-pass unittest '' 'python3 -m unittest 2>&1' 'CORPUS_UNITTEST_JSON=$L/unittest.json python3 $T/unittest_json.py'
kase unittest-pass-verbose unittest '' 'python3 -m unittest -v 2>&1' 'CORPUS_UNITTEST_JSON=$L/unittest.json python3 $T/unittest_json.py'
kase unittest-fail-one unittest 'fail-one' 'python3 -m unittest 2>&1' 'CORPUS_UNITTEST_JSON=$L/unittest.json python3 $T/unittest_json.py'
kase unittest-fail-many unittest 'fail-many' 'python3 -m unittest 2>&1' 'CORPUS_UNITTEST_JSON=$L/unittest.json python3 $T/unittest_json.py'
kase unittest-fail-many-verbose unittest 'fail-many' 'python3 -m unittest discover -v -s tests -t . 2>&1' 'CORPUS_UNITTEST_JSON=$L/unittest.json python3 $T/unittest_json.py discover -s tests -t .'
kase unittest-import-error unittest 'import-error' 'python3 -m unittest 2>&1 | tail -40' 'CORPUS_UNITTEST_JSON=$L/unittest.json python3 $T/unittest_json.py'

# node --test: labels from the runner's test:pass/test:fail events, written by
# tools/node_events.mjs as a --test-reporter in a second run. Node 20
# reports TAP when its output is not a terminal, as under an agent.
kase node-pass node '' 'node --test 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'
kase node-pass-spec-color node '' 'FORCE_COLOR=1 node --test --test-reporter=spec 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'
kase node-fail-one node 'fail-one' 'npm test 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'
kase node-fail-many node 'fail-many' 'node --test 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'
kase node-fail-many-spec node 'fail-many' 'node --test --test-reporter=spec 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'
kase node-fail-many-spec-color node 'fail-many' 'FORCE_COLOR=1 node --test --test-reporter=spec 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'
kase node-load-error node 'load-error' 'node --test 2>&1' 'node --test --test-reporter=$T/node_events.mjs --test-reporter-destination=$L/events.jsonl'

# vitest: labels from --reporter=json --outputFile in a second run. vitest
# colours its output whenever TERM is set and not "dumb", terminal or not
# (tinyrainbow): under an agent whose shell has TERM=xterm-256color, as here,
# it is in colour unless NO_COLOR is set.
kase vitest-pass vitest '' 'npx vitest run 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-pass-nocolor vitest '' 'NO_COLOR=1 npx vitest run 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-pass-verbose vitest '' 'npx vitest run --reporter=verbose 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-fail-one vitest 'fail-one' 'npm test 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-fail-many vitest 'fail-many' 'npx vitest run 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-fail-many-nocolor vitest 'fail-many' 'NO_COLOR=1 npx vitest run 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-fail-many-tail vitest 'fail-many' 'npx vitest run 2>&1 | tail -30' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'
kase vitest-load-error vitest 'fail-one load-error' 'npx vitest run 2>&1' 'npx vitest run --reporter=json --outputFile=$L/vitest.json'

# jest: labels from --json --outputFile in a second run.
kase jest-pass jest '' 'npx jest 2>&1' 'npx jest --json --outputFile=$L/jest.json'
kase jest-pass-verbose jest '' 'npx jest --verbose 2>&1' 'npx jest --json --outputFile=$L/jest.json'
kase jest-fail-one jest 'fail-one' 'npm test 2>&1' 'npx jest --json --outputFile=$L/jest.json'
kase jest-fail-many jest 'fail-many' 'npx jest 2>&1' 'npx jest --json --outputFile=$L/jest.json'
kase jest-fail-many-color jest 'fail-many' 'npx jest --colors 2>&1' 'npx jest --json --outputFile=$L/jest.json'
kase jest-fail-many-tail jest 'fail-many' 'npx jest 2>&1 | tail -40' 'npx jest --json --outputFile=$L/jest.json'
kase jest-suite-error jest 'fail-one suite-error' 'npx jest 2>&1' 'npx jest --json --outputFile=$L/jest.json'

# mocha: labels from the json reporter (reporter-option output=FILE) in a
# second run.
kase mocha-pass mocha '' 'npx mocha 2>&1' 'npx mocha --reporter json --reporter-option output=$L/mocha.json'
kase mocha-pass-color mocha '' 'npx mocha --color 2>&1' 'npx mocha --reporter json --reporter-option output=$L/mocha.json'
kase mocha-fail-one mocha 'fail-one' 'npm test 2>&1' 'npx mocha --reporter json --reporter-option output=$L/mocha.json'
kase mocha-fail-many mocha 'fail-many' 'npx mocha 2>&1' 'npx mocha --reporter json --reporter-option output=$L/mocha.json'
kase mocha-fail-many-color mocha 'fail-many' 'npx mocha --color 2>&1' 'npx mocha --reporter json --reporter-option output=$L/mocha.json'
kase mocha-fail-many-bail mocha 'fail-many' 'npx mocha --bail 2>&1' 'npx mocha --bail --reporter json --reporter-option output=$L/mocha.json'

# cargo test: labels from cargo's --message-format=json and libtest's JSON
# events (-Z unstable-options --format json, allowed on stable by
# RUSTC_BOOTSTRAP=1) in a second run; test threads run in parallel, so the
# order of the "test ... ok" lines varies from run to run.
cargo_labels='RUSTC_BOOTSTRAP=1 cargo test --message-format=json -- -Z unstable-options --format json'
kase cargo-pass cargo '' 'cargo test 2>&1' "$cargo_labels"
kase cargo-pass-nocapture cargo '' 'cargo test -- --nocapture 2>&1' "$cargo_labels"
kase cargo-fail-one cargo 'fail-one' 'cargo test 2>&1' "$cargo_labels"
kase cargo-fail-many cargo 'fail-many' 'cargo test 2>&1' "$cargo_labels"
kase cargo-fail-many-color cargo 'fail-many' 'cargo test --color always -- --color always 2>&1' "$cargo_labels"
kase cargo-fail-many-tail cargo 'fail-many' 'CARGO_TERM_COLOR=always cargo test 2>&1 | tail -40' "$cargo_labels"
kase cargo-compile-error cargo 'compile-error' 'cargo test 2>&1' "$cargo_labels"

# mix test: labels from ExUnit's events, written as JSON by the project's
# own formatter (test/json_formatter.exs, added by test_helper.exs when
# CORPUS_EXUNIT_JSON is set) in a second run. seed: 0 fixes the order.
mix_labels='CORPUS_EXUNIT_JSON=$L/exunit.json mix test'
kase mix-pass mix '' 'mix test 2>&1' "$mix_labels"
kase mix-pass-trace mix '' 'mix test --trace 2>&1' "$mix_labels"
kase mix-fail-one mix 'fail-one' 'mix test 2>&1' "$mix_labels"
kase mix-fail-many mix 'fail-many' 'mix test 2>&1' "$mix_labels"
kase mix-fail-many-color mix 'fail-many' 'mix test --color 2>&1' "$mix_labels"
kase mix-fail-many-tail mix 'fail-many' 'mix test 2>&1 | tail -40' "$mix_labels"
kase mix-setup-error mix 'fail-one setup-error' 'mix test 2>&1' "$mix_labels"

# rspec: labels from --format json --out FILE in a second run.
rspec_labels='rspec --format json --out $L/rspec.json'
kase rspec-pass rspec '' 'rspec 2>&1' "$rspec_labels"
kase rspec-pass-documentation rspec '' 'rspec --format documentation 2>&1' "$rspec_labels"
kase rspec-fail-one rspec 'fail-one' 'rspec 2>&1' "$rspec_labels"
kase rspec-fail-many rspec 'fail-many' 'rspec 2>&1' "$rspec_labels"
kase rspec-fail-many-color rspec 'fail-many' 'rspec --force-color 2>&1' "$rspec_labels"
kase rspec-fail-many-tail rspec 'fail-many' 'rspec 2>&1 | tail -25' "$rspec_labels"
kase rspec-load-error rspec 'fail-one load-error' 'rspec 2>&1' "$rspec_labels"

# ctest: labels from --output-junit in a second run. The project is
# configured beforehand (cmake -S . -B build, not part of the output); the
# build is part of some commands, as an agent would chain it.
ctest_labels='cmake --build build >/dev/null 2>&1; ctest --test-dir build --output-junit $L/ctest.xml'
kase ctest-pass ctest '' 'cmake --build build 2>&1 && ctest --test-dir build 2>&1' "$ctest_labels"
kase ctest-pass-verbose ctest '' 'cmake --build build >/dev/null && ctest --test-dir build -V 2>&1' "$ctest_labels"
kase ctest-fail-one ctest 'fail-one' 'cmake --build build 2>&1 && ctest --test-dir build --output-on-failure 2>&1' "$ctest_labels"
kase ctest-fail-many ctest 'fail-many' 'cmake --build build >/dev/null && cd build && ctest 2>&1' "$ctest_labels"
kase ctest-fail-many-output ctest 'fail-many' 'cmake --build build >/dev/null && ctest --test-dir build --output-on-failure 2>&1' "$ctest_labels"

# gcc through make: labels from gcc -fdiagnostics-format=json (one JSON
# array a translation unit on stderr) in a second, clean build with the same
# make options; a link error from the objects' symbol tables (nm), as ld has
# no machine-readable report.
gcc_labels() { printf 'make clean >/dev/null; make %s CFLAGS="-Wall -Wextra -O2 -fdiagnostics-format=json"' "$1"; }
kase gcc-make-pass-warnings gcc '' 'make 2>&1' "$(gcc_labels '')"
kase gcc-make-pass-color gcc '' 'make CFLAGS="-Wall -Wextra -O2 -fdiagnostics-color=always" 2>&1' "$(gcc_labels '')"
kase gcc-make-error-one gcc 'error-one' 'make 2>&1' "$(gcc_labels '')"
kase gcc-make-errors-many gcc 'errors-many' 'make -k 2>&1' "$(gcc_labels -k)"
kase gcc-make-errors-many-color gcc 'errors-many' 'make -k CFLAGS="-Wall -fdiagnostics-color=always" 2>&1' 'make clean >/dev/null; make -k CFLAGS="-Wall -fdiagnostics-format=json"'
kase gcc-make-link-error gcc 'link-error' 'make 2>&1' "$(gcc_labels '')"
kase gcc-make-error-tail gcc 'errors-many' 'make 2>&1 | tail -20' "$(gcc_labels '')"

# tsc: labels from the compiler's own API (tools/tsc_labels.cjs:
# getPreEmitDiagnostics) in a second pass. tsc prints nothing when all is
# well: a passing case runs the program it built, whose log is the noise.
tsc_labels='node $T/tsc_labels.cjs'
kase tsc-pass tsc '' 'npx tsc && node dist/main.js 2>&1' "$tsc_labels"
kase tsc-pass-noemit tsc '' 'npx tsc --noEmit 2>&1' "$tsc_labels"
kase tsc-error-one tsc 'error-one' 'npx tsc --noEmit 2>&1' "$tsc_labels"
kase tsc-errors-many tsc 'errors-many' 'npx tsc 2>&1' "$tsc_labels"
kase tsc-errors-many-pretty tsc 'errors-many' 'npx tsc --noEmit --pretty 2>&1' "$tsc_labels"
kase tsc-errors-many-build tsc 'errors-many' 'npm run build 2>&1' "$tsc_labels"

# eslint: labels from -f json -o FILE in a second run.
eslint_labels='npx eslint -f json -o $L/eslint.json .'
kase eslint-pass-warnings eslint '' 'npx eslint . 2>&1' "$eslint_labels"
kase eslint-pass-warnings-color eslint '' 'npx eslint --color . 2>&1' "$eslint_labels"
kase eslint-error-one eslint 'error-one' 'npx eslint . 2>&1' "$eslint_labels"
kase eslint-errors-many eslint 'error-one errors-many' 'npm run lint 2>&1' "$eslint_labels"
kase eslint-errors-many-color eslint 'error-one errors-many' 'npx eslint --color src 2>&1' "$eslint_labels"

# javac: labels from the compiler's own diagnostics through javax.tools
# (tools/JavacLabels.java) with the same arguments, in a second run.
javac_labels='java $T/JavacLabels.java -Xlint:all -d $L/out src/shop/*.java'
kase javac-pass-notes javac '' 'javac -d out src/shop/*.java 2>&1' "$javac_labels"
kase javac-pass-warnings javac '' 'javac -Xlint:all -d out src/shop/*.java 2>&1' "$javac_labels"
kase javac-pass-run javac '' 'javac -d out src/shop/*.java && java -cp out shop.Main 2>&1' "$javac_labels"
kase javac-error-one javac 'error-one' 'javac -d out src/shop/*.java 2>&1' "$javac_labels"
kase javac-errors-many javac 'errors-many' 'javac -Xlint:all -d out src/shop/*.java 2>&1' "$javac_labels"

# JUnit 5 (Debian's junit5: the console launcher): labels from
# --reports-dir (its legacy XML report) in a second run. The project is
# compiled beforehand (javac, not part of the output).
junit_run='java -jar /usr/share/java/junit-platform-console-standalone.jar -cp out:/usr/share/java/junit-jupiter-params.jar --scan-class-path'
junit_labels="$junit_run --disable-banner --details=none --reports-dir \$L/reports"
kase junit-pass junit '' "$junit_run 2>&1" "$junit_labels"
kase junit-pass-nocolor junit '' "$junit_run --disable-ansi-colors --disable-banner 2>&1" "$junit_labels"
kase junit-fail-one junit 'fail-one' "$junit_run 2>&1" "$junit_labels"
kase junit-fail-many junit 'fail-many' "$junit_run 2>&1" "$junit_labels"
kase junit-fail-many-nocolor junit 'fail-many' "$junit_run --disable-ansi-colors 2>&1" "$junit_labels"
kase junit-fail-many-flat junit 'fail-many' "$junit_run --details=flat --disable-ansi-colors 2>&1" "$junit_labels"
