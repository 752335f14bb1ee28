"""Small statistics for reading a 20-task difference honestly."""

from __future__ import annotations

import math
import random


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 0) for no trials."""
    if total == 0:
        return (0.0, 0.0)
    p = successes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def paired_bootstrap(a: list[float], b: list[float], seed: int = 0,
                     iterations: int = 10_000) -> dict:
    """Mean of ``a - b`` over paired tasks with a 95% percentile bootstrap interval and the
    share of resamples where ``a`` does not beat ``b`` (a one-sided p-value)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    if n == 0:
        return {"mean_diff": 0.0, "ci95": [0.0, 0.0], "p_not_better": 1.0, "n": 0}
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(iterations))
    return {
        "mean_diff": sum(diffs) / n,
        "ci95": [means[int(0.025 * iterations)], means[int(0.975 * iterations) - 1]],
        "p_not_better": sum(m <= 0 for m in means) / iterations,
        "n": n,
    }
