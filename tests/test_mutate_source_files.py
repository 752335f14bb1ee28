"""Which folders of a repository are its source: a folder a build or an install writes
(``build``, ``dist``, ``node_modules``, a venv) is left out only where a build or install
would write it. resolve 1.22.8's test fixtures live under ``test/**/node_modules`` (its suite
failed to start without them) and pip's ``operations/build`` is a package."""

import json
import os
import shutil

from gen09_core.mutate.bundle import check_task_hash
from gen09_core.mutate.config import source_files
from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy, run_gen09


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


def test_links_inside_the_repository_travel_as_links_to_every_bundle(tmp_path):
    """resolve 1.22.8's suite needs its fixtures' links (``test/symlinks/dest/node_modules/mod-a``);
    a link that leads out of the repository is not copied."""
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    data = repo / "tests" / "data"
    (data / "real").mkdir(parents=True)
    (data / "real" / "price.txt").write_text("7\n")
    (data / "alias").symlink_to("real", target_is_directory=True)
    (data / "price-link.txt").symlink_to("real/price.txt")
    (data / "absolute").symlink_to(tmp_path)  # out of the repository: not copied
    (data / "escape.txt").symlink_to("../../../outside.txt")
    (repo / "tests" / "check_links.py").write_text(
        "from pathlib import Path\n\nDATA = Path(__file__).parent / 'data'\n\n\n"
        "def test_the_links_are_there():\n"
        "    assert (DATA / 'alias').is_symlink() and (DATA / 'alias' / 'price.txt').read_text() == '7\\n'\n"
        "    assert (DATA / 'price-link.txt').is_symlink() and (DATA / 'price-link.txt').read_text() == '7\\n'\n")
    files = source_files(repo)
    assert {"tests/data/alias", "tests/data/price-link.txt"} <= set(files)
    assert not {"tests/data/absolute", "tests/data/escape.txt"} & set(files)
    out, done = mutate_fixture_copy(tmp_path, repo, max_mutants=6)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    baseline = json.loads((out / "baseline.json").read_text())
    assert any("test_the_links_are_there" in t for t in baseline["stable"]) and summary["exported"] > 0
    for bundle in (out / "tasks").iterdir():
        snapshot = bundle / "environment" / "repo" / "tests" / "data"
        assert os.readlink(snapshot / "alias") == "real" and os.readlink(snapshot / "price-link.txt") == "real/price.txt"
        assert not (snapshot / "absolute").exists() and not (snapshot / "escape.txt").is_symlink()
    verified = run_gen09("verify", out, "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads(verified.stdout)
    assert report["ok"] == report["total"] == summary["exported"]
    # a link's target is part of the bundle's hash: pointing it elsewhere is caught
    bundle = next((out / "tasks").iterdir())
    link = bundle / "environment" / "repo" / "tests" / "data" / "price-link.txt"
    link.unlink()
    link.symlink_to("real/../real/price.txt")
    assert not check_task_hash(bundle)
