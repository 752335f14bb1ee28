"""gen09's coverage of the Python subprocesses a test starts (a CLI run as
``python -m pkg``): code that tests run only there is measured too, for that test.

gen09's pytest plugin puts this folder first on ``PYTHONPATH`` in its coverage runs only, so
every Python a test starts (with the test's environment) imports this module at start-up.
When ``GEN09_COV_TEST`` names the test running and ``GEN09_SUBCOV_DIR`` the folder for the
results, it measures the lines of files under ``GEN09_SUBCOV_ROOT`` (the work copy) and, at
exit, writes ``{"test": node id, "files": {file: [lines]}}`` as ``<pid>.json`` there;
coverage's warnings are silenced and it writes nothing else, so the subprocess's output is its
own. A process that ends without running ``atexit`` (``os._exit``, a signal) leaves nothing.
Then the ``sitecustomize`` this one shadows (a later entry of ``sys.path``) runs, as it would
have. Standard library and coverage.py only.
"""

import contextlib
import os
import sys


def _measure() -> None:
    test, out, root = (os.environ.get(k) for k in ("GEN09_COV_TEST", "GEN09_SUBCOV_DIR", "GEN09_SUBCOV_ROOT"))
    if not (test and out and root):
        return
    import atexit
    import warnings

    try:
        import coverage
    except ImportError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cov = coverage.Coverage(data_file=None, config_file=False, source=[root])
        cov.start()
    prefix = os.path.realpath(root) + os.sep

    def save() -> None:
        with warnings.catch_warnings(), contextlib.suppress(Exception):
            warnings.simplefilter("ignore")
            _write(cov, prefix, os.path.join(out, f"{os.getpid()}.json"), test)

    atexit.register(save)


def _write(cov, prefix: str, path: str, test: str) -> None:
    """Stop ``cov`` and write the lines it measured under ``prefix`` to ``path``."""
    import json

    cov.stop()
    data = cov.get_data()
    files = {}
    for measured in data.measured_files():
        real = os.path.realpath(measured)
        lines = data.lines(measured)
        if real.startswith(prefix) and lines:
            files[real[len(prefix):].replace(os.sep, "/")] = sorted(lines)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump({"test": test, "files": files}, handle)
    os.replace(path + ".tmp", path)


def _run_shadowed() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


with contextlib.suppress(Exception):  # measuring must never change what the subprocess does
    _measure()
_run_shadowed()
