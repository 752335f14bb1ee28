"""repo_mutate / swe_smith on a real library: yield per modifier, time per valid task, and
the nop/oracle contrast of every exported bundle.

Run from the repository root::

    .venv/bin/python bench/bench_mutate_yield.py            # toolz 1.0.0, 80 mutants, seed 0
    .venv/bin/python bench/bench_mutate_yield.py --n 40 --seed 1

1. Fetches the pinned toolz sdist with ``pip download`` into ``bench/.cache`` (once).
2. Runs the pipeline (coverage-selected validation, the default) into
   ``bench/.cache/runs/bench-yield``.
3. Runs ``gen09 verify``'s check on every bundle: nop must score 0, the oracle 1.
4. Prints markdown tables and writes JSON to ``bench/results/mutate_yield.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time

from common import CACHE, RESULTS, fetch_sdist

from gen09_core.mutate.pipeline import run
from gen09_core.mutate.verify import find_bundles, verify_bundle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    repo = fetch_sdist("toolz", "1.0.0")
    out = CACHE / "runs" / "bench-yield"
    shutil.rmtree(out, ignore_errors=True)
    data = {"source": {"repo": str(repo), "name": "pytoolz/toolz"},
            "limits": {"max_mutants": args.n, "workers": args.workers}, "seeds": {"mutate": args.seed}}
    start = time.perf_counter()
    summary = run(data, out)
    wall = time.perf_counter() - start
    start = time.perf_counter()
    contrasts = [verify_bundle(b) for b in find_bundles([out])]  # each in its shipped, locked environment
    verify_wall = time.perf_counter() - start
    accepted = summary["accepted"]
    rows = []
    for name, s in summary["per_modifier"].items():
        generated = s["generated"]
        rows.append({"modifier": name, "generated": generated, "gated": s["gated"],
                     "uncovered": s["uncovered"], "no_fail_to_pass": s["no_fail_to_pass"],
                     "accepted": s["exported"],
                     "yield_of_gated": round(s["exported"] / s["gated"], 2) if s["gated"] else None})
    report = {
        "library": "toolz==1.0.0", "seed": args.seed, "n": args.n, "workers": args.workers,
        "mutants": summary["mutants"], "accepted": accepted, "exported": summary["exported"],
        "wall_seconds": round(wall, 1),
        "wall_seconds_per_valid_task": round(wall / accepted, 2) if accepted else None,
        "runner_seconds": summary["runner_seconds"],
        "runner_seconds_per_accepted_task": summary["runner_seconds_per_accepted_task"],
        "per_modifier": rows,
        "verify": {"bundles": len(contrasts), "nop_0": sum(c.nop == 0 for c in contrasts),
                   "oracle_1": sum(c.oracle == 1 for c in contrasts),
                   "contrast_ok": sum(c.ok for c in contrasts), "wall_seconds": round(verify_wall, 1),
                   "failures": [c.as_dict() for c in contrasts if not c.ok]},
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mutate_yield.json").write_text(json.dumps(report, indent=2) + "\n")
    print("| modifier | generated | gated | uncovered | no F2P | accepted | accepted/gated |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['modifier']} | {r['generated']} | {r['gated']} | {r['uncovered']} "
              f"| {r['no_fail_to_pass']} | {r['accepted']} | {r['yield_of_gated']} |")
    v = report["verify"]
    print(f"\n{accepted} valid tasks from {summary['mutants']} mutants in {report['wall_seconds']} s wall "
          f"({report['wall_seconds_per_valid_task']} s per valid task; test-runner seconds "
          f"{summary['runner_seconds']})")
    print(f"verify: {v['bundles']} bundles, nop=0 {v['nop_0']}, oracle=1 {v['oracle_1']}, "
          f"contrast ok {v['contrast_ok']} ({v['wall_seconds']} s)")
    return 0 if v["contrast_ok"] == v["bundles"] and accepted >= 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
