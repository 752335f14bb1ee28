"""Ecosystem detection (from the repository's own files) and the command profile."""

import json
import shutil
import subprocess

import pytest
from attrs import evolve

from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.mutate import config as cfg
from gen09_core.mutate import environment_command
from gen09_core.mutate.environment_command import choose, command_recipe, run_setup
from gen09_core.mutate.pipeline import mutate_registry, prepare
from gen09_core.mutate.profiles import Profile
from gen09_core.testrun import ecosystems
from gen09_core.testrun.ecosystems import cmake, node
from gen09_core.testrun.ecosystems.toolchain import capture
from tests.helpers import ROOT, run_gen09
from tests.test_langs_e2e import need

LANGS = ROOT / "tests" / "fixtures" / "langs"


def package(tmp_path, data, lock=False):
    (tmp_path / "package.json").write_text(json.dumps(data))
    if lock:
        (tmp_path / "package-lock.json").write_text("{}")
    return node.detect(tmp_path)


@pytest.mark.parametrize(("script", "dev", "fmt", "expected"), [
    ("node --test test/", {}, "junit", 'node --test --test-reporter="$GEN09_RUNNER/gen09_node_junit.mjs" '
                                       '--test-reporter-destination="$GEN09_REPORT" test/'),
    ("jest --coverage --runInBand", {"jest": "^29"}, "jest-json",
     'npx --no-install jest --ci --json --outputFile="$GEN09_REPORT" --runInBand'),
    ("vitest run --reporter verbose", {"vitest": "^3"}, "jest-json",
     'npx --no-install vitest run --reporter="$GEN09_RUNNER/gen09_vitest_diff.mjs" --reporter=json --reporter=dot '
     '--outputFile="$GEN09_REPORT"'),
    ("eslint . && mocha --reporter spec 'test/**/*.js'", {"mocha": "^10"}, "mocha-json",
     "npx --no-install mocha 'test/**/*.js' --reporter json --reporter-option output=\"$GEN09_REPORT\""),
    ("", {"jest": "^29"}, "jest-json", 'npx --no-install jest --ci --json --outputFile="$GEN09_REPORT"'),
    # jest before 20 has no --ci (facebook/prop-types 15.8.1, jest ^19: "Unrecognized option \"ci\"")
    ("npm run tests-only", {"jest": "^19.0.2"}, "jest-json", 'npx --no-install jest --json --outputFile="$GEN09_REPORT"'),
    # the step that runs the whole suite, not the first that names a file; an option's quoted JSON value
    # with escaped quotes is one word (iamkun/dayjs 1.11: only test/timezone.test ran, and the words of
    # the JSON were left behind as arguments)
    ("cross-env TZ=Europe/Paris jest test/timezone.test --coverage=false && "
     'jest --coverage --coverageThreshold="{ \\"global\\": { \\"lines\\": 100} }" --maxWorkers 2',
     {"jest": "^22.4.3"}, "jest-json", 'npx --no-install jest --ci --json --outputFile="$GEN09_REPORT" '
                                       '--maxWorkers 2'),
    # node-tap (npm/node-semver 7.8.5 was refused: "no supported test runner"); its options by major version
    ("tap", {"tap": "^16.0.0"}, "tap", "npx --no-install tap -R tap --no-coverage"),
    ("c8 tap test/*.js", {"tap": "^18.7.0"}, "tap", "npx --no-install tap --reporter=tap --disable-coverage "
                                                     "test/*.js"),
    # the script's own quoting is kept: node 20 globs nothing itself, the shell must (uuid 14)
    ("node --test --enable-source-maps dist-node/test/*.js \"a b.js\"", {}, "junit",
     'node --test --test-reporter="$GEN09_RUNNER/gen09_node_junit.mjs" --test-reporter-destination="$GEN09_REPORT" '
     '--enable-source-maps dist-node/test/*.js "a b.js"'),
    ("", {"tap": "16"}, "tap", "npx --no-install tap -R tap --no-coverage"),
    # a short option's value in the same word (json5 2.2.3, ``tap -Rspec --100 test``: the script's spec
    # reporter came after gen09's TAP one and won, so its 178 passing tests read as 1 failing)
    ("run-s lint tap", {"tap": "^12.6.0"}, "tap", "npx --no-install tap -R tap --no-coverage --100 test"),
    ("mocha -Rdot -Ofoo=bar test/", {"mocha": "^10"}, "mocha-json",
     'npx --no-install mocha test/ --reporter json --reporter-option output="$GEN09_REPORT"'),
    # stopping at the first failure would leave a mutant's other tests unrun (jshttp/proxy-addr 2.0:
    # ``mocha --reporter spec --bail --check-leaks test/``); jest's ``--bail 2`` owns its number
    ("mocha --reporter spec --bail --check-leaks test/", {"mocha": "^10"}, "mocha-json",
     'npx --no-install mocha --check-leaks test/ --reporter json --reporter-option output="$GEN09_REPORT"'),
    ("jest --bail 2 src -b --bail=1 4", {"jest": "^29"}, "jest-json",
     'npx --no-install jest --ci --json --outputFile="$GEN09_REPORT" src 4'),
    # ava (sindresorhus/camelcase 9.0.0 was refused: "no supported test runner"): its TAP on stdout
    ("xo && ava --verbose && tsd", {"ava": "^6.4.1"}, "ava-tap", "npx --no-install ava --tap"),
    ("", {"ava": "^6"}, "ava-tap", "npx --no-install ava --tap"),
    # pnpm's and yarn's ``run`` are followed as npm's (vercel/ms: its --env option was lost)
    ("pnpm run test:nodejs && yarn run test:edge", {"jest": "30.0.5"}, "jest-json",
     'npx --no-install jest --ci --json --outputFile="$GEN09_REPORT" --env node'),
    # pnpm's ``pnpm NAME`` runs the script NAME, else the binary (unjs/defu: ``pnpm test:types`` was read
    # as ``pnpm test`` and vitest ran with the filter ``run:types``, finding no test)
    ("pnpm test:nodejs", {"jest": "30.0.5"}, "jest-json",
     'npx --no-install jest --ci --json --outputFile="$GEN09_REPORT" --env node'),
    ("pnpm test:types && pnpm vitest run", {"vitest": "^4"}, "jest-json",
     'npx --no-install vitest run --reporter="$GEN09_RUNNER/gen09_vitest_diff.mjs" --reporter=json --reporter=dot '
     '--outputFile="$GEN09_REPORT"'),
    # jasmine (NaturalIntelligence/fast-xml-parser 5 was refused: "no supported test runner"): gen09's
    # reporter, c8 and --parallel dropped
    ("c8 --reporter=lcov --reporter=text jasmine spec/*spec.js --parallel=4", {"jasmine": "^5.6.0"}, "mocha-json",
     'npx --no-install jasmine --reporter="$GEN09_RUNNER/gen09_jasmine_json.cjs" spec/*spec.js'),
    ("", {"jasmine": "3.10"}, "mocha-json", 'npx --no-install jasmine --reporter="$GEN09_RUNNER/gen09_jasmine_json.cjs"'),
])
def test_node_runner_from_scripts_or_dependencies(tmp_path, script, dev, fmt, expected):
    recipe = package(tmp_path, {"scripts": {"test": script, "test:nodejs": "jest --env node",
                                            "test:edge": "jest --env edge --no-coverage",
                                            "tests-only": "jest", "tap": "tap -Rspec --100 test",
                                            "lint": "eslint ."}, "devDependencies": dev})
    assert recipe.test == expected and recipe.report_format == fmt
    assert recipe.setup == ("npm install --no-audit --no-fund --package-lock=true",)  # no lockfile: it writes one
    assert recipe.image_setup == ("npm ci --no-audit --no-fund",)  # the shipped snapshot has one


def test_node_builds_before_each_run_when_pretest_compiles(tmp_path):
    """yargs-parser 22: ``pretest`` compiles lib/*.ts into build/, which its tests import; ``prepare``
    built it once at install, so no mutant changed what the tests ran. A pretest that lints is left out."""
    dev = {"mocha": "^11"}
    built = package(tmp_path, {"scripts": {"test": "c8 mocha test/*.mjs", "pretest": "npm run compile",
                                           "compile": "rimraf build && tsc -p tsconfig.test.json"},
                               "devDependencies": dev})
    assert built.test.startswith("npm run --silent pretest >&2 && npx --no-install mocha test/*.mjs")
    linted = package(tmp_path, {"scripts": {"test": "mocha", "pretest": "eslint ."}, "devDependencies": dev})
    assert linted.test.startswith("npx --no-install mocha")
    # isaacs/minimatch 10: its tests import dist/, which ``prepare`` (tshy, tsc's wrapper) builds
    tshy = package(tmp_path, {"scripts": {"test": "tap", "pretest": "npm run prepare", "prepare": "tshy"},
                              "devDependencies": {"tap": "^21"}})
    assert "; npm run --silent pretest >&2 && npx --no-install tap " in tshy.test, tshy.test
    inline = package(tmp_path, {"scripts": {"test": "eslint . && npm run build && mocha", "build": "tsc -p ."},
                                "devDependencies": dev})
    # a step gen09 runs itself finds the packages' programs as ``npm run`` would (sindresorhus/ky: "tsc: command
    # not found")
    assert inline.test.startswith(f"{node.LOCAL_BIN} && tsc -p . >&2 && npx --no-install mocha")
    both = package(tmp_path, {"scripts": {"test": "tsc && mocha", "pretest": "babel src -d lib"},
                              "devDependencies": dev})
    assert both.test.startswith(f"{node.LOCAL_BIN} && npm run --silent pretest >&2 && tsc >&2 && npx --no-install mocha")
    # kpdecker/jsdiff 8: yarn's ``yarn tsc …`` runs the binary tsc, and yarn is not installed here: the
    # pristine runs ended "yarn: command not found"
    jsdiff = package(tmp_path, {"scripts": {
        "test": "nyc yarn _test", "_test": "yarn build && cross-env NODE_ENV=test yarn run-mocha",
        "build": "yarn lint && yarn generate-esm && yarn run-rollup", "lint": "yarn eslint",
        "generate-esm": "yarn tsc --module nodenext --outDir libesm && yarn exec node --eval 1",
        "run-rollup": "rollup -c rollup.config.mjs", "run-mocha": "mocha --require ./runtime 'test/**/*.js'",
        "pack": "yarn pack"}, "devDependencies": dev})
    assert jsdiff.test.startswith(f"{node.LOCAL_BIN} && tsc --module nodenext --outDir libesm >&2 && rollup -c rollup.config.mjs >&2 && npx --no-install mocha "
                                  "--require ./runtime 'test/**/*.js' --reporter json"), jsdiff.test
    assert node.expand_script({"a": "yarn pack && pnpm install x"}, "a") == "yarn pack && pnpm install x"
    # validator.js 13: ``pretest`` is ``npm run build && npm run lint``, ``build`` npm-run-all's ``run-p build:*``
    # (babel and rollup): not followed, so nothing built the ../validator its tests require; the lint is no build
    validator = package(tmp_path, {"scripts": {
        "test": "nyc mocha --require @babel/register", "pretest": "npm run build && npm run lint",
        "build": "run-p build:*", "build:node": "babel src -d .", "build:browser": "node build-browser && npm run min",
        "build:x:y": "tsc", "min": "uglifyjs validator.js", "lint": "eslint src"}, "devDependencies": dev})
    assert validator.test.startswith("npm run build >&2 && npx --no-install mocha --require @babel/register")
    assert node.expand_script(validator_scripts := {"a": "npm-run-all -p b:** --silent c", "b:x:y": "tsc",
                                                    "c": "run-s d", "d": "babel"}, "a") == "tsc && babel"
    assert node.expand_script({**validator_scripts, "a": "run-p nothing:*"}, "a") == "run-p nothing:*"
    # a type check builds nothing: it only made each mutant's run slower, and a mutant that broke a type
    # ended its run before a test (ianstormtaylor/superstruct 2: ``tsc --noEmit`` in ``test:types``)
    superstruct = package(tmp_path, {"scripts": {
        "test": "npm run build && npm run test:types && npm run test:vitest", "build": "rollup --config ./r.js",
        "test:types": "tsc --noEmit && tsc --project ./test/tsconfig.json --noEmit", "test:vitest": "vitest run"},
        "devDependencies": {"vitest": "^3"}})
    assert superstruct.test.startswith(f"{node.LOCAL_BIN} && rollup --config ./r.js >&2 && npx --no-install vitest run")


def test_node_tests_importing_what_the_repository_lacks_get_prepare_before_each_run(tmp_path):
    """A build tool gen09 does not know: a test importing ``dist/`` (which the repository lacks) is
    what tells it ``prepare`` builds what the tests run. node_modules is not read, nor a broken link."""
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.test.js").write_text("const { add } = require('../lib/a.js')\n")
    (tmp_path / "test" / "broken.js").symlink_to(tmp_path / "nowhere.js")
    (tmp_path / "lib").mkdir()
    (tmp_path / "node_modules" / "x" / "test").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "test" / "b.test.js").write_text("require('../../../out/b.js')\n")
    data = {"scripts": {"test": "node --test", "prepare": "my-builder"}}
    assert "prepare" not in package(tmp_path, data).test
    (tmp_path / "test" / "a.test.js").write_text("import { add } from '../dist/esm/a.js'\n")
    built = package(tmp_path, data)
    assert "; npm run --silent prepare >&2 && node --test" in built.test, built.test
    assert built.notes == ("a test imports dist/esm/a.js, which is not in the repository: npm run --silent "
                           "prepare runs before each run to build it",)


def test_node_tests_importing_the_package_itself_get_its_build_before_each_run(tmp_path):
    """developit/mitt: its tests import ``'..'``, the package, whose ``main`` is ``dist/mitt.js``; its
    CI runs ``npm run build --if-present`` before ``npm test``, and there is no ``prepare``. Every
    pristine run ended "TSError: Cannot find module '..'". A package whose entry is in the repository
    gets no build, nor one with no ``build`` script."""
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "index_test.ts").write_text("import mitt, { Emitter } from '..';\n")
    data = {"main": "dist/mitt.js", "exports": {"require": "./dist/mitt.js", "default": "./dist/mitt.mjs"},
            "scripts": {"test": "mocha test", "build": "microbundle -f es,cjs"}, "devDependencies": {"mocha": "^8"}}
    built = package(tmp_path, data)
    assert built.test.startswith("npm run --silent build >&2 && npx --no-install mocha test"), built.test
    assert built.notes == ("a test imports dist/mitt.js, which is not in the repository: npm run --silent "
                           "build runs before each run to build it",)
    assert "build" not in package(tmp_path, {**data, "scripts": {"test": "mocha test"}}).test
    (tmp_path / "dist").mkdir()
    assert "build" not in package(tmp_path, data).test
    (tmp_path / "dist").rmdir()
    (tmp_path / "test" / "index_test.ts").write_text("const mitt = require('../');\n")
    assert "build" in package(tmp_path, {**data, "exports": "./dist/mitt.js"}).test
    (tmp_path / "index.js").write_text("module.exports = {}\n")
    assert "build" not in package(tmp_path, {**data, "main": "index.js", "exports": None}).test


def test_node_build_steps_are_read_through_the_script_files_they_run(tmp_path):
    """uuid 14: ``pretest`` is ``npm run build``, ``build`` is ``./scripts/build.sh``, which runs
    ``tsc``; its tests run from what that builds (``node --test dist-node/test/*.js``)."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "build.sh").write_text("#!/bin/bash\nset -e\ntsc -p tsconfig.json\n")
    (tmp_path / "scripts" / "lint.sh").write_text("#!/bin/bash\neslint .\n")
    (tmp_path / "tsconfig.json").write_text('{"note": "tsc"}')
    built = package(tmp_path, {"scripts": {"test": "node --test dist/test/*.js", "pretest": "npm run build",
                                           "build": "./scripts/build.sh"}})
    assert built.test.startswith("npm run --silent pretest >&2 && node --test")
    inline = package(tmp_path, {"scripts": {"test": "bash scripts/build.sh && node --test dist/"}})
    assert inline.test.startswith(f"{node.LOCAL_BIN} && bash scripts/build.sh >&2 && node --test")
    for pretest in ("./scripts/lint.sh", "prettier --check -c tsconfig.json", "cat ../../etc/x.sh"):
        plain = package(tmp_path, {"scripts": {"test": "node --test", "pretest": pretest}})
        assert plain.test.startswith("node --test"), pretest


@pytest.mark.parametrize("git_here", [False, True])
def test_an_install_with_lifecycle_scripts_runs_in_a_repository_it_removes(tmp_path, git_here):
    """uuid 14: ``prepare`` is ``lefthook install``, which fails outside a git repository, and the
    work copy has none: ``npm ci`` failed at setup. A repository is made for the install and removed
    after it, and its status is kept; one that was there is left alone."""
    if git_here:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    recipe = package(tmp_path, {"scripts": {"test": "node --test", "prepare": "lefthook install"}}, lock=True)
    assert recipe.setup == recipe.image_setup == recipe.replay
    (step,) = recipe.setup
    assert step.endswith("; npm ci --no-audit --no-fund")
    out = tmp_path / "setup-output.txt"
    for status in (0, 3):
        probe = step.replace("npm ci --no-audit --no-fund",
                             f"git rev-parse --is-inside-work-tree && touch .git/x && exit {status}")
        if status:
            with pytest.raises(EnvironmentFailure, match="exit 3"):
                run_setup([probe], tmp_path, {}, out)
        else:
            run_setup([probe], tmp_path, {}, out)
        assert (tmp_path / ".git").is_dir() == git_here
    plain = package(tmp_path, {"scripts": {"test": "node --test", "build": "tsc"}}, lock=True)
    assert plain.setup == ("npm ci --no-audit --no-fund",)
    # a build before each run may run them again (uuid's runs ``npm pack``, which runs ``prepare``)
    built = package(tmp_path, {"scripts": {"test": "node --test", "pretest": "tsc", "prepare": "lefthook install"}})
    assert built.test == step.replace("npm ci --no-audit --no-fund", "npm run --silent pretest >&2 && node --test "
                                      '--test-reporter="$GEN09_RUNNER/gen09_node_junit.mjs" '
                                      '--test-reporter-destination="$GEN09_REPORT"')


def test_node_lockfile_means_npm_ci(tmp_path):
    recipe = package(tmp_path, {"scripts": {"test": "node --test"}}, lock=True)
    assert recipe.setup == ("npm ci --no-audit --no-fund",)
    assert ("npm ci", "package-lock.json") in recipe.provenance


def test_an_install_npm_refuses_for_a_peer_conflict_runs_again_allowing_it(tmp_path):
    """unjs/defu (pnpm) and validator.js (npm, no lockfile): npm refused the install (ERESOLVE),
    where pnpm only warns. It runs again with legacy-peer-deps, and every later step (the tests,
    the lock, hence the bundle's ``npm ci`` and ``gen09 verify``'s replay) keeps the setting."""
    refusing = ('if [ "$npm_config_legacy_peer_deps" = true ]; then echo installed > done.txt; '
                'else echo "npm error code ERESOLVE"; exit 1; fi')
    recipe = node.CommandRecipe(ecosystem="node", language="javascript", test="true", report="tap:-",
                                setup=(refusing,), image="node:20", tools=("bash",), env={"CI": "true"})
    (tmp_path / "work").mkdir()
    (tmp_path / "repo").mkdir()
    env = environment_command.prepare(None, recipe, tmp_path / "work", tmp_path / "repo")
    assert (tmp_path / "repo" / "done.txt").read_text() == "installed\n"
    assert env.lock.env["npm_config_legacy_peer_deps"] == env.test_env.env["npm_config_legacy_peer_deps"] == "true"
    assert "legacy-peer-deps" in env.describe()["notes"][0]
    # any other failure, or one with the setting already, stays a failure
    for setup, extra in (("echo 'npm error code E404'; exit 1", {}), (refusing.replace("true ]", "yes ]"),
                                                                      node.PEER_LENIENT)):
        failing = evolve(recipe, setup=(setup,), env={**recipe.env, **extra})
        with pytest.raises(EnvironmentFailure, match="failed"):
            environment_command.prepare(None, failing, tmp_path / "work2", tmp_path / "repo")
        shutil.rmtree(tmp_path / "work2", ignore_errors=True)


def test_a_failed_setup_names_its_cause_and_npm_installs_download_no_browser(tmp_path):
    """yargs-parser 22 (puppeteer among its devDependencies): ``npm install`` failed downloading Chrome,
    and the message showed only the last lines of a stack trace, not the error above them."""
    out = tmp_path / "setup-output.txt"
    failing = ("echo 'npm error code 1'; echo 'npm error Error: ERROR: Failed to set up chrome v148!'; "
               "for i in $(seq 12); do echo \"npm error     at frame$i (install.js:$i)\"; done; exit 1")
    with pytest.raises(EnvironmentFailure) as caught:
        run_setup([failing], tmp_path, {}, out)
    said = str(caught.value)
    assert "failed (exit 1): npm error Error: ERROR: Failed to set up chrome v148! … " in said
    assert said.endswith(f"(the whole output: {out})") and "frame12" in said and "frame3 " not in said
    # pmndrs/zustand: its package-lock.json is out of date (the project installs with pnpm); the message
    # ended in the help of ``npm ci`` (the lines of the real output)
    with pytest.raises(EnvironmentFailure) as caught:
        run_setup([f"cat {ROOT / 'tests' / 'fixtures' / 'setup' / 'npm-ci-out-of-sync.txt'}; exit 1"], tmp_path, {}, out)
    assert "failed (exit 1): npm error `npm ci` can only install packages when your package.json and " in str(
        caught.value)
    recipe = package(tmp_path, {"scripts": {"test": "mocha"}, "devDependencies": {"mocha": "^10"}})
    run_setup(['test "$PUPPETEER_SKIP_DOWNLOAD$PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD$CYPRESS_INSTALL_BINARY" = 110'],
              tmp_path, recipe.env, out)


def test_node_without_runner_or_json_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="no supported test runner"):
        package(tmp_path, {"scripts": {"test": "echo no tests"}})
    with pytest.raises(BadInput, match=r"no supported test runner .*\(jasmine before 3 has no reporter option\)"):
        package(tmp_path, {"scripts": {"test": "jasmine"}, "devDependencies": {"jasmine": "^2.8.0"}})
    (tmp_path / "package.json").write_text("{oops")
    with pytest.raises(BadInput, match="not valid JSON"):
        node.detect(tmp_path)


def test_detect_cargo_and_cmake_fixtures():
    cargo = ecosystems.detect(LANGS / "rust-calc")
    assert cargo.ecosystem == "cargo" and cargo.report == "libtest:-" and "--no-fail-fast" in cargo.test
    c = ecosystems.detect(LANGS / "c-calc")
    assert c.ecosystem == "cmake" and c.language == "c" and "--output-junit" in c.test


def test_cmake_without_tests_is_not_detected(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text("project(x C)\nadd_library(x x.c)\n")
    assert cmake.detect(tmp_path) is None


def test_default_profile_switches_only_without_python_files(tmp_path):
    data = {"source": {"repo": str(LANGS / "node-calc")}}
    _, _, _, profile, _, recipe = prepare(data, tmp_path / "out")
    assert profile.name == "node" and recipe.ecosystem == "node"
    repo = tmp_path / "both"
    repo.mkdir()
    (repo / "package.json").write_text(json.dumps({"scripts": {"test": "node --test"}}))
    (repo / "pyproject.toml").write_text("[project]\nname = 'both'\nversion = '1'\n")
    config = cfg.structure({"source": {"repo": str(repo)}})
    profile, recipe = choose(Profile("python-pytest"), config, repo)
    assert profile.name == "python-pytest" and recipe is None


def test_named_ecosystem_profile_overrides_fields(tmp_path):
    data = {"source": {"repo": str(LANGS / "rust-calc")}, "profile": "mine",
            "profiles": {"mine": {"base": "cargo", "test": "cargo test --offline --no-fail-fast --lib"}}}
    _, _, _, profile, _, recipe = prepare(data, tmp_path / "out")
    assert recipe.test.endswith("--lib") and ("test", "profiles.mine.test") in recipe.provenance
    data["profiles"]["mine"]["base"] = "node"
    with pytest.raises(BadInput, match="no node project files"):
        prepare(data, tmp_path / "out")


def test_a_node_profile_gives_the_runner_detection_did_not_find(tmp_path):
    """nanoid (``pnpm run /^test:/`` → ``bnt``, a wrapper of node --test): a ``base = "node"``
    profile with its own test and report was refused with the detection's "no supported test runner"."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "package.json").write_text(json.dumps({"scripts": {"test": "bnt"}, "prepare": "x"}))
    (repo / "yarn.lock").write_text("")
    data = {"source": {"repo": str(repo)}, "profile": "mine",
            "profiles": {"mine": {"base": "node", "test": "node --test test/"}}}
    with pytest.raises(BadInput, match='no supported test runner .* base = "node" and its test and report'):
        prepare(data, tmp_path / "out")
    data["profiles"]["mine"]["report"] = "junit:$GEN09_REPORT"
    config = cfg.structure(data)
    profile, recipe = choose(Profile("mine", ecosystem="node", test="node --test test/",
                                     report="junit:$GEN09_REPORT"), config, repo)
    assert (recipe.test, recipe.report) == ("node --test test/", "junit:$GEN09_REPORT")
    assert recipe.setup == ("npm install --no-audit --no-fund --package-lock=true",)
    assert recipe.notes == ("yarn.lock is not read: npm resolves the dependencies itself",)  # detected


@pytest.mark.parametrize(("fields", "message"), [
    ({"test": "make check"}, "needs test"),
    ({"test": "make check", "report": "xunit:out.xml"}, "FORMAT one of"),
    ({"test": "make check", "report": "junit"}, "FORMAT:PATH"),
])
def test_command_profile_needs_test_and_a_known_report(fields, message):
    profile = Profile("c", language="", ecosystem="command").with_spec("c", cfg.ProfileSpec(
        base="command", **fields))
    with pytest.raises(BadInput, match=message):
        command_recipe(profile)


def test_registry_lists_the_ecosystem_profiles():
    assert {"python-pytest", "node", "cargo", "cmake", "command"} <= set(mutate_registry().repo_profiles())


def test_command_profile_end_to_end(tmp_path):
    """A project's own TAP-printing script through ``[profiles.NAME] base = "command"``."""
    import shutil

    if shutil.which("node") is None:
        pytest.skip("toolchain not installed: node")
    repo = tmp_path / "tap-words"
    shutil.copytree(LANGS / "tap-words", repo)
    out = tmp_path / "run"
    done = run_gen09("mutate", repo, "--config", repo / "gen09.toml", "--n", "6", "--out", out)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["environment"]["ecosystem"] == "command" and summary["baseline"]["stable"] == 6
    assert summary["environment"]["image"] == "node:20"
    verified = run_gen09("verify", out, "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads(verified.stdout)
    assert report["ok"] == report["total"] == summary["exported"] >= 1


def test_node_follows_npm_run_to_tape(tmp_path):
    """qs 6.13's layout: ``test`` → ``npm run tests-only`` → ``nyc tape 'test/**/*.js'``."""
    recipe = package(tmp_path, {"scripts": {"test": "npm run tests-only", "tests-only": "nyc tape 'test/**/*.js'"},
                                "devDependencies": {"tape": "^5", "nyc": "^10"}})
    assert recipe.test == "npx --no-install tape 'test/**/*.js'" and recipe.report == "tap:-"
    assert ("tape runner", "package.json scripts.test") in recipe.provenance


def test_toolchain_versions_fill_the_image_and_its_steps():
    from gen09_core.testrun.ecosystems import CommandRecipe
    from gen09_core.testrun.ecosystems.toolchain import capture

    recipe = CommandRecipe("x", "c", test="true", report="tap:-", image="img:{git.major}",
                           image_setup=("echo {git}", "echo ${HOME}"), tools=("git",))
    lock = capture(recipe, ROOT)
    version = dict(lock.tools)["git"]  # git --version: "git version 2.39.5"
    assert version.count(".") >= 1 and lock.image == f"img:{version.split('.')[0]}"
    assert lock.image_setup == (f"echo {version}", "echo ${HOME}")  # a shell variable is not a version


def test_missing_tool_is_an_environment_failure():
    from gen09_core.errors import EnvironmentFailure
    from gen09_core.testrun.ecosystems import CommandRecipe
    from gen09_core.testrun.ecosystems.toolchain import capture

    with pytest.raises(EnvironmentFailure, match="gen09-no-such-tool"):
        capture(CommandRecipe("x", "c", test="true", report="tap:-", tools=("gen09-no-such-tool",)), ROOT)


def test_junit_classes_map_to_their_sources():
    from gen09_core.mutate.bundle_command import class_files

    files = ["src/main/java/calc/Numbers.java", "src/test/java/calc/NumbersTest.java",
             "src/test/kotlin/calc/TextTest.kt", "test/other/NumbersTest.java"]
    assert class_files(["calc.NumbersTest::gcd()", "calc.TextTest$Nested::x()"], files) == {
        "src/test/java/calc/NumbersTest.java", "src/test/kotlin/calc/TextTest.kt"}
    assert class_files(["add_ok", "example.com/x::TestY"], files) == set()  # ctest, go: no class


def test_report_pattern_fills_the_report_path(tmp_path):
    from gen09_core.testrun.ecosystems.jobs import report_pattern

    report, output = tmp_path / "report", tmp_path / "output.txt"
    assert report_pattern("libtest:-", report, output) == ("libtest", str(output))
    assert report_pattern("junit:$GEN09_REPORT.d/*.xml", report, output) == ("junit", f"{report}.d/*.xml")
    assert report_pattern("junit:build/*.xml", report, output) == ("junit", "build/*.xml")


def test_job_copies_link_node_modules_and_leave_build_folders_out(tmp_path):
    from gen09_core.testrun.ecosystems.jobs import copy_work

    source = tmp_path / "src"
    (source / "node_modules" / "pkg").mkdir(parents=True)
    (source / "target").mkdir()
    (source / "target" / "big.o").write_text("x")
    (source / "lib").mkdir()
    (source / "lib" / "a.js").write_text("a")
    copy_work(source, tmp_path / "job", linked=("node_modules",), left_out=("target",))
    assert (tmp_path / "job" / "node_modules").is_symlink()
    assert (tmp_path / "job" / "node_modules" / "pkg").is_dir()
    assert not (tmp_path / "job" / "target").exists() and (tmp_path / "job" / "lib" / "a.js").is_file()


def test_no_stable_tests_names_the_recipe_and_the_fix():
    from gen09_core.mutate.baseline import Baseline

    recipe = ecosystems.detect(LANGS / "rust-calc")
    message = recipe.no_stable_tests(Baseline((), (), ("a",), {}, 0.0, problems=("no libtest report",)),
                                     "cargo")
    assert "1 failing or skipped" in message and "no libtest report" in message
    assert 'base = "cargo"' in message and "cargo test" in message


@pytest.mark.parametrize(("script", "said"), [
    # resolve 1.22.8's tape run died at a test file's top: the error above 30 stack frames
    ('echo "node:fs:1822"; echo; echo "Error: ENOENT: no such file, symlink x"; '
     'for i in $(seq 30); do echo "    at frame$i (t.js:$i:1)"; done; echo "Node.js v20"; exit 1',
     "no tap report: the command exited 1: Error: ENOENT: no such file, symlink x"),
    ('echo one; echo two; exit 3', "no tap report: the command exited 3: one / two"),  # no error line
    # isaacs/minimatch 10: its tshy build failed on a mutant; tsc names the file before the error
    ("echo 'src/ast.ts(307,9): error TS2367: This comparison appears to be unintentional.'; "
     "echo 'set dialect'; echo 'building esm'; echo 'build failed'; exit 1",
     "no tap report: the command exited 1: src/ast.ts(307,9): error TS2367: This comparison appears to be unintentional."),
])
def test_a_run_that_died_before_reporting_names_its_error(tmp_path, script, said):
    from gen09_core.testrun.ecosystems.jobs import CommandEnv, install_runner, run_command_job
    from gen09_core.testrun.jobs import TestJob

    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "run.sh").write_text(script + "\n")
    env = CommandEnv("bash run.sh", "tap:-", str(install_runner(tmp_path / "runner")), "node")
    run = run_command_job(env, TestJob("j", str(tmp_path / "repo"), str(tmp_path / "scratch")))
    assert run.outcomes == {} and run.problem == f"(session): {said}"


def test_a_vitest_run_whose_workers_could_not_start_names_the_cause(tmp_path):
    """pmndrs/zustand on node 20 (jsdom 30 needs node 22): vitest's json report held no test and its output
    nothing, so the baseline said only "no jest-json report". Its dot reporter now prints the error beside the
    report (the real output's head), and the message names it and its cause."""
    from gen09_core.testrun.ecosystems.jobs import CommandEnv, install_runner, run_command_job
    from gen09_core.testrun.jobs import TestJob

    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "run.sh").write_text(
        f"""echo '{{"numTotalTests":0,"success":false,"testResults":[]}}' > "$GEN09_REPORT"\n"""
        f"cat {ROOT / 'tests' / 'fixtures' / 'reports' / 'vitest-unhandled.txt'}; exit 1\n")
    env = CommandEnv("bash run.sh", "jest-json:$GEN09_REPORT", str(install_runner(tmp_path / "runner")), "node")
    run = run_command_job(env, TestJob("j", str(tmp_path / "repo"), str(tmp_path / "scratch")))
    assert run.problem == ("(session): no jest-json report: the command exited 1: Error: [vitest-pool]: Failed to "
                           "start forks worker for test files /tmp/zustand-out/work/pristine/tests/devtools.test.tsx. "
                           "(Caused by: TypeError: Cannot read properties of undefined (reading 'bind'))")
    assert 'vitest run --reporter="$GEN09_RUNNER/gen09_vitest_diff.mjs" --reporter=json --reporter=dot --outputFile=' in package(
        tmp_path, {"scripts": {"test": "vitest"}, "devDependencies": {"vitest": "^4"}}).test


def test_npm_engine_warnings_become_a_note():
    """pmndrs/zustand: npm warned that jsdom 30 and others need node 22 (EBADENGINE), and nothing of it
    reached the user when the tests could not start on node 20."""
    said = "".join(
        f"npm warn EBADENGINE Unsupported engine {{\nnpm warn EBADENGINE   package: '{name}',\n"
        f"npm warn EBADENGINE   required: {{ node: '{wanted}' }},\n"
        "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }\nnpm warn EBADENGINE }\n"
        for name, wanted in (("jsdom@30.1.3", "^22.22.2 || ^24.15.0 || >=26.0.0"), ("undici@8.14.1", ">=22.19.0"),
                             ("a@1.0.0", ">=22"), ("b@2.0.0", ">=22")))
    assert node.engine_warnings(said) == (
        "npm warned that 4 installed package(s) need another node than v20.20.2 (EBADENGINE), among them "
        "jsdom@30.1.3 (^22.22.2 || ^24.15.0 || >=26.0.0), undici@8.14.1 (>=22.19.0), a@1.0.0 (>=22): a test that "
        "loads one may fail for that")
    assert node.engine_warnings("added 3 packages") == ""


def test_verify_installs_in_each_trial_when_the_install_builds_the_package(tmp_path, monkeypatch):
    """koa 3.2.0: ``npm ci`` runs its ``prepare`` (``npm run build``: dist/koa.mjs, which its ESM test
    imports). ``gen09 verify`` installed once per lock and linked only node_modules into each trial, so
    no trial had dist/, and every oracle failed. Such a package now installs in full in each trial,
    from the trial's own code; one without its own install scripts still shares the install."""
    from gen09_core.mutate.verify_command import bundle_toolchain

    need("node", "npm")
    monkeypatch.setenv("GEN09_CACHE_DIR", str(tmp_path / "cache"))
    for name, scripts in (("builds", {"prepare": "node -e \"require('fs').writeFileSync('built.txt', 'x')\""}),
                          ("plain", {})):
        bundle = tmp_path / name
        repo = bundle / "environment" / "repo"
        repo.mkdir(parents=True)
        (repo / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0",
                                                         "scripts": {"test": "node --test", **scripts}}))
        (repo / "package-lock.json").write_text(json.dumps({"name": name, "version": "1.0.0", "lockfileVersion": 3,
                                                           "requires": True, "packages": {"": {"name": name}}}))
        recipe = node.detect(repo)
        if not scripts:  # a dependency-free npm ci may leave no node_modules to link
            recipe = evolve(recipe, replay=(f"{recipe.replay[0]} && mkdir -p node_modules",))
        lock = capture(recipe, repo)
        (bundle / "environment" / "gen09.toolchain.json").write_text(lock.render())
        _, _, setup = bundle_toolchain(bundle)
        app = tmp_path / f"{name}-app"
        shutil.copytree(repo, app)
        setup(app)
        assert (app / "built.txt").is_file() == bool(scripts)
        assert (app / "node_modules").is_symlink() != bool(scripts)  # the shared install, linked


def test_a_build_step_gen09_runs_finds_the_packages_programs(tmp_path):
    """sindresorhus/ky: ``scripts.test`` is ``xo && npm run build && ava`` and ``build`` runs ``tsc``, which is
    only in node_modules/.bin: the pristine runs failed with "tsc: command not found" (exit 127)."""
    recipe = package(tmp_path, {"scripts": {"test": "xo && npm run build && node --test",
                                            "build": "del-cli distribution && tsc --project tsconfig.dist.json"}})
    build = recipe.test.split(" && node --test")[0]
    tool = tmp_path / "node_modules" / ".bin" / "tsc"
    tool.parent.mkdir(parents=True)
    tool.write_text('#!/bin/sh\necho "$@" > built.txt\n')
    tool.chmod(0o755)
    done = subprocess.run(["bash", "-c", build], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "built.txt").read_text() == "--project tsconfig.dist.json\n"


def test_a_package_lock_package_json_moved_past_installs_with_npm_install(tmp_path):
    """pmndrs/zustand: its package-lock.json fell behind its package.json (it installs with pnpm), and
    ``npm ci`` refused it. The install runs again with ``npm install``, which brings the lock up to
    date: the lock the bundles ship. A real npm and registry."""
    from tests.test_langs_node_runners import need_registry

    need_registry()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0", "private": True,
                                                   "dependencies": {"is-number": "7.0.0"}}))
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=repo, check=True,
                   capture_output=True)
    shutil.rmtree(repo / "node_modules")
    (repo / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0", "private": True,
                                                   "scripts": {"test": "node --test"},
                                                   "dependencies": {"is-number": "6.0.0"}}))
    recipe = node.detect(repo)
    assert recipe.setup == (node.CI,)
    env = environment_command.prepare(None, recipe, tmp_path / "work", repo)
    lock = json.loads((repo / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/is-number"]["version"] == "6.0.0"
    assert "out of step with package.json" in env.describe()["notes"][-1]


def test_mocha_runs_with_the_tdd_interface_the_tests_use(tmp_path):
    """mde/ejs runs ``mocha --u tdd`` from its jakefile (``npx jake test``); its ``test/mocha.opts``,
    which mocha 8 and later do not read, says ``--ui tdd``. Run as mocha's default bdd interface,
    every test file stopped at ``ReferenceError: suite is not defined``."""
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "ejs.js").write_text("const ejs = require('..');\n\nsuite('render', function () {\n"
                                              "  test('works', function () {});\n});\n")
    (tmp_path / "test" / "mocha.opts").write_text("--ui tdd\n")
    ejs = {"scripts": {"test": "npx jake test"}, "devDependencies": {"jake": "^10", "mocha": "^10.2.0"}}
    recipe = package(tmp_path, ejs)
    assert recipe.test.startswith("npx --no-install mocha --ui tdd --reporter json"), recipe.test
    assert recipe.notes == ("the tests use mocha's tdd interface (test/ejs.js calls suite(), no test file calls "
                            "describe()) and nothing tells mocha so: run with --ui tdd",)
    # an interface named anywhere mocha reads it, or a bdd test file, leaves the command alone
    for named in ({**ejs, "scripts": {"test": "mocha -u tdd"}}, {**ejs, "mocha": {"ui": "tdd"}}):
        assert "--ui" not in package(tmp_path, named).test
    (tmp_path / ".mocharc.yml").write_text("ui: qunit\n")
    assert "--ui" not in package(tmp_path, ejs).test
    (tmp_path / ".mocharc.yml").unlink()
    (tmp_path / "test" / "more.test.js").write_text("describe('x', () => {});\n")
    assert "--ui" not in package(tmp_path, ejs).test and not package(tmp_path, ejs).notes
