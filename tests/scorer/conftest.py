"""Cities drawn as text maps for the scorer tests.

Each map row is a string of space-separated cells: ``.`` is empty, otherwise a colour letter
(R red, Y yellow, G green, B blue, K black) and a size digit; ``R3/B1`` is a blue small
stacked on a red large.
"""
import pytest

from scorer import City, Piece

LETTERS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "K": "black"}


def city_from_map(*rows: str, rules=(), variant="standard") -> City:
    pieces = []
    for r, row in enumerate(rows):
        for c, token in enumerate(row.split()):
            if token == ".":
                continue
            for level, part in enumerate(token.split("/")):
                pieces.append(Piece(r, c, LETTERS[part[0]], int(part[1]), level))
    return City(pieces, variant, rules)


@pytest.fixture
def city_map():
    return city_from_map
