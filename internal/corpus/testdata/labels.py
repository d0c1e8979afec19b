"""Reads a runner's machine-readable report into the labels of a corpus case.

    python3 labels.py RUNNER WORKDIR CASEDIR LABEL_EXIT

scripts/corpus.sh runs it after a case's label command, which left its
stdout and stderr, and any report file, in CASEDIR/.label. It prints
labels.json and copies the report it read to CASEDIR/artefact.<ext>.

Labels:
  passed, failed, skipped  the tests as the runner counts them; for a
                           compiler or linter: files without an error, error
                           diagnostics, 0
  errors                   what broke the run outside a test: packages, files
                           or suites that did not build or load, setup
                           errors; for a compiler or linter, its error
                           diagnostics (warnings are not counted)
  failed_tests             every test that failed or errored, and every
                           package, file or suite that did not load, named as
                           the runner names it; for a compiler or linter the
                           location of each error (path:line:col, javac
                           path:line), for a link error the missing symbol
  source                   which report the labels come from

Only the standard library: it runs on any python3.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    runner, work, case, label_exit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    lab = os.path.join(case, ".label")
    ctx = Ctx(runner, work, case, lab, label_exit)
    labels = READERS[runner](ctx)
    out = {
        "runner": runner,
        "passed": labels.get("passed", 0),
        "failed": labels.get("failed", 0),
        "skipped": labels.get("skipped", 0),
        "errors": labels.get("errors", 0),
        "failed_tests": sorted(labels.get("failed_tests", [])),
        "source": labels["source"],
    }
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


class Ctx:
    def __init__(self, runner, work, case, lab, label_exit):
        self.runner, self.work, self.case, self.lab, self.label_exit = runner, work, case, lab, label_exit

    def read(self, name):
        with open(os.path.join(self.lab, name), encoding="utf-8", errors="replace") as f:
            return f.read()

    def keep(self, path, ext):
        """Copies the report at path (relative to .label) into the case."""
        shutil.copyfile(os.path.join(self.lab, path), os.path.join(self.case, "artefact." + ext))

    def keep_text(self, text, ext):
        with open(os.path.join(self.case, "artefact." + ext), "w", encoding="utf-8") as f:
            f.write(text)

    def rel(self, path):
        """path relative to the project (reports often give absolute ones)."""
        if os.path.isabs(path):
            try:
                return os.path.relpath(os.path.realpath(path), os.path.realpath(self.work))
            except ValueError:
                return path
        return path


def fail(msg):
    sys.stderr.write("labels.py: " + msg + "\n")
    sys.exit(1)


# --- go test -json ---------------------------------------------------------


def go(c):
    text = c.read("stdout")
    c.keep_text(text, "jsonl")
    final = {}  # (package, test) -> action
    order = []
    build_failed = []
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        act = ev.get("Action")
        if act == "fail" and ev.get("FailedBuild") and not ev.get("Test"):
            if ev["Package"] not in build_failed:
                build_failed.append(ev["Package"])
        if not ev.get("Test") or act not in ("pass", "fail", "skip"):
            continue
        key = (ev["Package"], ev["Test"])
        if key not in final:
            order.append(key)
        final[key] = act
    if not final and not build_failed:
        fail("go test -json reported no test")
    count = lambda a: sum(1 for v in final.values() if v == a)
    return {
        "passed": count("pass"),
        "failed": count("fail"),
        "skipped": count("skip"),
        "errors": len(build_failed),
        "failed_tests": [t for (p, t) in order if final[(p, t)] == "fail"] + build_failed,
        "source": "go test -json: the last pass/fail/skip event of each test and subtest; errors: packages whose build failed (FailedBuild)",
    }


# --- JUnit XML --------------------------------------------------------------


def junit_cases(path):
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        kinds = [ch.tag for ch in tc]
        if "failure" in kinds:
            state = "failed"
        elif "error" in kinds:
            state = "error"
        elif "skipped" in kinds:
            state = "skipped"
        else:
            state = "passed"
        yield tc, state


def pytest(c):
    c.keep("junit.xml", "xml")
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for tc, state in junit_cases(os.path.join(c.lab, "junit.xml")):
        name = pytest_nodeid(c.work, tc.get("classname", ""), tc.get("name", ""))
        if state == "passed":
            res["passed"] += 1
        elif state == "skipped":
            res["skipped"] += 1
        elif state == "failed":
            res["failed"] += 1
            res["failed_tests"].append(name)
        else:
            res["errors"] += 1
            res["failed_tests"].append(name)
    res["source"] = ("pytest --junitxml: <failure> failed, <error> errors (collection and setup errors), "
                     "<skipped> skipped (xfailed included); names are node ids rebuilt from classname and name")
    return res


def pytest_nodeid(work, classname, name):
    """tests.test_calc.TestCalc + test_add -> tests/test_calc.py::TestCalc::test_add."""
    parts = classname.split(".") if classname else name.split(".")
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if os.path.exists(os.path.join(work, path)):
            if not classname:  # a collection error names the module
                return path
            return "::".join([path] + parts[i:] + [name])
    return (classname + "::" if classname else "") + name


def node(c):
    c.keep("events.jsonl", "jsonl")
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for line in c.read("events.jsonl").splitlines():
        ev = json.loads(line)
        if ev["kind"] == "suite":
            continue
        if ev["skip"] or ev["todo"]:
            res["skipped"] += 1
        elif ev["event"] == "test:pass":
            res["passed"] += 1
        else:
            res["failed"] += 1
            res["failed_tests"].append(ev["name"])
    res["source"] = ("node --test --test-reporter=tools/node_events.mjs: the runner's test:pass and test:fail events, "
                     "describe() suites left out as node counts them; failed includes cancelled tests (timeouts), "
                     "skipped includes todo; names are the tests' own")
    return res


def ctest(c):
    c.keep("ctest.xml", "xml")
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for tc, state in junit_cases(os.path.join(c.lab, "ctest.xml")):
        if state == "passed":
            res["passed"] += 1
        elif state == "skipped":
            res["skipped"] += 1
        else:
            res["failed"] += 1
            res["failed_tests"].append(tc.get("name"))
    res["source"] = "ctest --output-junit: one <testcase> a test; <failure> failed, <skipped> skipped or disabled"
    return res


def junit(c):
    files = sorted(glob.glob(os.path.join(c.lab, "reports", "TEST-*.xml")))
    if not files:
        fail("no JUnit report")
    c.keep(os.path.relpath(files[0], c.lab), "xml")
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for f in files:
        for tc, state in junit_cases(f):
            name = tc.get("name")
            m = re.search(r"^display-name: (.*)$", tc.findtext("system-out") or "", re.M)
            if m:
                name = m.group(1)
            if state == "passed":
                res["passed"] += 1
            elif state == "skipped":
                res["skipped"] += 1
            else:
                res["failed"] += 1
                res["failed_tests"].append(name)
    res["source"] = ("JUnit console launcher --reports-dir (legacy XML): <failure> and <error> (an exception) both "
                     "failed, as the launcher's summary counts them; names are the display names the launcher prints "
                     "(from each testcase's system-out: 'method()', '[2] 1,50, 150' for a parameterized invocation)")
    return res


# --- JSON reports of the JavaScript runners ----------------------------------


def jestlike(c, file, sep, what):
    c.keep(file, "json")
    with open(os.path.join(c.lab, file), encoding="utf-8") as f:
        r = json.load(f)
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for suite in r["testResults"]:
        results = suite.get("assertionResults", [])
        for a in results:
            st = a["status"]
            if st == "passed":
                res["passed"] += 1
            elif st == "failed":
                res["failed"] += 1
                res["failed_tests"].append(sep.join(a.get("ancestorTitles", []) + [a["title"]]))
            else:  # pending, skipped, todo, disabled
                res["skipped"] += 1
        if suite.get("status") == "failed" and not any(a["status"] == "failed" for a in results):
            res["errors"] += 1
            res["failed_tests"].append(c.rel(suite["name"]))
    res["source"] = what
    return res


def jest(c):
    return jestlike(c, "jest.json", " › ",
                    "jest --json --outputFile: assertionResults by status (pending and todo skipped); errors: suites that failed to run; "
                    "names are ancestorTitles and title joined with ' › ', a suite that failed to run by its path")


def vitest(c):
    return jestlike(c, "vitest.json", " > ",
                    "vitest --reporter=json --outputFile: assertionResults by status (skipped and todo skipped); errors: files that failed "
                    "to load or run; names are ancestorTitles and title joined with ' > ', a file by its path")


def mocha(c):
    c.keep("mocha.json", "json")
    with open(os.path.join(c.lab, "mocha.json"), encoding="utf-8") as f:
        r = json.load(f)
    s = r["stats"]
    return {
        "passed": s["passes"],
        "failed": s["failures"],
        "skipped": s["pending"],
        "failed_tests": [t["fullTitle"] for t in r["failures"]],
        "source": "mocha --reporter json (reporter-option output=FILE): stats and failures[].fullTitle (a failed hook counts as a failure)",
    }


def eslint(c):
    c.keep("eslint.json", "json")
    with open(os.path.join(c.lab, "eslint.json"), encoding="utf-8") as f:
        r = json.load(f)
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for f in r:
        if f["errorCount"] == 0:
            res["passed"] += 1
        for m in f["messages"]:
            if m["severity"] == 2:
                res["failed_tests"].append("%s:%d:%d" % (c.rel(f["filePath"]), m.get("line", 0), m.get("column", 0)))
    res["failed"] = res["errors"] = len(res["failed_tests"])
    res["source"] = ("eslint -f json: messages of severity 2 (warnings not counted); passed: files without an error; "
                     "failed_tests: path:line:col of each error")
    return res


def tsc(c):
    c.keep_text(c.read("stdout"), "json")
    r = json.loads(c.read("stdout"))
    errs = [d for d in r["diagnostics"] if d["category"] == "error"]
    bad = {d["file"] for d in errs}
    return {
        "passed": sum(1 for f in r["files"] if f not in bad),
        "failed": len(errs),
        "errors": len(errs),
        "failed_tests": ["%s:%d:%d" % (d["file"], d["line"], d["column"]) for d in errs],
        "source": ("the TypeScript compiler API (ts.getPreEmitDiagnostics, tools/tsc_labels.cjs): diagnostics of category Error; "
                   "passed: the project's files without an error; failed_tests: path:line:col of each error"),
    }


# --- other languages ----------------------------------------------------------


def unittest(c):
    c.keep("unittest.json", "json")
    with open(os.path.join(c.lab, "unittest.json"), encoding="utf-8") as f:
        r = json.load(f)
    bad = {t["test"] for t in r["failures"] + r["errors"]}
    return {
        "passed": r["testsRun"] - len(bad) - len(r["skipped"]) - len(r["expectedFailures"]) - len(r["unexpectedSuccesses"]),
        "failed": len(r["failures"]),
        "skipped": len(r["skipped"]),
        "errors": len(r["errors"]),
        "failed_tests": [t["name"] for t in r["failures"] + r["errors"]],
        "source": ("unittest's TestResult dumped by tools/unittest_json.py: failures (one per failed subtest), errors "
                   "(exceptions, modules that did not import), skipped; names as unittest prints them, str(test)"),
    }


def cargo(c):
    text = c.read("stdout")
    c.keep_text(text, "jsonl")
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        if ev.get("reason") == "compiler-message":
            m = ev["message"]
            prim = [s for s in m.get("spans", []) if s.get("is_primary")]
            if m["level"] == "error" and prim:
                res["errors"] += 1
                res["failed_tests"].append("%s:%d:%d" % (prim[0]["file_name"], prim[0]["line_start"], prim[0]["column_start"]))
        elif ev.get("type") == "test":
            e = ev["event"]
            if e == "ok":
                res["passed"] += 1
            elif e in ("failed", "timeout"):
                res["failed"] += 1
                res["failed_tests"].append(ev["name"])
            elif e == "ignored":
                res["skipped"] += 1
    res["source"] = ("cargo test --message-format=json, libtest -Z unstable-options --format json (RUSTC_BOOTSTRAP=1): "
                     "test events ok/failed/ignored; errors: rustc error diagnostics with a primary span (path:line:col)")
    return res


def mix(c):
    c.keep("exunit.json", "json")
    with open(os.path.join(c.lab, "exunit.json"), encoding="utf-8") as f:
        r = json.load(f)
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for t in r["tests"]:
        st = t["state"]
        if st == "passed":
            res["passed"] += 1
        elif st == "failed":
            res["failed"] += 1
            res["failed_tests"].append(t["name"])
        elif st == "invalid":
            # ExUnit names the module whose setup_all failed, not its tests.
            res["errors"] += 1
            if t["module"] not in res["failed_tests"]:
                res["failed_tests"].append(t["module"])
        else:  # skipped, excluded
            res["skipped"] += 1
    res["source"] = ("ExUnit events through the project's JSON formatter (test/json_formatter.exs, on when CORPUS_EXUNIT_JSON is set): "
                     "test states; invalid (its module's setup_all failed) counts as errors; names as ExUnit prints them, "
                     "'test NAME (Module)', and the module of invalid tests")
    return res


def rspec(c):
    c.keep("rspec.json", "json")
    with open(os.path.join(c.lab, "rspec.json"), encoding="utf-8") as f:
        r = json.load(f)
    res = {"passed": 0, "failed": 0, "skipped": 0, "failed_tests": []}
    for e in r["examples"]:
        if e["status"] == "passed":
            res["passed"] += 1
        elif e["status"] == "failed":
            res["failed"] += 1
            res["failed_tests"].append(e["full_description"])
        else:
            res["skipped"] += 1
    res["errors"] = r["summary"].get("errors_outside_of_examples_count", 0)
    res["source"] = ("rspec --format json --out FILE: examples by status (pending counts as skipped), full_description; "
                     "errors: errors_outside_of_examples_count (files that did not load)")
    return res


def gcc(c):
    err = c.read("stderr")
    diags, other = [], []
    for line in err.splitlines():
        if line.startswith("["):
            diags.append(json.loads(line))
        else:
            other.append(line)
    c.keep_text(json.dumps(diags, indent=1), "json")
    res = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "failed_tests": []}
    for tu in diags:
        n = 0
        for d in tu:
            if d["kind"] == "error":
                n += 1
                loc = d["locations"][0]["caret"]
                res["failed_tests"].append("%s:%d:%d" % (loc["file"], loc["line"], loc["column"]))
        if n == 0:
            res["passed"] += 1
    res["errors"] = res["failed"] = len(res["failed_tests"])
    how = "gcc -fdiagnostics-format=json: diagnostics of kind error, path:line:col; passed: translation units without an error"
    if res["errors"] == 0 and c.label_exit != 0:
        # Everything compiled and yet make failed: the link. ld has no
        # machine-readable report; the objects' symbol tables say what is
        # missing.
        missing = undefined_symbols(c.work)
        if not missing:
            fail("make failed without a compile error nor a missing symbol")
        res["failed_tests"] = missing
        res["errors"] = res["failed"] = len(missing)
        how += ("; link errors: nm: the symbols the objects use that no object nor libc defines "
                "(failed_tests: the symbols; ld reports each of their references)")
    res["source"] = how
    return res


def undefined_symbols(work):
    objs = sorted(glob.glob(os.path.join(work, "**", "*.o"), recursive=True))
    nm = lambda *args: subprocess.run(["nm", *args], capture_output=True, text=True, check=True).stdout
    used, defined = [], set()
    for o in objs:
        for line in nm("-u", o).splitlines():
            s = line.split()[-1]
            if s not in used:
                used.append(s)
        defined.update(line.split()[-1] for line in nm("--defined-only", o).splitlines() if line.strip())
    libc = subprocess.run(["gcc", "-print-file-name=libc.so.6"], capture_output=True, text=True).stdout.strip()
    libc_syms = {line.split()[-1].split("@")[0] for line in nm("-D", "--defined-only", libc).splitlines() if line.strip()}
    return [s for s in used if s not in defined and s not in libc_syms]


def javac(c):
    c.keep_text(c.read("stdout"), "json")
    r = json.loads(c.read("stdout"))
    errs = [d for d in r["diagnostics"] if d["kind"] == "ERROR"]
    bad = {d["file"] for d in errs}
    return {
        "passed": sum(1 for f in r["files"] if f not in bad),
        "failed": len(errs),
        "errors": len(errs),
        "failed_tests": ["%s:%d" % (d["file"], d["line"]) for d in errs],
        "source": ("javax.tools.JavaCompiler with a DiagnosticCollector (tools/JavacLabels.java): diagnostics of kind ERROR; "
                   "passed: source files without an error; failed_tests: path:line of each error (javac prints no column)"),
    }


READERS = {
    "go": go, "pytest": pytest, "unittest": unittest, "node": node, "vitest": vitest, "jest": jest,
    "mocha": mocha, "cargo": cargo, "mix": mix, "rspec": rspec, "ctest": ctest, "gcc": gcc,
    "tsc": tsc, "eslint": eslint, "javac": javac, "junit": junit,
}

if __name__ == "__main__":
    main()
