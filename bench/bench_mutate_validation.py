"""How much validation costs per valid task: the whole suite per mutant (SWE-smith's way), a
fresh process with coverage selection, and a warm forking worker with coverage selection —
on real libraries, in one run, with the task sets compared exactly.

Run from the repository root::

    .venv/bin/python bench/bench_mutate_validation.py                  # the default libraries, 30 mutants
    .venv/bin/python bench/bench_mutate_validation.py --only toolz --n 60

For each library (pinned sdist, fetched once with ``pip download``) ``gen09 mutate`` runs three
times with the same seed and limits, so the same mutants are generated:

- ``full``: ``selection = "full"``, ``runner = "fresh"`` — every stable test, a new pytest process
  per mutant;
- ``coverage-fresh``: ``selection = "coverage"``, ``runner = "fresh"`` — the covering tests first,
  on to every stable test only when one fails (the confirmation), a new process per mutant;
- ``coverage-warm``: the same selection on warm workers that collect once and fork per mutant;
- ``inferred-warm``: warm workers with ``confirm = "coverage"`` — every covering test runs and
  no whole-suite confirmation follows: the stable tests that never ran a changed line are
  PASS_TO_PASS without running.

Reported per accepted (valid) task: runner wall seconds and CPU seconds of the mutant phase
(validation + confirmation, plus the warm workers' start-up and own CPU; the shared pristine
baseline and the recheck stage, the same in every mode, are excluded), and the floor: the
summed durations of the test phases each run actually executed (a run killed at the stall
limit counts the phase it killed, up to the kill: a hung test costs that in any runner). The two runners
(``coverage-fresh`` and ``coverage-warm``) must accept the same tasks with the same
FAIL_TO_PASS and PASS_TO_PASS sets; any difference is printed and makes the exit status 1.
For ``inferred-warm`` it also prints where the mutant runs went — jobs and wall seconds per
runner kind (``warm``, ``prefork`` for handed-back jobs, ``fresh``) and the helpers' start-up
and own CPU, and, per test it ran, the tests' own time against the time pytest spent around
them (the runner seconds beyond the floor, the helpers' start-up left out). Each mode's
differences from the whole-suite run are printed too (a selection effect, not a runner's:
for example a test that fails only after a failing test ran before it). Last, the same ratios
with every library pooled, as one run over all their mutants (``pooled`` in the JSON). JSON
goes to ``bench/results/mutate_validation.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from datetime import date

from common import CACHE, RESULTS, cpu_model, fetch_sdist

from gen09_core.mutate.pipeline import run

LIBRARIES = (  # name, version, why it is here
    ("toolz", "1.0.0", "fast tests, fast imports"),
    ("humanize", "4.12.3", "tests import freezegun and dateutil"),
    ("cachetools", "5.5.2", "unittest-style suite"),
    ("inflect", "7.5.0", "imports typeguard and more_itertools: a slow import next to fast tests"),
)
MODES = {"full": ("full", "fresh", "same_run"), "coverage-fresh": ("coverage", "fresh", "same_run"),
         "coverage-warm": ("coverage", "warm", "same_run"), "inferred-warm": ("coverage", "warm", "coverage")}


def _seconds_by_runner(out) -> dict:
    """Wall seconds and job counts of the mutant runs per runner kind (``warm``, ``prefork``,
    ``fresh``), from the run's validation events: where a mode's time went."""
    spent: dict = {}
    for line in (out / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        detail = event.get("detail") or {}
        if event.get("stage") == "validate" and "runner" in detail:
            kind = detail["runner"].split(":", 1)[0]
            jobs, seconds = spent.get(kind, (0, 0.0))
            spent[kind] = (jobs + 1, round(seconds + detail["seconds"], 3))
    return {kind: {"jobs": jobs, "seconds": seconds} for kind, (jobs, seconds) in sorted(spent.items())}


def _tests_selected(out) -> int:
    """How many tests the mutant runs were given (the validation events' ``tests``)."""
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    return sum(e["detail"].get("tests", 0) for e in events
               if e.get("stage") == "validate" and e.get("detail"))


def _tasks(out) -> dict:
    records = [json.loads(x) for x in (out / "instances.jsonl").read_text().splitlines()]
    return {r["instance_id"]: (tuple(r["FAIL_TO_PASS"]), tuple(r["PASS_TO_PASS"])) for r in records}


def one(name: str, version: str, n: int, seed: int, workers: int) -> dict:
    repo = fetch_sdist(name, version)
    row = {"library": f"{name}=={version}"}
    tasks, made = {}, {}
    for mode, (selection, runner, confirm) in MODES.items():
        out = CACHE / "runs" / f"bench-validation-{name}-{mode}"
        shutil.rmtree(out, ignore_errors=True)
        data = {"source": {"repo": str(repo)}, "seeds": {"mutate": seed},
                "limits": {"max_mutants": n, "workers": workers, "runner": runner},
                "recipe": {"swe_smith": {"selection": selection, "confirm": confirm}}}
        print(f"== {name} {mode}", file=sys.stderr)
        start = time.perf_counter()
        summary = run(data, out)
        wall = time.perf_counter() - start
        accepted = summary["accepted"]
        # the mutant phase: the shared baseline and the recheck (the same in every mode) are left out
        secs = sum(v for k, v in summary["runner_seconds"].items() if k not in ("baseline", "recheck"))
        cpu = sum(v for k, v in summary["runner_cpu_seconds"].items()
                  if k not in ("baseline_helpers", "recheck"))
        floor = sum(summary["test_seconds"].values())
        row[mode] = {"mutants": summary["mutants"], "accepted": accepted, "wall_s": round(wall, 1),
                     "runner_s": round(secs, 2), "runner_cpu_s": round(cpu, 2), "test_s": round(floor, 2),
                     "runner_s_per_task": round(secs / accepted, 3) if accepted else None,
                     "runner_cpu_s_per_task": round(cpu / accepted, 3) if accepted else None,
                     "floor_s_per_task": round(floor / accepted, 3) if accepted else None,
                     "runs_by_runner": summary["runs_by_runner"], "warm_workers": summary["warm_workers"],
                     "seconds_by_runner": _seconds_by_runner(out), "tests_selected": _tests_selected(out)}
        tasks[mode] = _tasks(out)
        made[mode] = sorted(p.stem for p in (out / "mutants").glob("*.json"))
    # every mode must have had the same mutants, or its cost per valid task is another run's
    row["same_mutants"] = all(ids == made["full"] for ids in made.values())
    if not row["same_mutants"]:
        print(f"{name}: the modes made different mutants: no ratio is valid", file=sys.stderr)
        return row
    row["identical_runners"] = tasks["coverage-fresh"] == tasks["coverage-warm"]
    row["differences_between_runners"] = _differences(tasks["coverage-fresh"], tasks["coverage-warm"])
    row["differences_from_full"] = {mode: _differences(tasks["full"], tasks[mode])
                                    for mode in MODES if mode != "full"}
    for mode in ("coverage-warm", "inferred-warm"):
        if found := ratios([row], mode):
            row[f"full_over_{mode}"] = found
    return row


def ratios(rows: list[dict], mode: str) -> dict:
    """The whole suite's runner seconds (and CPU seconds) per valid task over ``mode``'s,
    and ``mode``'s over its floor, of one library's row or of several taken together as
    one run over all their mutants (pooled: libraries with many valid tasks weigh more;
    a library's own ratios are the ones a single repository sees). Empty where a mode
    has no valid task or no floor."""
    def total(key: str, of: str) -> float:
        return sum(r[of][key] for r in rows)
    tasks = {of: total("accepted", of) for of in ("full", mode)}
    if not all(tasks.values()) or not total("test_s", mode):
        return {}
    def per_task(key: str, of: str) -> float:
        return total(key, of) / tasks[of]
    return {"wall": round(per_task("runner_s", "full") / per_task("runner_s", mode), 2),
            "cpu": round(per_task("runner_cpu_s", "full") / per_task("runner_cpu_s", mode), 2),
            "over_floor": round(total("runner_s", mode) / total("test_s", mode), 2)}


def _differences(a: dict, b: dict) -> list[dict]:
    """Per task id that the two runs do not share exactly: what each one has."""
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        left, right = a.get(key), b.get(key)
        if left is None or right is None:
            out.append({"task": key, "only_in": "first" if right is None else "second"})
        else:
            sides = {f"{name}_only_{side}": sorted(set(mine) - set(theirs))
                     for name, i in (("fail_to_pass", 0), ("pass_to_pass", 1))
                     for side, mine, theirs in (("first", left[i], right[i]), ("second", right[i], left[i]))}
            out.append({"task": key, **{k: v for k, v in sides.items() if v}})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="mutants per library")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated sdist names")
    args = parser.parse_args()
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    rows = [one(n, v, args.n, args.seed, args.workers) for n, v, _ in LIBRARIES if not wanted or n in wanted]
    valid = [r for r in rows if r["same_mutants"]]  # the others' ratios would compare different mutants
    report = {"date": date.today().isoformat(), "cpu": cpu_model(), "nproc": os.cpu_count(),
              "python": sys.version.split()[0], "n": args.n, "seed": args.seed, "workers": args.workers,
              "libraries": rows,
              "pooled": {mode: ratios(valid, mode) for mode in ("coverage-warm", "inferred-warm")}}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mutate_validation.json").write_text(json.dumps(report, indent=2) + "\n")
    print("| library | mode | mutants | valid tasks | runner s / task | runner CPU s / task "
          "| floor s / task |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        for mode in MODES:
            m = r[mode]
            print(f"| {r['library']} | {mode} | {m['mutants']} | {m['accepted']} | "
                  f"{m['runner_s_per_task']} | {m['runner_cpu_s_per_task']} | {m['floor_s_per_task']} |")
    print()
    for r in valid:
        for mode in ("coverage-warm", "inferred-warm"):
            ratio = r.get(f"full_over_{mode}") or {}
            print(f"{r['library']}: whole suite / {mode} = {ratio.get('wall')}x wall, "
                  f"{ratio.get('cpu')}x CPU per valid task; {mode} / floor = {ratio.get('over_floor')}x; "
                  f"differences from the whole suite: {r['differences_from_full'][mode] or 'none'}")
        spent = r["inferred-warm"]["seconds_by_runner"]
        print(f"{r['library']}: inferred-warm mutant runs by runner (jobs, wall s): "
              + ", ".join(f"{kind} {v['jobs']} / {v['seconds']}" for kind, v in spent.items())
              + f"; helpers {r['inferred-warm']['warm_workers']}")
        warm = r["inferred-warm"]
        if warm["tests_selected"]:  # what pytest spends around each test, against the test itself
            startup = warm["warm_workers"].get("startup_seconds", 0.0)
            around = (warm["runner_s"] - startup - warm["test_s"]) / warm["tests_selected"]
            print(f"{r['library']}: inferred-warm ran {warm['tests_selected']} tests: "
                  f"{1000 * warm['test_s'] / warm['tests_selected']:.2f} ms each in the tests themselves, "
                  f"{1000 * around:.2f} ms each around them (start-up of the helpers left out)")
        print(f"{r['library']}: warm and fresh runners identical: {r['identical_runners']} "
              f"{r['differences_between_runners'] or ''}")
    for mode, ratio in report["pooled"].items():
        if ratio:
            print(f"all libraries pooled: whole suite / {mode} = {ratio['wall']}x wall, {ratio['cpu']}x CPU "
                  f"per valid task; {mode} / floor = {ratio['over_floor']}x")
    print(f"{report['date']}, {report['cpu']}, {report['nproc']} CPUs, Python {report['python']}")
    return 0 if all(r["same_mutants"] and r["identical_runners"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
