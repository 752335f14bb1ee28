"""Which folders of a repository are its source: a folder a build or an install writes
(``build``, ``dist``, ``node_modules``, a venv) is left out only where a build or install
would write it. resolve 1.22.8's test fixtures live under ``test/**/node_modules`` (its suite
failed to start without them) and pip's ``operations/build`` is a package."""

from gen09_core.mutate.config import source_files


def _touch(root, *paths):
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")


def test_output_folders_are_left_out_only_where_a_build_writes_them(tmp_path):
    _touch(tmp_path, "package.json", "index.js",
           "node_modules/dep/index.js", "build/out.js", "dist/x.min.js",  # the root's outputs
           "test/fixtures/_/node_modules/foo/index.js",  # a fixture: no manifest beside it
           "src/pkg/__init__.py", "src/pkg/build/__init__.py",  # a package named build
           "packages/web/package.json", "packages/web/node_modules/d/i.js", "packages/web/dist/a.js",
           "tools/env/pyvenv.cfg", "tools/env/lib/site.py",  # a venv, wherever it is
           "src/pkg/__pycache__/m.cpython-311.pyc", "src/pkg/sub/__pycache__/n.pyc")
    assert source_files(tmp_path) == [
        "index.js", "package.json", "packages/web/package.json", "src/pkg/__init__.py",
        "src/pkg/build/__init__.py", "test/fixtures/_/node_modules/foo/index.js"]
