"""Plain-text score sheets, laid out like the paper sheet at the end of the rule text."""
from __future__ import annotations

from .sheet import ScoreSheet

WIDTH = 44


def format_sheet(sheet: ScoreSheet, show_target: bool = True) -> str:
    city = sheet.city
    head = f"Zoning Out - {city.variant}, {len(city.pieces)} pieces"
    if city.player:
        head = f"{city.player}: {head}"
    lines = [head, "-" * WIDTH]
    for label, value in sheet.rows():
        if label == "Scoring Rules Targets SUM" and not show_target:
            continue
        lines.append(f"{label:<{WIDTH - 6}}{value:>6}")
        if label in ("(Colors - Black) Subtotal", "Scoring Rules Targets SUM"):
            lines.append("-" * WIDTH)
    if show_target:
        verdict = "WON" if sheet.won else "LOST"
        lines.append(f"{verdict}: {sheet.total} against a target of {sheet.target}")
    if sheet.illegal:
        lines.append("Illegal placements:")
        lines += [f"  - {problem.message}" for problem in sheet.illegal]
    return "\n".join(lines)


def format_ranking(ranked: list[dict]) -> str:
    lines = ["Competitive ranking (targets ignored)"]
    lines += [f"{r['rank']:>2}. {r['player']:<24}{r['total']:>6}" for r in ranked]
    for r in ranked:
        lines += ["", format_sheet(r["sheet"], show_target=False)]
    return "\n".join(lines)
