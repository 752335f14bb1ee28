"""Third-party packs: the example Lua pack under plugins/, in process and pip-installed
into a fresh virtual environment."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gen09_core.candidates import parse
from gen09_core.entities import list_entities, match_entity
from gen09_core.pipeline import run_batch
from gen09_core.plugins import make_registry

ROOT = Path(__file__).resolve().parent.parent
LUA_DIST = ROOT / "plugins" / "gen09-lua"
FIXTURE = ROOT / "tests" / "fixtures" / "treesitter" / "rect.lua"
ENV_NO_INDEX = "GEN09_TEST_NO_INDEX"  # set to 1 only where pip cannot reach a package index

CANDIDATES = {
    "version": 1,
    "target": {"file": "rect.lua", "entity": "Rect.area"},
    "candidates": [
        {"id": "fix", "search": "return self.w * self.h", "replace": "return self.h * self.w"},
        {"id": "commented", "search": "  return self.w * self.h",
         "replace": "  -- commutes\n  return  self.h * self.w -- same"},
        {"id": "string", "edits": [
            {"file": "rect.lua", "search": "return self.w * self.h", "replace": "return self.h * self.w"},
            {"file": "rect.lua", "search": '"http://shapes--lua"', "replace": '"http://shapes--moon"'}]},
        {"id": "broken", "search": "return self.w * self.h", "replace": "return (self.w * self.h"},
    ],
}


def _lua_pack():
    spec = importlib.util.spec_from_file_location("gen09_lua", LUA_DIST / "gen09_lua" / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.pack


def _check_report(entries):
    assert entries["fix"]["status"] == "valid"
    assert (entries["commented"]["status"], entries["commented"]["duplicate_of"]) == ("duplicate", "fix")
    assert entries["string"]["status"] == "valid"  # "--" inside a string is not a comment
    assert entries["broken"]["reason"] == "parse_error"
    assert "rect.lua: line 13: MISSING" in entries["broken"]["detail"]


def test_lua_pack_in_process(tmp_path):
    registry = make_registry(extra=[("lua", _lua_pack())])
    assert registry.language_of("x/rect.lua") == "lua"
    shutil.copy(FIXTURE, tmp_path / "rect.lua")
    report = run_batch(parse(CANDIDATES), tmp_path, registry=registry, hard_lint=())
    entries = {o.id: {"status": o.status, "duplicate_of": o.duplicate_of,
                      "reason": o.rejection and o.rejection.reason,
                      "detail": o.rejection and o.rejection.detail} for o in report.outcomes}
    _check_report(entries)
    entities = list_entities(registry, "rect.lua", FIXTURE.read_text())
    assert [(e.name, e.kind) for e in entities] == [
        ("Rect.new", "method"), ("Rect.area", "method"), ("describe", "function")]
    assert match_entity(entities, "rect.Rect.area", "rect.lua").span.as_list() == [12, 14]


@pytest.mark.skipif(os.environ.get(ENV_NO_INDEX) == "1", reason=f"{ENV_NO_INDEX}=1: no package index")
def test_pip_install_into_a_fresh_venv(tmp_path):
    """The user's path: ``pip install`` gen09 and the pack into a new, isolated venv; then the
    venv's own ``gen09`` lists the pack and gates Lua files."""
    src = tmp_path / "src"  # a copy, so pip's in-tree build leaves the checkout untouched
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".cache", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", "plugins"))
    lua = tmp_path / "gen09-lua"
    shutil.copytree(LUA_DIST, lua, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)  # no system site-packages
    pip = subprocess.run([venv / "bin" / "pip", "install", "-q", src, lua], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-3000:]

    env = {k: v for k, v in os.environ.items() if k not in ("GEN09_PLUGINS", "VIRTUAL_ENV", "PYTHONPATH")}
    gen09 = str(venv / "bin" / "gen09")
    shown = subprocess.run([gen09, "plugins"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    plugins = {p["name"]: p for p in json.loads(shown.stdout)["plugins"]}
    assert plugins["lua"]["languages"] == ["lua"]
    assert plugins["lua"]["builtin"] is False
    assert {"gen09_parse", "gen09_normalize", "gen09_entities"} <= set(plugins["lua"]["hooks"])
    assert "go" in plugins["treesitter"]["languages"]

    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(FIXTURE, repo / "rect.lua")
    (tmp_path / "candidates.json").write_text(json.dumps(CANDIDATES))
    result = subprocess.run([gen09, "apply", "--json", "--repo", repo, tmp_path / "candidates.json"],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    _check_report({e["id"]: e | {"duplicate_of": e.get("duplicate_of"), "reason": e.get("reason"),
                                 "detail": e.get("detail")} for e in json.loads(result.stdout)["candidates"]})
    assert (repo / "rect.lua").read_bytes() == FIXTURE.read_bytes()
