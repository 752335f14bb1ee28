"""Environment detection from a repository's own files: project install, test extras and
groups, requirements files, tox deps, import roots, addopts plugins, SCM versions, and a
clear BadInput for a file that cannot be read."""

import sys
import textwrap

import pytest

from gen09_core.errors import BadInput
from gen09_core.testrun.detect import detect


def _repo(tmp_path, files: dict):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_src_layout_test_extra_and_addopts(tmp_path):
    repo = _repo(tmp_path, {
        "pyproject.toml": """
            [build-system]
            requires = ["hatchling", "hatch-vcs"]
            [project]
            name = "pkg"
            dynamic = ["version"]
            [project.optional-dependencies]
            tests = ["hypothesis"]
            docs = ["sphinx"]
            [tool.hatch.version]
            source = "vcs"
            [tool.hatch.build.targets.wheel]
            packages = ["src/pkg"]
            [tool.pytest.ini_options]
            addopts = "--cov pkg -n auto --reruns 2 --benchmark-disable -p no:legacypath --strict-markers"
            required_plugins = ["pytest-benchmark"]
            """,
        "src/pkg/__init__.py": "",
        "PKG-INFO": "Metadata-Version: 2.1\nName: pkg\nVersion: 1.2.3\n",
    })
    recipe = detect(repo)
    assert recipe.project == "pkg" and recipe.installable
    assert recipe.extras == ("tests",)
    assert recipe.pythonpath == ("src", ".")
    assert recipe.dropped_options == ("--cov", "pkg", "-n", "auto", "--reruns", "2")
    assert recipe.addopts == "--benchmark-disable -p no:legacypath --strict-markers"
    assert recipe.plugin_packages == ("pytest-benchmark",)
    assert recipe.env == {"SETUPTOOLS_SCM_PRETEND_VERSION": "1.2.3"}
    where = dict((what, source) for what, source in recipe.provenance)
    assert where["extra [tests]"] == "pyproject.toml [project.optional-dependencies] tests"
    assert where["import from src, ."] == "pyproject.toml [tool.hatch.build.targets.wheel] packages"


def test_dependency_groups_requirements_files_and_tox(tmp_path):
    repo = _repo(tmp_path, {
        "pyproject.toml": """
            [project]
            name = "flat"
            version = "1"
            [dependency-groups]
            base = ["attrs>=23"]
            test = ["pytest>=8", {include-group = "base"}]
            dev = ["black"]
            """,
        "flat.py": "",
        "requirements-test.txt": "-r requirements/extra.txt\n-e .[speed]\nfreezegun==1.5.0  # pinned\n",
        "requirements/extra.txt": "pretend\n",
        "tox.ini": """
            [testenv]
            deps =
                -r{toxinidir}/requirements-test.txt
                py38: oldthing
                {[base]deps}
                mock
            commands = pytest
            """,
    })
    recipe = detect(repo)
    assert recipe.pythonpath == (".",)
    assert recipe.requirements == ("pytest>=8", "attrs>=23", "pretend", "freezegun==1.5.0", "mock")
    assert recipe.extras == ("speed",)
    assert "black" not in recipe.requirements  # dev is only a fallback
    assert any("py38: oldthing" in note for note in recipe.notes)
    assert any("{[base]deps}" in note for note in recipe.notes)


def test_uvs_dev_dependencies_are_the_dev_fallback(tmp_path):
    # python-multipart 0.0.12 lists PyYAML, which its tests import, only in [tool.uv] dev-dependencies
    repo = _repo(tmp_path, {"pyproject.toml": """
            [project]
            name = "multipart"
            version = "1"
            [tool.uv]
            dev-dependencies = ["PyYAML==6.0.1", "pytest-timeout==2.3.1"]
            """, "multipart.py": ""})
    recipe = detect(repo)
    assert recipe.requirements == ("PyYAML==6.0.1", "pytest-timeout==2.3.1")
    assert ("requirements", "pyproject.toml [tool.uv] dev-dependencies") in recipe.provenance


@pytest.mark.parametrize("where", ["setup.py", "setup.cfg"])
def test_setuptools_tests_require_is_the_test_group(tmp_path, where):
    # num2words 0.5.13 names delegator.py only in setup(tests_require=...): tests/test_cli.py did not collect
    files = {"setup.py": "from setuptools import setup\nsetup(name='n2w', tests_require=['delegator.py'])\n"}
    if where == "setup.cfg":
        files = {"setup.py": "from setuptools import setup\nsetup()\n",
                 "setup.cfg": "[metadata]\nname = n2w\n[options]\ntests_require =\n    delegator.py\n"}
    recipe = detect(_repo(tmp_path, {**files, "n2w.py": "", "requirements-dev.txt": "black\n"}))
    assert recipe.requirements == ("delegator.py",)  # and no fallback to the dev requirements
    assert ("requirements", f"{where} {'[options] ' if where == 'setup.cfg' else ''}tests_require") \
        in recipe.provenance


@pytest.mark.parametrize("names_pytest", [True, False])
def test_a_root_requirements_file_naming_pytest_is_the_test_environment(tmp_path, names_pytest):
    # thefuzz 0.22.1: its tests import pycodestyle, named only in a requirements.txt that also pins
    # pytest; without pytest there, the file is what the package needs and the install has that
    lines = "rapidfuzz==3.4.0\npycodestyle==2.11.1\n" + "pytest==7.4.3\n" * names_pytest
    recipe = detect(_repo(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='fuzz')\n",
                                     "fuzz.py": "", "requirements.txt": lines}))
    assert recipe.requirements == (tuple(lines.split()) if names_pytest else ())
    assert (("requirements", "requirements.txt (it names pytest)") in recipe.provenance) == names_pytest


def test_a_root_requirements_file_is_not_read_beside_dev_requirements(tmp_path):
    recipe = detect(_repo(tmp_path, {"fuzz.py": "", "requirements-dev.txt": "black\n",
                                     "requirements.txt": "pytest\npycodestyle\n"}))
    assert recipe.requirements == ("black",)


def test_an_unreadable_root_requirements_file_is_noted_not_fatal(tmp_path):
    recipe = detect(_repo(tmp_path, {"fuzz.py": "", "requirements.txt": "pytest\nnot a requirement!\n"}))
    assert recipe.requirements == ()
    assert any(note.startswith("requirements.txt left out: requirements.txt:2") for note in recipe.notes)


def test_tox_lines_for_this_pythons_environment_are_read(tmp_path):
    # ecdsa 0.19.0: `py{27,...,311,312,py,py3}: hypothesis` was ignored as conditional, hypothesis
    # never installed and 8 of its test files did not collect
    here = f"py{sys.version_info[0]}{sys.version_info[1]}"
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='ec')\n", "ec.py": "",
        "tox.ini": f"""
            [tox]
            envlist = py26, {{{here},py312}}-{{fast,slow}}, lint
            [testenv]
            extras =
                fast: speed
                lint: style
            deps =
                py{{26,27,{here[2:]}}}: hypothesis
                py26: unittest2
                {here}-!slow: pytest-xdist
                {here}-slow: pytest-timeout
                lint,py312: flake8
                coverage
            """,
    })
    recipe = detect(repo)
    assert recipe.requirements == ("hypothesis", "pytest-xdist", "coverage")  # environment {here}-fast
    assert recipe.extras == ("speed",)
    assert any("unittest2" in note and f"{here}-fast" in note for note in recipe.notes)
    assert dict(recipe.provenance)["tox deps"] == f"tox.ini [testenv] deps (environment {here}-fast)"


def test_tox_environment_substitutions_take_their_default(tmp_path):
    # natsort 8.4.0: `extras = {env:WITH_EXTRAS:}` was installed as the extra "{env:WITH_EXTRAS:}"
    # and pip failed; a substitution's default is used, never the caller's environment
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='nat')\n", "nat.py": "",
        "tox.ini": """
            [testenv]
            extras =
                {env:WITH_EXTRAS:}
                {env:MORE:fast}
                {posargs}
            deps =
                {env:PYTEST_REQ:pytest>=7}
                {env:NO_DEFAULT}
                hypothesis
            """,
    })
    recipe = detect(repo)
    assert recipe.extras == ("fast",)
    assert recipe.requirements == ("pytest>=7", "hypothesis")
    assert any("{posargs}" in note for note in recipe.notes)
    assert any("{env:NO_DEFAULT}" in note for note in recipe.notes)


def test_requirements_file_in_the_test_folder(tmp_path):
    # packaging 24.1 lists `pretend` only in tests/requirements.txt: without it 5 of its 11 test
    # files did not collect; a `-e ..` there is the project itself, seen from the file's folder
    repo = _repo(tmp_path, {
        "pyproject.toml": '[project]\nname = "pk"\nversion = "1"\n[project.optional-dependencies]\nfast = []\n',
        "pk.py": "",
        "tests/requirements.txt": "coverage[toml]>=5.0.0\npretend\n-e ..[fast]\n",
        "docs/requirements.txt": "sphinx\n",
    })
    recipe = detect(repo)
    assert recipe.requirements == ("coverage[toml]>=5.0.0", "pretend")
    assert recipe.extras == ("fast",)
    assert dict(recipe.provenance)["requirements"] == "tests/requirements.txt"


def test_a_compiled_requirements_file_with_hashes_reads_its_pins(tmp_path):
    """desert 2022.9.22's test-requirements.txt is pip-compile's, a pin continued on its ``--hash``
    lines with a backslash: gen09 read the lines one by one and stopped with exit 2, "not a valid
    requirement 'ansicolors==1.0.2 \\'". The pins are read whole and the hashes left out (gen09's own
    packages go in the same pip run, which hash-checking mode would refuse)."""
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='ds')\n", "ds.py": "",
        "test-requirements.txt": "#\n# autogenerated by pip-compile\n#\nansicolors==1.0.2 \\\n"
                                 "    --hash=sha256:7664 \\\n    --hash=sha256:8aa0\n    # via cuvner\n"
                                 "attrs==22.1.0 \\\n    --hash=sha256:29ad\npytest==7.2.0 --hash sha256:1234\n",
    })
    assert detect(repo).requirements == ("ansicolors==1.0.2", "attrs==22.1.0", "pytest==7.2.0")


def test_dev_requirements_are_the_fallback(tmp_path):
    repo = _repo(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='old', package_dir={'': 'lib'})\n",
                            "lib/old/__init__.py": "", "dev-requirements.txt": "pytest\nnose2\n"})
    recipe = detect(repo)
    assert recipe.project == "old" and recipe.pythonpath == ("lib", ".")
    assert recipe.requirements == ("pytest", "nose2")


def test_setup_cfg_extras_and_package_dir(tmp_path):
    repo = _repo(tmp_path, {"setup.cfg": """
        [metadata]
        name = cfgpkg
        [options]
        package_dir =
            =src
        [options.extras_require]
        testing =
            pytest
            pytest-mock
        """, "src/cfgpkg/__init__.py": ""})
    recipe = detect(repo)
    assert recipe.project == "cfgpkg" and recipe.extras == ("testing",) and recipe.pythonpath == ("src", ".")


def test_the_one_folder_holding_the_listed_packages_is_imported_from(tmp_path):
    # httplib2 0.22.0: package_dir={"": "python%s" % sys.version_info[0]} is no literal, and its
    # python2/ and python3/ folders each hold httplib2; the root holds none
    setup = ("import sys\nfrom setuptools import setup\npkgdir = {'': 'python%s' % sys.version_info[0]}\n"
             "setup(name='h', package_dir=pkgdir, packages=['h'])\n")
    files = {"setup.py": setup, "python2/h/__init__.py": "", "python3/h/__init__.py": "", "tests/test_h.py": ""}
    recipe = detect(_repo(tmp_path / "a", files))
    assert recipe.pythonpath == ("python3", ".")
    assert "import from python3, . (setup.py packages: python3/ holds them)" in recipe.summary()
    assert detect(_repo(tmp_path / "b", {**files, "h/__init__.py": ""})).pythonpath == (".",)
    assert detect(_repo(tmp_path / "c", {**files, "lib3/h/__init__.py": ""})).pythonpath == (".",)  # two


def test_a_repository_that_is_not_a_distribution(tmp_path):
    repo = _repo(tmp_path, {"mod.py": "", "tests/test_mod.py": ""})
    recipe = detect(repo)
    assert not recipe.installable and recipe.pythonpath == (".",) and recipe.requirements == ()


def test_unparseable_files_name_the_file_and_line(tmp_path):
    bad = _repo(tmp_path / "a", {"pyproject.toml": "[project]\nname = \n"})
    with pytest.raises(BadInput, match=r"pyproject.toml: not valid TOML: .*line 2"):
        detect(bad)
    reqs = _repo(tmp_path / "b", {"requirements-test.txt": "pytest\nfoo>>1\n"})
    with pytest.raises(BadInput, match=r"requirements-test.txt:2: not a valid requirement 'foo>>1'"):
        detect(reqs)
    group = _repo(tmp_path / "c", {"pyproject.toml": "[dependency-groups]\ntest = ['ok', '=bad']\n"})
    with pytest.raises(BadInput, match=r"\[dependency-groups\] test: not a valid requirement '=bad'"):
        detect(group)


def test_requirement_files_for_other_python_versions_are_skipped(tmp_path):
    # wcwidth 0.2.13 ships pinned requirements-tests36/37/39.txt: installed together they conflict
    repo = _repo(tmp_path / "a", {
        "setup.py": "from setuptools import setup\nsetup(name='w')\n",
        "requirements-tests27.txt": "attrs==20.0.0\n",
        "requirements-tests36.txt": "attrs==22.2.0\n",
        "requirements-tests39.txt": "attrs==23.1.0\n",
        "requirements-tests.txt": "freezegun\n",
    })
    recipe = detect(repo)
    assert recipe.requirements == ("freezegun", "attrs==23.1.0")  # 3.9's: the newest not above this Python
    assert recipe.summary().count("requirements (") == 2  # each file once, though two patterns match it
    assert recipe.notes == ("requirement files for other Python versions skipped: "
                            "requirements-tests27.txt, requirements-tests36.txt",)
    newer = _repo(tmp_path / "b", {  # only versions above this Python: the oldest of them
        "setup.py": "from setuptools import setup\nsetup(name='w')\n",
        "requirements-test-py398.txt": "attrs==24.0.0\n",
        "requirements-test-py399.txt": "attrs==25.0.0\n",
    })
    assert detect(newer).requirements == ("attrs==24.0.0",)


def test_a_root_tests_module_is_named_when_pytest_would_find_no_test_file(tmp_path):
    # jsonpointer 3.0.0's sdist keeps its unittest tests in tests.py, which pytest does not find itself
    files = {"setup.py": "from setuptools import setup\nsetup(name='jp')\n", "jp.py": "X = 1\n",
             "tests.py": "import unittest\n"}
    recipe = detect(_repo(tmp_path / "a", files))
    assert recipe.test_paths == ("tests.py",) and "run the tests in tests.py" in recipe.summary()
    assert detect(_repo(tmp_path / "b", {**files, "sub/test_more.py": ""})).test_paths == ()
    assert detect(_repo(tmp_path / "c", {**files, "pytest.ini": "[pytest]\npython_files = *.py\n"})).test_paths == ()


def test_nested_test_modules_are_named_too(tmp_path):
    # decorator 5.1.1's sdist: its unittest tests in src/tests/test.py (a package with the doctest
    # module they import relatively), none that pytest finds itself
    recipe = detect(_repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='d', package_dir={'': 'src'})\n",
        "src/d.py": "", "src/tests/__init__.py": "", "src/tests/test.py": "import unittest\n",
        "src/tests/documentation.py": "", "app/tests.py": "", ".tox/py/tests.py": "",
    }))
    assert recipe.test_paths == ("app/tests.py", "src/tests/test.py")
    assert "run the tests in app/tests.py, src/tests/test.py" in recipe.summary()



def test_a_tests_script_holding_test_cases_is_named_when_pytest_would_find_no_test_file(tmp_path):
    # feedparser 6.0.14's sdist: its only tests are the TestCase classes of tests/runtests.py, a
    # script its tox.ini runs; a runtests.py that only calls another runner is no test module
    files = {"setup.py": "from setuptools import setup\nsetup(name='fp')\n", "fp.py": "X = 1\n",
             "tests/runtests.py": "import unittest\nclass BaseTestCase(unittest.TestCase):\n    pass\n",
             "runtests.py": "import sys\nsys.exit(0)\n", "docs/alltests.py": "class A(object):\n    pass\n"}
    recipe = detect(_repo(tmp_path / "a", files))
    assert recipe.test_paths == ("tests/runtests.py",)
    assert detect(_repo(tmp_path / "b", {**files, "tests/test_x.py": ""})).test_paths == ()


def test_unittest_named_modules_are_named_when_pytest_would_find_no_test_file(tmp_path):
    # ply 3.11's test/testlex.py and parsedatetime 2.6's tests/TestDelta.py: unittest's names, which
    # pytest's default pattern misses (parsedatetime's run said "use a source that ships its tests")
    recipe = detect(_repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='p', test_suite='tests')\n", "p.py": "",
        "test/testlex.py": "import unittest\n", "tests/TestDelta.py": "import unittest\n",
        "tests/__init__.py": "", "tests/utils.py": ""}))
    assert recipe.test_paths == ("test/testlex.py", "tests/TestDelta.py")


def test_a_conftest_with_a_hook_argument_pytest_9_removed_pins_pytest(tmp_path):
    # wrapt 1.16.0: `def pytest_pycollect_makemodule(path, parent)` in tests/conftest.py; pytest 9
    # refuses to register the conftest, so every test of the suite failed to collect
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='w')\n", "w.py": "",
        "tests/conftest.py": "def pytest_pycollect_makemodule(path, parent):\n    return None\n",
        ".venv/lib/site-packages/x/conftest.py": "def pytest_collect_file(path, parent):\n    pass\n",
    })
    recipe = detect(repo)
    assert recipe.requirements == ("pytest<9",)
    assert ("pytest<9", "tests/conftest.py: pytest_pycollect_makemodule(path), an argument pytest 9 removed") \
        in recipe.provenance


def test_a_conftest_with_todays_hook_arguments_pins_nothing(tmp_path):
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='w')\n", "w.py": "",
        "tests/conftest.py": "def pytest_collect_file(file_path, parent):\n    return None\n"
                             "def pytest_report_header(config, start_path):\n    return 'x'\n",
        "other/conftest.py": "def helper(path):\n    pass\n",
        ".venv/lib/site-packages/x/conftest.py": "def pytest_collect_file(path, parent):\n    pass\n",
    })
    assert detect(repo).requirements == ()


def test_an_ini_key_only_a_plugin_reads_installs_that_plugin(tmp_path):
    # async-timeout 4.0.3: asyncio_mode in setup.cfg, no test requirement anywhere
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='async-timeout')\n",
        "setup.cfg": """
            [tool:pytest]
            addopts = --cov=async_timeout --timeout=10
            asyncio_mode = strict
            timeout_method = thread
            """,
    })
    recipe = detect(repo)
    assert recipe.plugin_packages == ("pytest-asyncio", "pytest-timeout")
    assert ("install pytest-asyncio, pytest-timeout for its pytest options", "setup.cfg [tool:pytest]") \
        in recipe.provenance


def test_poetry_dependency_groups_become_requirement_lines(tmp_path):
    # iso8601 2.1.0 lists hypothesis and pytz only in [tool.poetry.group.dev.dependencies]:
    # without them its one test file did not collect and the run had no stable test
    repo = _repo(tmp_path, {
        "pyproject.toml": """
            [build-system]
            requires = ["poetry-core>=1.0.0"]
            build-backend = "poetry.core.masonry.api"
            [tool.poetry]
            name = "poet"
            version = "1"
            [tool.poetry.dependencies]
            python = ">=3.8"
            [tool.poetry.extras]
            speed = []
            [tool.poetry.group.test.dependencies]
            python = ">=3.8"
            hypothesis = "^6.1"
            pytz = "~2023.3"
            pytest = "*"
            attrs = {version = "^0.2", extras = ["tests"], python = ">=3.9"}
            sibling = {path = "../sibling", develop = true}
            odd = ">=1,<2 || >=3"
            [tool.poetry.dev-dependencies]
            black = "24.1.0"
            """,
        "poet/__init__.py": "",
    })
    recipe = detect(repo)
    assert recipe.requirements == ("hypothesis (>=6.1,<7.0)", "pytz (>=2023.3,<2023.4)", "pytest",
                                   'attrs[tests] (>=0.2,<0.3) ; python_version >= "3.9"', "odd")
    where = dict((what, source) for what, source in recipe.provenance)
    assert where["dependency group test"] == "pyproject.toml [tool.poetry.group.test.dependencies]"
    assert any("path dependency, ignored: sibling" in note for note in recipe.notes)
    assert any("odd = '>=1,<2 || >=3' has no PEP 508 form" in note for note in recipe.notes)
    # Poetry's extras are extras; the older dev table is a dev group, read when nothing else is
    old = """
        [build-system]
        requires = ["poetry-core"]
        [tool.poetry]
        name = "old"
        version = "1"
        [tool.poetry.extras]
        tests = ["pytest"]
        [tool.poetry.dev-dependencies]
        black = "24.1.0"
        """
    recipe = detect(_repo(tmp_path / "old", {"pyproject.toml": old, "old.py": ""}))
    assert recipe.extras == ("tests",) and recipe.requirements == ()
    recipe = detect(_repo(tmp_path / "older", {"pyproject.toml": old.replace("tests =", "speed ="), "old.py": ""}))
    assert recipe.extras == () and recipe.requirements == ("black (==24.1.0)",)


def test_a_string_where_pytest_9_wants_a_list_in_its_own_table_pins_pytest_before_9(tmp_path):
    # pyee 12.0.0 has [tool.pytest] addopts = "--verbose -s": pytest 9 reads that table and stops
    # ("expects a list"), the pytest the suite was written for never read it
    table = "[tool.pytest]\naddopts = \"--verbose -s\"\ntestpaths = [\"tests\"]\n"
    recipe = detect(_repo(tmp_path / "a", {"pyproject.toml": table, "a.py": ""}))
    assert recipe.requirements == ("pytest<9",)
    assert dict(recipe.provenance)["pytest<9"].startswith("pyproject.toml [tool.pytest] addopts is a string")
    # lists are what pytest 9 wants; and a pytest.ini is read instead of pyproject.toml
    listed = detect(_repo(tmp_path / "b", {"pyproject.toml": table.replace('"--verbose -s"', '["-s"]'), "b.py": ""}))
    assert listed.requirements == ()
    ini = detect(_repo(tmp_path / "c", {"pyproject.toml": table, "pytest.ini": "[pytest]\n", "c.py": ""}))
    assert ini.requirements == ()


def test_setup_py_arguments_held_in_module_variables(tmp_path):
    # textdistance 4.6.3: `extras = {...}` then `setup(extras_require=extras)`; its test extra
    # (hypothesis) was never installed and no test file collected
    repo = _repo(tmp_path, {
        "setup.py": """
            from setuptools import setup
            NAME = "td"
            extras = {"test": ["hypothesis", "pytest"], "docs": ["sphinx"]}
            extras["all"] = extras["test"] + extras["docs"]
            setup(name=NAME, extras_require=extras, install_requires=[dep for dep in ()])
        """, "td.py": ""})
    recipe = detect(repo)
    assert recipe.project == "td" and recipe.extras == ("test",)
    assert "extra [test] (setup.py extras_require test)" in recipe.summary()


def test_an_editable_project_line_pip_reads_from_the_repository(tmp_path):
    # croniter 3.0.3: requirements/test.txt includes base.txt, whose `-e .` pip (run from the
    # repository) reads as the project itself; passed on, pip got the project twice and stopped
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='cron')\n", "cron.py": "",
        "requirements/base.txt": "python_dateutil\n-e .\n",
        "requirements/test.txt": "-r base.txt\npytz\n",
    })
    recipe = detect(repo)
    assert recipe.requirements == ("python_dateutil", "pytz")
    assert recipe.installable and recipe.extras == ()


def test_a_project_line_with_pip_options_is_the_project(tmp_path):
    # frozenlist 1.4.1: requirements/dev.txt's `-e . --config-settings=pure-python=false` was
    # passed on as a requirement: pip got the project twice (ResolutionImpossible, exit 3)
    repo = _repo(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='fl')\n", "fl.py": "",
        "requirements/dev.txt": "-e .[speed] --config-settings=pure-python=false\n-r ci.txt\n",
        "requirements/ci.txt": "pytest==7.4.3\n",
    })
    recipe = detect(repo)
    assert recipe.requirements == ("pytest==7.4.3",) and recipe.extras == ("speed",)
    # referencing 0.37.0: uv's compiled test-requirements.txt names the project `referencing @ file:.`,
    # which pip refuses ("Invalid requirement"): exit 3 before any test ran
    (repo / "requirements" / "dev.txt").write_text("fl[speed] @ file:..\n-r ci.txt\n")
    assert detect(repo).requirements == ("pytest==7.4.3",) and detect(repo).extras == ("speed",)
    (repo / "requirements" / "dev.txt").write_text("fl @ file:.\n-r ci.txt\nother @ file:./vendor/other\n")
    assert detect(repo).requirements == ("pytest==7.4.3", "other @ file:./vendor/other")


def test_lint_plugins_options_are_dropped_and_their_plugins_never_loaded(tmp_path):
    # dictdiffer 0.9.0's pytest.ini: pytest-pydocstyle 2.4 implements a hook with the py.path argument
    # pytest 9 removed, and pytest refused to start: no stable test, nothing validated
    from gen09_core.testrun.detect import DENIED_PLUGINS

    repo = _repo(tmp_path, {
        "pytest.ini": """
            [pytest]
            addopts = --isort --pydocstyle --pycodestyle --flakes --pep8 --mccabe --doctest-modules
            testpaths = tests
            """,
        "setup.py": "from setuptools import setup\nsetup(name='pkg')\n",
    })
    recipe = detect(repo)
    assert recipe.dropped_options == ("--isort", "--pydocstyle", "--pycodestyle", "--flakes", "--pep8", "--mccabe")
    assert recipe.addopts == "--doctest-modules"
    assert {"pydocstyle", "flakes", "pep8", "mccabe", "pytest_pep257"} <= DENIED_PLUGINS.keys()


def test_an_addopts_that_stops_early_or_needs_the_cache_still_runs_every_test(tmp_path):
    """An ``addopts`` of ``-x`` left a mutant's later tests unrun (the failing ones among them),
    and ``--ff`` / ``--sw`` (pytest's cache plugin, which gen09's runs turn off) stopped pytest
    before any test ("unrecognized arguments"). A real pytest run."""
    import sys

    from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job

    repo = _repo(tmp_path, {
        "pytest.ini": "[pytest]\naddopts = -x --ff --sw --lfnf all -q\n",
        "tests/test_it.py": "def test_a():\n    assert 0\n\n\ndef test_b():\n    assert 0\n\n\ndef test_c():\n    pass\n",
    })
    recipe = detect(repo)
    assert recipe.dropped_options == ("--ff", "--sw", "--lfnf", "all") and recipe.addopts == "-x -q"
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins")), addopts=recipe.addopts)
    run = run_job(env, TestJob("all", str(repo), str(tmp_path / "jobs")))
    assert {t.split("::")[-1]: o for t, o in run.outcomes.items()} == {
        "test_a": "failed", "test_b": "failed", "test_c": "passed"}, run.detail


def test_a_setup_cfg_requirement_list_on_one_line_is_split_at_its_semicolons(tmp_path):
    """stack-data 0.6.3: ``tests_require = pytest; typeguard; pygments; littleutils`` (setuptools'
    semicolon-separated form) was refused as one invalid requirement; a marker after a semicolon
    stays the requirement's."""
    from gen09_core.testrun.detect import _cfg_requirements

    repo = _repo(tmp_path, {"setup.py": "from setuptools import setup\nsetup()\n", "sd.py": "",
                            "setup.cfg": "[metadata]\nname = sd\n[options]\ntests_require = pytest; typeguard; "
                                         "littleutils\n"})
    assert detect(repo).requirements == ("pytest", "typeguard", "littleutils")

    assert _cfg_requirements("mock; python_version < '3.3'") == ["mock; python_version < '3.3'"]
    assert _cfg_requirements("pytest; typeguard; littleutils") == ["pytest", "typeguard", "littleutils"]
    assert _cfg_requirements("\npytest\n# no\ntypeguard") == ["pytest", "typeguard"]


def test_a_repository_without_uvs_table_names_no_uv_requirements(tmp_path):
    # deprecation 2.1.0 (setup.py, no pyproject.toml): its run said "Detected: … requirements
    # (pyproject.toml [tool.uv] dev-dependencies)", a table it does not have
    recipe = detect(_repo(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='d')\n", "d.py": ""}))
    assert "tool.uv" not in recipe.summary() and recipe.requirements == ()


def test_suite_doctests_outside_the_ini_testpaths_are_not_named(tmp_path):
    """A whole-suite run walks only the ini ``testpaths``: a doctest file outside them would never
    be reached, and naming it would make it a path to run in every run."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text('"""\n>>> 1\n1\n"""\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import doctest\nimport pkg.sub as alias\n\n\ndef load_tests(loader, tests, pattern):\n"
        "    return doctest.DocTestSuite(alias), doctest.DocTestSuite('pkg'), doctest.DocTestSuite()\n")
    (tmp_path / "pkg" / "sub.py").write_text("")
    assert detect(tmp_path).pytest_args == tuple(f"--gen09-doctest={path}::tests.test_a" for path in (
        "pkg/__init__.py", "pkg/sub.py", "tests/test_a.py"))
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    assert detect(tmp_path).pytest_args == ("--gen09-doctest=tests/test_a.py::tests.test_a",)


def test_a_namespace_package_is_looked_for_only_when_it_holds_every_test_file(tmp_path):
    """Told to look for namespace packages, pytest would name a test folder without ``__init__.py``
    as one too (``tests.test_a``) and stop putting it on ``sys.path``, so its modules could no
    longer import their neighbours: the option is given only where every test file lies in the
    namespace."""
    repo = _repo(tmp_path, {"src/ns/lib/__init__.py": "", "src/ns/lib/tests/__init__.py": "",
                            "src/ns/lib/tests/test_lib.py": "", "setup.cfg": "[options]\npackage_dir =\n    =src\n"})
    assert detect(repo).pytest_args == ("--override-ini=consider_namespace_packages=true",)
    (repo / "tests").mkdir()
    (repo / "tests" / "conftest.py").write_text("")
    assert detect(repo).pytest_args == ()
    (repo / "tests" / "conftest.py").unlink()
    (repo / "src" / "ns" / "tool.py").write_text("")  # a module of its own: a folder of code, no namespace
    assert detect(repo).pytest_args == ()
