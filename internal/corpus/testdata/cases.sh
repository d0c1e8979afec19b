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
