"""Colour and size decisions for piece candidates, each with a confidence in 0..1.

Colour: nearest table-adjusted prototype (calibration ``ColorModel``), after removing one
brightness offset shared by all pieces of the photo (what the light did to all of them),
estimated by alternating assignment and median residual. (On a plain table the candidates'
colours are then read whole by ``PieceColorModel``, see :mod:`vision.cells`; the offset
stays this one.) No colour may hold more pieces than
a full set has (9), the game's own constraint; once sizes are known, no kind (colour and
size) more than 3 where another colour reads nearly as well.
Size: how a piece's measurement (its area, or how its pixels overlap each size's projected
outline, see :mod:`vision.cells`) fits each pyramid size, read with the rules as priors.
"""
from __future__ import annotations

import numpy as np

from calibration import ColorModel

MAX_PER_COLOR = 9
_MIN_SHADED = 8  # pieces needed to tell the table's sheen from its light
MIN_FOR_OFFSET = 5  # pieces needed to measure the shared brightness offset


def classify_colors(features: np.ndarray, chromas: np.ndarray, model: ColorModel, informative_above: float):
    """``features``, ``chromas``: (N, 3) float. Returns colour indices (N,) int64 into
    COLOR_ORDER and the photo's shared offset (3,) (their confidences: :func:`color_costs`,
    :func:`color_confidence`).

    The offset is one brightness shift for all channels (how the light on the pieces
    differs from the light on the table around them), the median of the pieces' residuals
    in the channels their colour passes: where a colour's expected log ratio is at most
    ``informative_above``, the piece absorbs nearly all that light and the channel holds
    noise and the camera's dark floor, not the light."""
    features = np.asarray(features, np.float64)
    if not len(features):
        return np.zeros(0, np.int64), np.zeros(3)
    expected = model.expected(chromas)
    offset = np.zeros(3)
    for _ in range(8):
        dist = model.distance(features[:, None, :] - offset - expected)
        labels = _capacity_limited(dist)
        if len(features) < MIN_FOR_OFFSET:
            break
        chosen = expected[np.arange(len(features)), labels]
        residual = features - chosen
        informative = chosen > informative_above
        new = np.full(3, np.median(residual[informative] if informative.sum() >= 3 else residual))
        if np.allclose(new, offset, atol=1e-3):
            break
        offset = new
    return labels, offset


def shading_slope(features: np.ndarray, chromas: np.ndarray, levels: np.ndarray, model: ColorModel,
                  informative_above: float, min_spread: float, slope_range: tuple[float, float]) -> float:
    """How much of the table's brightness the pieces do not share: the slope (float, about
    -1 to 0) of the pieces' brightness offset (see :func:`classify_colors`) against
    ``levels`` (N,), the log brightness of the table under each piece.

    Where the table is brighter because more light falls on it, the pieces are too (slope
    0: their ratio to the table holds). Where its own sheen makes it brighter (a glossy dark
    table under a lamp), they are not (slope -1). Fitted, robustly, by alternating
    assignment and a line through the residuals, its slope kept within ``slope_range``; 0
    for fewer than ``_MIN_SHADED`` pieces or levels spanning less than ``min_spread`` log
    units. ``features``, ``chromas``: (N, 3) float, as for :func:`classify_colors`."""
    levels = np.asarray(levels, np.float64)
    if len(levels) < _MIN_SHADED or np.ptp(levels) < min_spread:
        return 0.0
    features = np.asarray(features, np.float64)
    expected = model.expected(chromas)
    centred = levels - np.median(levels)
    design = np.stack([np.ones_like(centred), centred], axis=1)
    _, offset = classify_colors(features, chromas, model, informative_above)
    line = np.array([offset[0], 0.0])
    for _ in range(10):
        shift = (design @ line)[:, None, None]
        labels = _capacity_limited(model.distance(features[:, None, :] - shift - expected))
        chosen = expected[np.arange(len(features)), labels]
        informative = chosen > informative_above
        residual = np.array([np.median(r[keep] if keep.any() else r)
                             for r, keep in zip(features - chosen, informative)])
        new = _robust_line(design, residual)
        new[1] = np.clip(new[1], *slope_range)
        if np.allclose(new, line, atol=1e-3):
            break
        line = new
    return float(line[1])


def _robust_line(design: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Huber-weighted least squares of ``values`` (N,) on ``design`` (N, 2): (2,) coefficients."""
    weight = np.ones(len(values))
    for _ in range(5):
        root = np.sqrt(weight)
        coef = np.linalg.lstsq(design * root[:, None], values * root, rcond=None)[0]
        error = np.abs(values - design @ coef)
        scale = max(1.4826 * np.median(error), 0.05)
        weight = np.minimum(1.0, 1.5 * scale / np.maximum(error, 1e-9))
    return coef


def color_costs(features: np.ndarray, chromas: np.ndarray, model: ColorModel, offset: np.ndarray) -> np.ndarray:
    """(N, 5) cost of each colour (COLOR_ORDER) for ``features`` and ``chromas`` ((N, 3)
    float), given the photo's ``offset`` (3,) from :func:`classify_colors`: the negative log
    likelihood ``(distance / spread)^2 / 2`` up to a shared constant."""
    expected = model.expected(chromas)
    dist = model.distance(np.asarray(features, np.float64)[:, None, :] - offset - expected)
    return 0.5 * (dist / max(model.spread, 1e-6)) ** 2


def color_confidence(costs: np.ndarray, labels: np.ndarray, outlier_cost: float | None = None) -> np.ndarray:
    """Confidence (N,) of colours ``labels`` (N,) from their :func:`color_costs` (N, 5) (or
    :meth:`calibration.PieceColorModel.costs`); with ``outlier_cost``, "none of these
    colours" is a sixth choice of that cost, and a candidate far from every colour is not
    sure of any."""
    if outlier_cost is not None:
        costs = np.hstack([costs, np.full((len(costs), 1), outlier_cost)])
    return _chosen_probability(costs, labels)


def within_supply(colors: np.ndarray, sizes: np.ndarray, costs: np.ndarray, per_kind: int,
                  surplus_cost: float) -> np.ndarray:
    """Colours (N,) such that, where it costs less than ``surplus_cost`` a piece, no kind
    (colour and size) holds more pieces than a set has (``per_kind``): the game's own
    constraint. ``colors``, ``sizes``: (N,) ints; ``costs``: (N, 5) :func:`color_costs`.
    Repeatedly, of the pieces of a kind over its supply, the one that is cheapest to read as
    another colour whose kind of its size has room takes that colour."""
    colors = np.array(colors, np.int64)
    sizes = np.asarray(sizes)
    while True:
        count = {}
        for kind in zip(colors.tolist(), sizes.tolist()):
            count[kind] = count.get(kind, 0) + 1
        best = None
        for i, (color, size) in enumerate(zip(colors.tolist(), sizes.tolist())):
            if count[(color, size)] <= per_kind:
                continue
            for other in range(costs.shape[1]):
                if other != color and count.get((other, size), 0) < per_kind:
                    extra = costs[i, other] - costs[i, color]
                    if extra < surplus_cost and (best is None or extra < best[0]):
                        best = (extra, i, other)
        if best is None:
            return colors
        colors[best[1]] = best[2]


def _capacity_limited(dist: np.ndarray, capacity: int = MAX_PER_COLOR) -> np.ndarray:
    """Nearest class per row of ``dist`` (N, K), moving the cheapest extras of any class
    above ``capacity`` to their next class with room."""
    labels = dist.argmin(axis=1)
    order = np.argsort(dist, axis=1)
    for _ in range(len(dist)):
        counts = np.bincount(labels, minlength=dist.shape[1])
        full = np.flatnonzero(counts > capacity)
        if not len(full):
            break
        members = np.flatnonzero(labels == full[0])
        best_move, best_cost = None, np.inf
        for i in members:
            for k in order[i]:
                if counts[k] < capacity:
                    cost = dist[i, k] - dist[i, labels[i]]
                    if cost < best_cost:
                        best_move, best_cost = (i, k), cost
                    break
        if best_move is None:
            break
        labels[best_move[0]] = best_move[1]
    return labels


def likely_sizes(scores: np.ndarray, colors: np.ndarray, cells: np.ndarray, tolerance: float,
                 same_size_cost: float, per_kind: int, surplus_cost: float,
                 least: np.ndarray | None = None, large_pair_cost: float | None = None
                 ) -> tuple[np.ndarray, np.ndarray | float]:
    """Sizes (0..2) of the pieces standing on the table, read together with the game's own
    constraints as soft priors: two same-size pieces side by side cost ``same_size_cost``
    (two large ones ``large_pair_cost`` where given: nothing where the rules in play let them
    touch) and each piece of a colour and size beyond the supply ``per_kind`` costs
    ``surplus_cost``, against each piece's measurement cost ``(mismatch / tolerance)^2 / 2``.
    An ambiguous reading yields to the rules; a clear one does not (real mistakes must still
    be flagged).

    ``scores``: (N, 3) mismatches (log-area, or minus-log outline overlap), or (P, N, 3)
    for P readings of the same pieces (at P scales), solved side by side; ``colors``: (N,)
    colour indices; ``cells``: (N, 2) int (col, row), one piece per cell; ``least``: (N,) int
    or None, the smallest size (0..2) each piece may have (a piece under another is larger
    than it: a hard rule, not a prior). Minimised by iterated conditional modes from the
    independent best sizes, most confident pieces first. Returns the sizes ((N,) or (P, N))
    and the total cost (a float, or (P,)). A piece's measurement cost is capped twice, at
    two broken rules: its best size's cost (an outlier, say a piece with its shadow, costs
    no more than that, so that totals at different scales compare), and each other size's
    cost beyond the best's. So a piece measured far above a large one still reads large:
    capping the costs themselves made every size cost the same and let the rules pick any."""
    scores = np.asarray(scores, np.float64)
    pair_cost = np.full(3, same_size_cost)  # two same-size neighbours' cost, by size
    if large_pair_cost is not None:
        pair_cost[2] = large_pair_cost
    single = scores.ndim == 2
    raw = 0.5 * (scores.reshape(-1, *scores.shape[-2:]) / tolerance) ** 2  # (P, N, 3)
    best = raw.min(axis=2, keepdims=True)
    unary = np.minimum(raw - best, 2 * same_size_cost) + np.minimum(best, 2 * same_size_cost)
    if least is not None:
        unary = np.where(np.arange(3) < np.asarray(least)[:, None], np.inf, unary)
    sizes = unary.argmin(axis=2)
    cells = np.asarray(cells)
    touching = (np.abs(cells[:, None, :] - cells[None, :, :]).sum(axis=2) == 1).astype(np.float64)
    same_colour = (colors[:, None] == colors[None, :]).astype(np.float64)
    margin = np.sort(unary, axis=2)[..., 1] - unary.min(axis=2)

    readings = np.arange(len(unary))
    onehot = np.eye(3)[sizes]
    beside = touching @ onehot  # (P, N, 3) neighbours of each size
    kin = same_colour @ onehot  # (P, N, 3) pieces of one's colour of each size, oneself included
    order = np.argsort(-margin, axis=1)
    # each (reading, piece) row looked up by its flat index: several times numpy's indexing by
    # reading and piece (views, which the updates below change in place)
    unary_rows, onehot_rows, beside_rows, kin_rows = (a.reshape(-1, 3) for a in (unary, onehot, beside, kin))
    for _ in range(10):  # a reading that has settled stays settled in further sweeps
        changed = False
        for i in order.T:  # the k-th most confident piece of every reading, (P,)
            at = readings * unary.shape[1] + i
            own = onehot_rows.take(at, axis=0)
            local = unary_rows.take(at, axis=0) + pair_cost * beside_rows.take(at, axis=0) \
                + surplus_cost * (kin_rows.take(at, axis=0) - own >= per_kind)
            best = local.argmin(axis=1)
            if (best != sizes.reshape(-1).take(at)).any():
                delta = np.eye(3)[best] - own  # zero for the readings whose piece keeps its size
                beside += touching[:, i].T[..., None] * delta[:, None, :]
                kin += same_colour[:, i].T[..., None] * delta[:, None, :]
                onehot[readings, i] = np.eye(3)[best]
                sizes[readings, i] = best
                changed = True
        if not changed:
            break
    chosen = sizes[..., None]
    total = (np.take_along_axis(unary + pair_cost * beside, chosen, axis=2)[..., 0]
             + surplus_cost * (np.take_along_axis(kin, chosen, axis=2)[..., 0] - 1 >= per_kind)).sum(axis=1)
    return (sizes[0], float(total[0])) if single else (sizes, total)


def _chosen_probability(costs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Probability (N,) of each chosen label when each label's likelihood is ``exp(-cost)``:
    ``costs`` (N, K) negative log likelihoods, ``labels`` (N,) chosen columns."""
    prob = np.exp(-(costs - costs.min(axis=1, keepdims=True)))
    return (prob / prob.sum(axis=1, keepdims=True))[np.arange(len(labels)), np.asarray(labels)]


def size_scores(measured_area: np.ndarray, predicted_area: np.ndarray) -> np.ndarray:
    """(N, 3) log-area mismatch of each candidate against each size's predicted area
    ((N, 3), pixels); smaller is better."""
    return np.abs(np.log(np.maximum(measured_area, 1.0))[:, None] - np.log(np.maximum(predicted_area, 1.0)))


def size_confidence(scores: np.ndarray, sizes: np.ndarray, tolerance: float) -> np.ndarray:
    """Confidence of each chosen size (index into 0..2) from its log-area mismatches, under
    Gaussian likelihoods of width ``tolerance``."""
    return _chosen_probability(0.5 * (scores / max(tolerance, 1e-6)) ** 2, sizes)
