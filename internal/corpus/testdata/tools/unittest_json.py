"""Runs unittest as `python3 -m unittest ARGS...` would, and writes its
TestResult as JSON to the file named by $CORPUS_UNITTEST_JSON (the labels of
the runner corpus; internal/corpus/testdata/labels.py reads it). The
tests' own output goes where it would; unittest's report is dropped.

    python3 unittest_json.py [ARGS...]
"""

import io
import json
import os
import sys
import unittest


def main():
    sys.path.insert(0, os.getcwd())
    prog = unittest.main(module=None, argv=["python -m unittest"] + sys.argv[1:], exit=False,
                         testRunner=unittest.TextTestRunner(stream=io.StringIO(), verbosity=0))
    r = prog.result
    # str(test) is how unittest names a test in its report:
    # "test_add (tests.test_cart.CartTest.test_add)", a subtest with its
    # parameters after it.
    name = lambda t: {"test": t.id().split(" ")[0], "name": str(t)}
    out = {
        "testsRun": r.testsRun,
        "failures": [name(t) for t, _ in r.failures],
        "errors": [name(t) for t, _ in r.errors],
        "skipped": [name(t) for t, _ in r.skipped],
        "expectedFailures": [name(t) for t, _ in r.expectedFailures],
        "unexpectedSuccesses": [name(t) for t in r.unexpectedSuccesses],
    }
    with open(os.environ["CORPUS_UNITTEST_JSON"], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
