"""The A/B report: JSON for machines, a markdown summary and a PNG chart for people."""

from __future__ import annotations

import json
from pathlib import Path

SHOWN = (("resolve", "resolve (selected@1)"), ("pass_at_n", "pass@N"), ("edit_success", "edit-success"))


def write(out: Path, report: dict) -> dict:
    """Write ``report.json``, ``report.md`` and ``chart.png`` into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "markdown": out / "report.md", "chart": out / "chart.png"}
    _atomic(paths["json"], json.dumps(report, indent=2, sort_keys=True) + "\n")
    _atomic(paths["markdown"], markdown(report))
    chart(report, paths["chart"])
    return {k: str(v) for k, v in paths.items()}


def write_self_check(out: Path, report: dict) -> str:
    """Write only the self-check (``self_check.json``) when it stops the run."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "self_check.json"
    _atomic(path, json.dumps(report, indent=2, sort_keys=True) + "\n")
    return str(path)


def self_check_lines(section: dict) -> list[str]:
    """The self-check as a markdown table: one row per sampled task."""
    lines = ["## Self-check (before any arm ran)", "",
             "Every sampled task ran unchanged (nop: must not resolve) and with its reference fix "
             f"(gold: must resolve); {section['failed']} of {len(section['tasks'])} failed and were "
             "excluded.", "",
             "| task | status | nop resolved | gold resolved | reason |", "|---|---|---|---|---|"]
    for row in section["tasks"]:
        nop, gold = row["nop"] or {}, row["gold"] or {}
        lines.append(f"| {row['task']} | {row['status']} | {nop.get('resolved', '')} | "
                     f"{gold.get('resolved', '')} | {row['reason'][:160]} |")
    for record in section.get("skipped_records", []):
        lines.append(f"| {record['id']} | skipped record | | | {record['reason'][:160]} |")
    return lines + [""]


def markdown(report: dict) -> str:
    """The human summary: arms, decision clauses, ablations, probe."""
    lines = [f"# gen09 A/B report — {report['label']}", ""]
    s = report["sample"]
    lines += [f"Sample: {s['k']} of {s['available']} tasks from `{s['source']}` (seed {s['seed']}; "
              f"{s.get('drawn', s['k'])} drawn, self-check failures excluded); N = {report['n']}; generator: "
              f"{report['generator']}; validation timeout {report.get('validation_timeout_sec', '?')} s.", ""]
    if "self_check" in report:
        lines += self_check_lines(report["self_check"])
    lines += ["| arm | resolve (selected@1) | 95% CI | pass@N | edit-success | mean distinct | "
              "tokens | tokens/resolved | cost |", "|---|---|---|---|---|---|---|---|---|"]
    for name, m in report["arms"].items():
        ci = m["resolve_ci95"]
        lines.append(f"| {name} | {_pct(m['resolve'])} ({m['resolved']}/{m['tasks']}) | "
                     f"{_pct(ci[0])}–{_pct(ci[1])} | {_pct(m['pass_at_n'])} | {_pct(m['edit_success'])} | "
                     f"{m['mean_distinct']:.2f} | {_num(m['tokens'])} | {_num(m['tokens_per_resolved'])} | "
                     f"{_num(m['cost'])} |")
    p = report["paired_resolve"]
    lines += ["", f"Paired bootstrap, candidate − baseline resolve: {p['mean_diff']:+.3f} "
              f"(95% CI {p['ci95'][0]:+.3f} to {p['ci95'][1]:+.3f}; P(not better) = {p['p_not_better']:.3f})",
              "", "## Decision", "", "| clause | values | holds |", "|---|---|---|"]
    for c in report["decision"]["clauses"]:
        values = ", ".join(f"{k} = {_num(v)}" for k, v in c["values"].items())
        lines.append(f"| {c['clause']} | {values} | {_holds(c['holds'])} |")
    lines += ["", f"**Verdict: {report['decision']['verdict']}**", "", "## Ablations", "",
              "| mechanism removed | Δ resolve | Δ edit-success | Δ tokens/resolved | kept |",
              "|---|---|---|---|---|"]
    for name, a in report["ablations"].items():
        d = a["delta"]
        lines.append(f"| {a['mechanism']} ({name}) | {_num(d['resolve'])} | {_num(d['edit_success'])} | "
                     f"{_num(d['tokens_per_resolved'])} | {'yes' if a['keep'] else 'no (delete)'} |")
    probe = report["probe"]
    rates = probe["apply_rate"]
    lines += ["", "## Format-robustness probe", "",
              f"Apply rate: search/replace {_pct(rates['search_replace'])}, whole file "
              f"{_pct(rates['whole_file'])}.", "", "| planted | rejected | reasons |", "|---|---|---|"]
    for kind, row in probe["planted"].items():
        lines.append(f"| {kind} | {row['rejected']}/{row['planted']} | "
                     f"{', '.join(f'{k}: {v}' for k, v in row['reasons'].items())} |")
    lines += ["", f"Repositories corrupted: {probe['repositories_corrupted']}.", ""]
    if "formats" in report:
        lines += format_lines(report["formats"], probe.get("formats", {}))
    return "\n".join(lines)


def format_lines(section: dict, probed: dict) -> list[str]:
    """The "Edit formats" table (``gen09 ab --formats``) and each patch format's probe rows."""
    lines = ["## Edit formats", "", "One candidate arm per format, on the identical sample.", "",
             "| format | edit-success | 95% CI | resolve (selected@1) | 95% CI | generated | regenerate |",
             "|---|---|---|---|---|---|---|"]
    for fmt, row in section.items():
        ci = row["edit_success_ci95"] or [None, None]
        rci = row["resolve_ci95"]
        lines.append(f"| {fmt} | {_pct(row['edit_success'])} | {_pct(ci[0])}–{_pct(ci[1])} | "
                     f"{_pct(row['resolve'])} ({row['resolved']}/{row['tasks']}) | "
                     f"{_pct(rci[0])}–{_pct(rci[1])} | {row['generated']} | {row['regenerate']} |")
    for fmt, result in probed.items():
        lines += ["", f"Planted malformed {fmt} candidates (repositories corrupted: "
                      f"{result['repositories_corrupted']}):", "",
                  "| planted | rejected | reasons |", "|---|---|---|"]
        for kind, row in result["planted"].items():
            lines.append(f"| {kind} | {row['rejected']}/{row['planted']} | "
                         f"{', '.join(f'{k}: {v}' for k, v in row['reasons'].items())} |")
    return lines + [""]


def chart(report: dict, path: Path) -> None:
    """Grouped bars: the shown metrics for every arm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = list(report["arms"])
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(arms)), 3.6), dpi=110)
    width = 0.8 / len(SHOWN)
    for i, (key, label) in enumerate(SHOWN):
        values = [report["arms"][a][key] or 0 for a in arms]
        ax.bar([x + i * width for x in range(len(arms))], values, width, label=label)
    ax.set_xticks([x + width * (len(SHOWN) - 1) / 2 for x in range(len(arms))], arms)
    ax.set_ylim(0, 1)
    ax.set_ylabel("rate")
    ax.set_title(f"gen09 A/B — {report['label']}", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(path)


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _pct(value) -> str:
    return "unknown" if value is None else f"{100 * value:.0f}%"


def _num(value) -> str:
    if value is None:
        return "unknown"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _holds(value) -> str:
    return {True: "yes", False: "no", None: "unknown"}[value]
