"""A task whose image cannot install its buggy tree is not exported: the scripts installing the
repository runs of its own (node's ``prepare`` that compiles) run on each mutant's tree first,
with real npm."""

import json
import sys

from gen09_core.mutate.installable import install_command, install_fails, setup_build, setup_imports
from gen09_core.testrun.ecosystems.node import LIFECYCLE
from tests.test_langs_e2e import need

CALC = "module.exports = { add: (a, b) => a + b };\n"


def _package(repo, scripts):
    repo.mkdir(exist_ok=True)
    (repo / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0", "scripts": scripts}))
    return repo


def test_the_install_command_runs_the_root_scripts_npm_runs_in_its_order(tmp_path):
    repo = _package(tmp_path / "repo", {"test": "tape", "prepare": "tsc", "postinstall": "node a.js",
                                        "build": "tsc"})
    command = install_command("node", repo)
    assert command.endswith("; npm run --silent postinstall && npm run --silent prepare")
    assert command.startswith("[ -e .git ] ||")  # in a repository, as the install ran (lefthook, husky)
    assert install_command("node", _package(tmp_path / "bare", {"test": "tape"})) is None
    assert install_command("python", repo) is None
    assert LIFECYCLE.index("postinstall") < LIFECYCLE.index("prepare")


def test_a_mutant_whose_build_fails_is_told_and_one_that_builds_is_not(tmp_path):
    need("npm", "node")
    repo = _package(tmp_path / "repo", {"prepare": "node build.js"})
    (repo / "lib").mkdir()
    (repo / "lib" / "calc.js").write_text(CALC)
    # the build loads the code, as a compiler reads it: a mutant it cannot load fails it
    (repo / "build.js").write_text("require('./lib/calc.js');\nrequire('fs').mkdirSync('dist', {recursive: true});\n")
    command = install_command("node", repo)
    scratch = tmp_path / "scratch"
    fine = install_fails(command, repo, "lib/calc.js", CALC.replace("a + b", "a - b"), scratch, {})
    broken = install_fails(command, repo, "lib/calc.js", CALC.replace("a + b", "a +"), scratch, {})
    assert fine is None
    assert broken.startswith("installing the buggy tree fails: npm run --silent prepare exits 1: "), broken
    assert "SyntaxError" in broken, broken
    assert not (repo / "dist").exists() and list(scratch.iterdir()) == []  # nothing left, the pristine tree untouched


SETUP = '''
from setuptools import setup
from setuptools.command.build_py import build_py


class Checked(build_py):
    """Checks the price table before building, as pyhcl's build makes its parser's tables."""

    def run(self):
        from shop.pricing import bulk_price

        assert bulk_price(2, 20) == 36, "the price table is wrong"
        super().run()


setup(name="shop", version="1.0", packages=["shop"], cmdclass={"build_py": Checked})
'''


def test_a_mutant_that_breaks_its_projects_setup_py_build_is_not_exported(tmp_path):
    """pyhcl 0.4.5: its ``setup.py`` builds its parser's tables with its own code, so the image of
    a task whose mutant breaks that code cannot install its buggy tree (3 of its 13 tasks;
    ``gen09 verify`` stopped at the first). A real mutate run of a project whose build runs its pricing code:
    each such mutant is built before it is exported, and one whose build fails is not."""
    import shutil

    from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy

    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "setup.py").write_text(SETUP)
    out, done = mutate_fixture_copy(tmp_path, repo, max_mutants=12)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    failed = {row["mutant"]: row["reason"] for row in summary["failures"]["export_failed"]}
    assert failed, summary  # the build checks bulk_price: its mutants that change its result fail it
    for reason in failed.values():
        assert reason == "installing the buggy tree fails: setup.py build_py exits 1: AssertionError: the price " \
                         "table is wrong", reason
    exported = sorted(p for p in (out / "tasks").iterdir() if p.is_dir())
    assert len(exported) == summary["exported"] > 0
    scratch = tmp_path / "scratch"
    for bundle in exported:  # each exported task's buggy tree builds, as its image installs it
        buggy = bundle / "environment" / "repo"
        assert install_fails(setup_build(sys.executable), buggy, "setup.py", SETUP, scratch, {}) is None, bundle


def test_the_modules_a_setup_py_build_imports_are_read_from_its_pristine_build(tmp_path):
    """Only a mutant of a module the build imports is built (one build of the pristine tree tells
    which); none without a ``setup.py`` or where the pristine build fails here."""
    repo = tmp_path / "repo"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "__init__.py").write_text("")
    (repo / "shop" / "pricing.py").write_text("def bulk_price(unit, quantity):\n    return unit * quantity\n")
    (repo / "shop" / "cart.py").write_text("X = 1\n")
    scratch = tmp_path / "scratch"
    assert setup_imports(sys.executable, repo, scratch, {}) == frozenset()
    (repo / "setup.py").write_text(SETUP.replace("== 36", "== 40"))
    imported = setup_imports(sys.executable, repo, scratch, {})
    assert {"shop", "shop.pricing"} <= imported and "shop.cart" not in imported, sorted(imported)
    (repo / "setup.py").write_text(SETUP)  # 2 × 20 is not 36 here: the pristine build fails
    assert setup_imports(sys.executable, repo, scratch, {}) == frozenset()
    assert list(scratch.iterdir()) == [] and not (repo / "build").exists()
