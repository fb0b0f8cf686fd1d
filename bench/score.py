"""Benchmark: score sheets per second for full 45-piece cities with all 18 rules, one core.

Each sheet is computed from the city JSON (parse, legality, base, every rule, breakdown),
so nothing is cached between sheets. Prints the figures and writes bench/results/score.json.
Run: ``python -m bench.score [--cities N] [--seed S]``.
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

from scorer import RULES, parse_city, score
from scorer.city import COLORS, ORTHOGONAL

RESULTS = Path(__file__).parent / "results" / "score.json"


def full_city(rng: random.Random) -> dict:
    """A legal 45-piece city grown by the placement rule (restarts if a piece can't fit)."""
    while True:
        supply = [(c, s) for c in COLORS for s in (1, 2, 3) for _ in range(3)]
        rng.shuffle(supply)
        cells: dict[tuple[int, int], tuple[str, int]] = {(0, 0): supply.pop()}
        for color, size in supply:
            options = sorted({(r + dr, c + dc) for r, c in cells for dr, dc in ORTHOGONAL} - set(cells))
            options = [(r, c) for r, c in options
                       if all(cells.get((r + dr, c + dc), ("", 0))[1] != size for dr, dc in ORTHOGONAL)]
            if not options:
                break
            cells[rng.choice(options)] = (color, size)
        if len(cells) == 45:
            return {"rules": list(RULES), "pieces": [
                {"row": r, "col": c, "color": color, "size": size} for (r, c), (color, size) in cells.items()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cities", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--seconds", type=float, default=5.0, help="minimum timed duration")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cities = [full_city(rng) for _ in range(args.cities)]
    sheets, start = 0, time.perf_counter()
    while True:
        for data in cities:
            score(parse_city(data)).to_json()
        sheets += len(cities)
        elapsed = time.perf_counter() - start
        if elapsed >= args.seconds:
            break
    rate = sheets / elapsed
    result = {"benchmark": "score", "sheets": sheets, "seconds": round(elapsed, 3),
              "sheets_per_second": round(rate, 1), "microseconds_per_sheet": round(1e6 / rate, 1),
              "pieces_per_city": 45, "rules_per_sheet": len(RULES), "distinct_cities": len(cities),
              "seed": args.seed, "python": platform.python_version(), "machine": platform.machine(),
              "target_sheets_per_second": 5000}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{rate:,.0f} score sheets per second ({1e6 / rate:.0f} us each; 45 pieces, 18 rules, "
          f"parse + legality + breakdown + JSON), target 5,000 -> {RESULTS}")


if __name__ == "__main__":
    main()
