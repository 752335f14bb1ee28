"""A task whose image cannot install its buggy tree is not exported: the scripts installing the
repository runs of its own (node's ``prepare`` that compiles) run on each mutant's tree first,
with real npm."""

import json

from gen09_core.mutate.installable import install_command, install_fails
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
