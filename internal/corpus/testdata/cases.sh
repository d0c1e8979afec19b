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
