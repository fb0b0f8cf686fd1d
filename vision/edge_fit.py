"""Each piece's outline fitted to the photo's edges: a measure of its size that does not hang
on what was told from the table.

What differs from the table can hold a piece's shadow, or lose a face that matches the table,
and the size read from it then shifts. The outline of a pyramid is where its colour meets the
table's, and shows as an edge whatever the two colours are. A model outline (the convex hull
of the base square and the apex, as the camera sees it) is laid on the photo at the cell, and
its position, turn and size are moved to where the edges across it are strongest; to measure
its side, the ridges inside it count too (where two faces, lit differently, meet: an edge
the table's colour cannot hide). The side it settles at, in grid units, sets the photo's
own scale (millimetres a grid unit): the one that puts the pieces as read at their true
sides. Each size's outline, at its true side at that scale, is then laid on the edges in
turn, and the sizes are told by how strong the edges along each are: so a size is told by
the ratio of the sizes' sides (14.3 : 19.8 : 25.4 mm), not by any fitted threshold, and
where a shadow's or a neighbour's edge nearly matches a second size, that size costs little
more than the best.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profile import BLACK

from .camera import Camera
from .model import BASE_MM, HEIGHT_PER_SIDE, faces_seen, pyramid_corners

_SIDES_MM = np.array([BASE_MM[size] for size in (1, 2, 3)])
# the log of each 8-bit value plus 8: the sensor's noise in the dark is no edge
_LOGS = np.log(np.arange(256, dtype=np.float32) + 8.0)
_CHANNEL_SUM = np.ones((1, 3), np.float32)
_SMOOTHING = 1.0  # Gaussian sigma (pixels) of the structure tensor: an edge a pixel off still counts
_SAMPLES = 6  # points sampled along each side of a model outline
# where they lie along it, (_SAMPLES, 1) float32 shares of its length
_ALONG = ((np.arange(_SAMPLES, dtype=np.float32) + 0.5) / _SAMPLES)[:, None]
_BASE_SAMPLES = 12  # along each side of a base square, part of which another piece may hide
# an inner ridge is sampled between this share of its length from either end: at the base
# corner and at the apex, edges run every way, and a longer ridge would reach further into them
_INNER_RIDGE_TRIM = 0.3
# where :func:`straightness` samples a base side and a ridge, as shares of its length: off
# the corners and the apex, where edges run every way
_STRAIGHT_SAMPLES = 10
_STRAIGHT_BASE = np.linspace(0.1, 0.9, _STRAIGHT_SAMPLES)
_STRAIGHT_RIDGE = np.linspace(_INNER_RIDGE_TRIM, 1 - _INNER_RIDGE_TRIM, _STRAIGHT_SAMPLES)
# the search, in grid units and degrees: first a coarse grid of sides (times a medium's side at
# the reading's scale), shifts and turns, then rounds of a 3 x 3 x 3 x 3 grid round the best,
# each half as fine as the one before. The sides reach a size step beyond the small and the
# large (a step is about 1.3 times): the reading's scale may itself be a size step off, and a
# side cut short there would only confirm it.
_COARSE_SIDES = np.arange(0.6, 1.81, 0.2)
_COARSE_SHIFTS = (-0.05, 0.0, 0.05)
_COARSE_TURNS = (-10.0, 0.0, 10.0)
_FIRST_STEPS = (0.1, 0.025, 5.0)  # side (times a medium's), shift, turn
_ROUNDS = 4
# a pose searched near a known side: from 0.95 to 1.05 times it, then by a fortieth and finer
# (within a tenth of it in all)
_NEAR_SIDES = np.array([0.95, 1.0, 1.05])
_NEAR_SIDE_STEP = 0.025
# each size's outline is searched from its side at the photo's scale by two rounds (its side
# within 4% of that): the scale is known, and a size's strength needs no finer pose
_SIZE_ROUNDS = 2
# half the smaller step between sizes' sides, in log units (medium to large, 1.28 times): a
# side further than this from its size's true side fits another size as well
_HALF_STEP = float(np.log(_SIDES_MM[1:] / _SIDES_MM[:-1]).min() / 2)


@dataclass(frozen=True)
class EdgeTensor:
    """The photo's edges by direction over a window of it: ``tensor`` float32 (h, w, 4), the
    smoothed structure tensor (gx^2, gx*gy, gy^2) of the log colour channels, summed over the
    channels, and a zero (a pixel's four side by side, so that a point's are looked up
    together as one 16-byte item); ``origin`` the window's top-left pixel (x0, y0) in the
    image."""

    tensor: np.ndarray
    origin: tuple[int, int]

    def holds(self, points: np.ndarray) -> np.ndarray:
        """Whether each of the image ``points`` ((..., 2) (x, y)) lies in the window, (...,) bool."""
        h, w = self.tensor.shape[:2]
        x, y = points[..., 0] - self.origin[0], points[..., 1] - self.origin[1]
        return (x >= 0) & (x < w) & (y >= 0) & (y < h)

    def across(self, xs: np.ndarray, ys: np.ndarray, nx: np.ndarray, ny: np.ndarray) -> np.ndarray:
        """The edge strength across the direction (``nx``, ``ny``) (unit (x, y)) at the image
        points (``xs``, ``ys``) (clipped to the window), the four float32 and broadcast
        together: the root of the tensor's energy along each normal."""
        h, w = self.tensor.shape[:2]
        index = _nearest(ys, self.origin[1], h) * w
        index += _nearest(xs, self.origin[0], w)
        looked_up = self.tensor.reshape(-1).view(np.complex128).take(index).view(np.float32)
        xx, xy, yy = (looked_up[..., k::4] for k in range(3))
        energy = xx * (nx * nx)
        energy += xy * (2 * nx * ny)
        energy += yy * (ny * ny)
        return np.sqrt(np.maximum(energy, 0.0, out=energy), out=energy)


def _nearest(pixels: np.ndarray, origin: int, size: int) -> np.ndarray:
    """The index (int32, as ``pixels``) of the window's pixel nearest each image coordinate
    ``pixels`` (float32) along one axis whose window starts at ``origin`` and holds ``size``
    pixels, clipped to it."""
    nearest = (pixels - np.float32(origin - 0.5)).astype(np.int32)
    return np.clip(nearest, 0, size - 1, out=nearest)


def edge_tensor(rgb: np.ndarray, box: tuple[int, int, int, int]) -> EdgeTensor:
    """The :class:`EdgeTensor` of ``rgb`` (uint8 (H, W, 3) RGB) over the window ``box``
    (x0, y0, x1, y1), clipped to the image."""
    h, w = rgb.shape[:2]
    x0, y0 = max(int(box[0]), 0), max(int(box[1]), 0)
    x1, y1 = min(int(box[2]), w), min(int(box[3]), h)
    logs = cv2.LUT(np.ascontiguousarray(rgb[y0:y1, x0:x1]), _LOGS)
    gx = cv2.Sobel(logs, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(logs, cv2.CV_32F, 0, 1, ksize=3)
    summed = [cv2.transform(cv2.multiply(a, b), _CHANNEL_SUM) for a, b in ((gx, gx), (gx, gy), (gy, gy))]
    smoothed = cv2.GaussianBlur(cv2.merge(summed), (0, 0), _SMOOTHING)
    return EdgeTensor(cv2.merge([*cv2.split(smoothed), np.zeros_like(summed[0])]), (x0, y0))


def fit_outlines(edges: EdgeTensor, camera: Camera, cells: np.ndarray, medium_side: float,
                 colours: np.ndarray) -> np.ndarray:
    """(N, 4) pose (as :func:`fit_poses`) of the pyramid whose outline runs along the
    strongest edges at each of ``cells`` ((N, 2) (col, row)), of any size: its base centre
    shifted by up to a tenth of a cell and turned by up to about 20 degrees from the grid.
    For a piece of tinted plastic (``colours``: (N,) indices into COLOR_ORDER), whose faces
    the light makes differ, the ridges inside the outline count too; not for a glossy black
    one, whose faces mirror the room alike. ``medium_side``: a medium piece's side in grid
    units at the reading's scale, round which the sides are searched (0.6 to 1.8 times it,
    and a little beyond)."""
    cells = np.asarray(cells, np.float64).reshape(-1, 2)
    sides = np.broadcast_to(_COARSE_SIDES * medium_side, (len(cells), len(_COARSE_SIDES)))
    return _search(edges, camera, cells, sides, np.full(len(cells), _FIRST_STEPS[0] * medium_side),
                   np.asarray(colours).reshape(-1) != BLACK)[0]


def fit_sides(edges: EdgeTensor, camera: Camera, cells: np.ndarray, medium_side: float,
              colours: np.ndarray) -> np.ndarray:
    """The base side (N,), in grid units, of the outline :func:`fit_outlines` fits at each
    of ``cells`` ((N, 2) (col, row))."""
    return fit_outlines(edges, camera, cells, medium_side, colours)[:, 0]


def fit_poses(edges: EdgeTensor, camera: Camera, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """(N, 4) pose (base side in grid units, shift of the base centre in col and row, turn
    in degrees from the grid) of the pyramid whose outline runs along the strongest edges
    at each of ``cells`` ((N, 2) (col, row)), its side searched near ``sides`` ((N,) grid
    units: within a tenth of it), shifted and turned as in :func:`fit_outlines`."""
    cells = np.asarray(cells, np.float64).reshape(-1, 2)
    sides = np.asarray(sides, np.float64).reshape(-1)
    return _search(edges, camera, cells, sides[:, None] * _NEAR_SIDES, _NEAR_SIDE_STEP * sides)[0]


def posed_outlines(edges: EdgeTensor, camera: Camera, cell, sides: np.ndarray) -> list[np.ndarray]:
    """The outline ((K, 2) image (x, y), convex hull) of the pyramid of each of ``sides``
    ((S,) base sides in grid units) on ``cell`` (col, row), laid along the strongest edges
    (:func:`fit_poses`: shifted, turned and its side within a tenth of the one given)."""
    cells = np.tile(np.asarray(cell, np.float64).reshape(1, 2), (len(sides), 1))
    points = _posed(camera, cells, fit_poses(edges, camera, cells, sides))
    return [_convex_outline(p) for p in points]


def outline_strengths(edges: EdgeTensor, camera: Camera, cells: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """(N,) mean edge strength across the outline of the pyramid at each of ``cells`` ((N, 2)
    (col, row)) at its pose (``poses`` (N, 4), as from :func:`fit_poses`)."""
    return _outline_strength(edges, _posed(camera, cells, poses))


def weakest_sides(edges: EdgeTensor, camera: Camera, cells: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """(N,) mean edge strength across the weakest side of the outline (a base side or a
    ridge on it, see :func:`_outline_strength`) of the pyramid at each of ``cells`` ((N, 2)
    (col, row)) at its pose (``poses`` (N, 4), as from :func:`fit_poses`). A pyramid's
    outline has an edge all round; a line of the table's pattern lies along some sides only."""
    points = _posed(camera, cells, poses)
    template, strength, _ = _segment_strengths(edges, points)
    weakest = np.full(len(points), np.inf)
    np.minimum.at(weakest, template, strength)
    return weakest


def base_strengths(edges: EdgeTensor, camera: Camera, cells: np.ndarray, poses: np.ndarray,
                   hidden: list[np.ndarray]) -> np.ndarray:
    """(N,) how strongly the base of the pyramid at each of ``cells`` ((N, 2) (col, row)) at
    its pose (``poses`` (N, 4), as from :func:`fit_poses`) shows round what hides its middle
    (a piece resting on it): the mean edge strength across each side of its base square on the
    table, over the points of that side outside every outline of ``hidden`` ((K, 2) image
    (x, y) each, convex), and the least of those over the sides with at least half their
    points seen; 0 where fewer than two sides are seen so."""
    base = _posed(camera, cells, poses)[:, :4]
    along = np.roll(base, -1, axis=1) - base  # (N, 4, 2)
    t = (np.arange(_BASE_SAMPLES) + 0.5) / _BASE_SAMPLES
    points = base[:, :, None, :] + t[:, None] * along[:, :, None, :]  # (N, 4, S, 2)
    normal = np.stack([-along[..., 1], along[..., 0]], axis=-1) / (np.linalg.norm(along, axis=-1, keepdims=True) + 1e-9)
    seen = np.ones(points.shape[:3], bool)
    for shape in hidden:
        seen &= ~_inside_convex(points, shape)
    nx, ny = (np.broadcast_to(normal[:, :, None, k], seen.shape).astype(np.float32) for k in (0, 1))
    strength = edges.across(points[..., 0].astype(np.float32), points[..., 1].astype(np.float32), nx, ny)
    shown = seen.sum(axis=2)  # (N, 4) points of each side seen
    counted = shown >= _BASE_SAMPLES / 2
    means = np.where(counted, (strength * seen).sum(axis=2) / np.maximum(shown, 1), np.inf)
    return np.where(counted.sum(axis=1) >= 2, means.min(axis=1), 0.0)


def straightest_outline(edges: EdgeTensor, camera: Camera, cell, sides: np.ndarray,
                        ruled_out: np.ndarray) -> tuple[int, float, np.ndarray]:
    """Of pyramids of each of ``sides`` ((S,) base sides in grid units) on ``cell`` (col,
    row), each laid along the strongest edges (:func:`fit_poses`), the one whose outline is
    straightest (:func:`straightness`, off ``ruled_out``): its index, its straightness and its
    outline ((K, 2) image (x, y), convex hull)."""
    cells = np.tile(np.asarray(cell, np.float64).reshape(1, 2), (len(sides), 1))
    poses = fit_poses(edges, camera, cells, sides)
    straight = straightness(edges, camera, cells, poses, ruled_out)
    best = int(np.argmax(straight))
    points = _posed(camera, cells[best:best + 1], poses[best:best + 1])[0]
    return best, float(straight[best]), _convex_outline(points)


def straightness(edges: EdgeTensor, camera: Camera, cells: np.ndarray, poses: np.ndarray,
                 ruled_out: np.ndarray) -> np.ndarray:
    """(N,) how plainly each segment of the outline and of the ridges seen of the pyramid at
    each of ``cells`` ((N, 2) (col, row)) at its pose (``poses`` (N, 4), as from
    :func:`fit_poses`) is a straight edge: for each base side and ridge seen, the mean edge
    strength across it over the mean along it, and the least of those. A pyramid's every
    side and ridge is a straight edge, where the light and the plastic change across it and
    not along it; a print's blossoms, and its lines that a side or two happen to follow, do
    not follow them all. The points sampled where ``ruled_out`` (uint8 or bool (H, W), in
    the image: the pieces read, whose own edges run beside the cell) is set, or off the
    edges' window, do not count; a segment with fewer than half its points counted is left
    out, and a pyramid with fewer than three segments left is 0."""
    points = _posed(camera, cells, poses)
    base, apex = points[:, :4], points[:, 4]
    beyond = ~faces_seen(base, apex)
    shown = ~(beyond & np.roll(beyond, 1, axis=1))  # a ridge shows where a face beside it does
    starts = np.concatenate([base, base], axis=1)  # (N, 8, 2): four base sides, then four ridges
    ends = np.concatenate([np.roll(base, -1, axis=1), np.broadcast_to(apex[:, None], base.shape)], axis=1)
    counted = np.concatenate([~beyond, shown], axis=1)
    along = ends - starts
    samples = np.concatenate([np.tile(_STRAIGHT_BASE, (4, 1)), np.tile(_STRAIGHT_RIDGE, (4, 1))])  # (8, S)
    xy = starts[..., None, :] + samples[None, ..., None] * along[..., None, :]  # (N, 8, S, 2)
    length = np.linalg.norm(along, axis=-1, keepdims=True) + 1e-9
    nx, ny = (np.broadcast_to(v, xy.shape[:3]).astype(np.float32)
              for v in (-along[..., 1:] / length, along[..., :1] / length))
    xs, ys = xy[..., 0].astype(np.float32), xy[..., 1].astype(np.float32)
    across, running = edges.across(xs, ys, nx, ny), edges.across(xs, ys, ny, -nx)
    h, w = ruled_out.shape
    col, row = np.round(xy[..., 0]).astype(int), np.round(xy[..., 1]).astype(int)
    inside = (col >= 0) & (col < w) & (row >= 0) & (row < h) & edges.holds(xy)
    ok = inside & (ruled_out[np.clip(row, 0, h - 1), np.clip(col, 0, w - 1)] == 0)
    kept = ok.sum(axis=2)
    counted &= kept >= _STRAIGHT_SAMPLES / 2
    ratio = (across * ok).sum(axis=2) / np.maximum((running * ok).sum(axis=2), 1e-6)
    least = np.where(counted, ratio, np.inf).min(axis=1)
    return np.where(counted.sum(axis=1) >= 3, least, 0.0)


def _convex_outline(points: np.ndarray) -> np.ndarray:
    """The outline ((K, 2) image (x, y), float64) of a pyramid's ``points`` ((5, 2), base
    corners and apex): their convex hull."""
    return cv2.convexHull(points.astype(np.float32)).reshape(-1, 2).astype(np.float64)


def _inside_convex(points: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Whether each of ``points`` ((..., 2) image (x, y)) lies inside the convex outline
    ``shape`` ((K, 2) (x, y), in order round it), (...) bool."""
    corners = np.asarray(shape, np.float64)
    edge = np.roll(corners, -1, axis=0) - corners  # (K, 2)
    offset = points[..., None, :] - corners  # (..., K, 2)
    cross = edge[:, 0] * offset[..., 1] - edge[:, 1] * offset[..., 0]
    return np.all(cross > 0, axis=-1) | np.all(cross < 0, axis=-1)


def _posed(camera: Camera, cells: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """(N, 5, 2) image points (base corners, apex) of the pyramid at each of ``cells``
    ((N, 2) (col, row)) at its pose (``poses`` (N, 4), as from :func:`fit_poses`)."""
    cells = np.asarray(cells, np.float64).reshape(-1, 2)
    poses = np.asarray(poses, np.float64).reshape(-1, 4)
    return pyramid_corners(camera, cells + poses[:, 1:3], poses[:, 0], poses[:, 0] * HEIGHT_PER_SIDE,
                           turns=np.radians(poses[:, 3]))


def _search(edges: EdgeTensor, camera: Camera, cells: np.ndarray, coarse_sides: np.ndarray,
            side_steps: np.ndarray, inner_ridges: np.ndarray | None = None,
            rounds: int = _ROUNDS) -> tuple[np.ndarray, np.ndarray]:
    """The best pose (N, 4) (see :func:`fit_poses`) at each of ``cells`` (N, 2) and the
    strength of the edges along its outline (N,): the best of a coarse grid of the
    ``coarse_sides`` ((N, S) grid units), shifts and turns, then ``rounds`` rounds of a
    3 x 3 x 3 x 3 grid round the best, the first ``side_steps`` (N,) apart in side, each
    round half as fine as the one before; ``inner_ridges`` (N,) bool or None: see
    :func:`_outline_strength`."""
    n = len(cells)
    offsets = np.stack(np.meshgrid(_COARSE_SHIFTS, _COARSE_SHIFTS, _COARSE_TURNS, indexing="ij"),
                       axis=-1).reshape(-1, 3)
    grid = np.concatenate([np.repeat(coarse_sides, len(offsets), axis=1)[..., None],
                           np.tile(offsets, (n, coarse_sides.shape[1], 1)).reshape(n, -1, 3)], axis=-1)
    best, strength = _best_poses(edges, camera, cells, grid, inner_ridges)
    steps = np.column_stack([side_steps, np.full(n, _FIRST_STEPS[1]), np.full(n, _FIRST_STEPS[1]),
                             np.full(n, _FIRST_STEPS[2])])
    around = np.stack(np.meshgrid(*[(-1.0, 0.0, 1.0)] * 4, indexing="ij"), axis=-1).reshape(-1, 4)
    for _ in range(rounds):
        best, strength = _best_poses(edges, camera, cells, best[:, None, :] + around[None] * steps[:, None, :],
                                     inner_ridges)
        steps = steps / 2
    return best, strength


def edge_scale(sides: np.ndarray, sizes: np.ndarray) -> float:
    """The photo's scale (millimetres a grid unit) that best puts pieces read as ``sizes``
    (N,) at their true sides, their outlines having settled at ``sides`` (N,) grid units
    (:func:`fit_sides`): the median of the ratios, so that a few misread or misfitted pieces
    do not move it."""
    sides = np.maximum(np.asarray(sides, np.float64), 1e-6)
    return float(np.exp(np.median(np.log(_SIDES_MM[np.asarray(sizes) - 1] / sides))))


def sides_scale(sides: np.ndarray, least: np.ndarray, scales: np.ndarray) -> tuple[float, float]:
    """The scale among ``scales`` (millimetres a grid unit) at which the outline ``sides``
    (N,) grid units fit the sizes' true sides best, each side taking its nearest size above
    ``least`` (N,) 0-based, and its misfit (:func:`scale_misfit`)."""
    scales = np.asarray(scales, np.float64)
    # (S, N, 3) each side's log ratio to each size's true side at each scale
    off = np.log(np.maximum(np.asarray(sides, np.float64), 1e-6))[None, :, None] + np.log(scales)[:, None, None]
    off = np.abs(off - np.log(_SIDES_MM))
    off[:, np.arange(3)[None, :] < np.asarray(least)[:, None]] = np.inf  # no size under the piece on it
    costs = _misfits(off.min(axis=2)).sum(axis=1)
    best = int(np.argmin(costs))
    return float(scales[best]), float(costs[best])


def scale_misfit(sides: np.ndarray, sizes: np.ndarray, scale: float) -> float:
    """How badly pieces read as ``sizes`` (N,) 1..3 fit their outlines' ``sides`` (N,) grid
    units at ``scale``, in pieces: the sum of each one's squared log ratio of side to true
    side over that of half the smaller step between sizes, each at most 1 (a piece so far
    off fits another size better, or is misfitted)."""
    off = np.log(np.maximum(np.asarray(sides, np.float64), 1e-6) * scale / _SIDES_MM[np.asarray(sizes) - 1])
    return float(_misfits(off).sum())


def _misfits(off: np.ndarray) -> np.ndarray:
    """Each piece's misfit (as ``off``, float64) from its side's log ratio ``off`` to its
    size's true side: its square over that of ``_HALF_STEP``, at most 1."""
    return np.minimum((off / _HALF_STEP) ** 2, 1.0)


def size_costs(edges: EdgeTensor, camera: Camera, cells: np.ndarray, scale: float, colours: np.ndarray,
               spread: float, cap: float) -> np.ndarray:
    """(N, 3) cost of each size (1..3) for the pieces on ``cells`` ((N, 2) (col, row)) of
    ``colours`` ((N,) indices into COLOR_ORDER: the ridges count as in :func:`fit_outlines`):
    each size's outline, its side at ``scale`` millimetres a grid unit (:func:`edge_scale`;
    within 4% of it), is laid on the strongest ``edges`` near the cell (shifted and turned
    as in :func:`fit_poses`), and costs ``(log(strongest / its strength) / spread)^2 / 2``
    against the strongest of the three, at most ``cap``."""
    cells = np.asarray(cells, np.float64).reshape(-1, 2)
    inner_ridges = np.asarray(colours).reshape(-1) != BLACK
    strengths = np.empty((len(cells), len(_SIDES_MM)))
    for k, side_mm in enumerate(_SIDES_MM):
        sides = np.full(len(cells), side_mm / scale)
        strengths[:, k] = _search(edges, camera, cells, sides[:, None], _NEAR_SIDE_STEP * sides, inner_ridges,
                                  _SIZE_ROUNDS)[1]
    strengths = np.maximum(strengths, 1e-9)
    misfit = np.log(strengths.max(axis=1, keepdims=True) / strengths) / spread
    return np.minimum(0.5 * misfit ** 2, cap)


def outlines_strength(edges: EdgeTensor, camera: Camera, cells: np.ndarray, sides: np.ndarray,
                      colours: np.ndarray) -> np.ndarray:
    """How well pyramids of base ``sides`` ((N,) grid units) on ``cells`` ((N, 2) (col,
    row)), seen by ``camera``, lie along the photo's ``edges``: (N,) the log of the strength
    of the edges along each one's outline (the ridges inside it counting too, as in
    :func:`fit_outlines`, by ``colours`` (N,)), each posed where they are strongest (as in
    :func:`size_costs`, by one round). Where the pieces' apexes are, and so their ridges,
    hangs on the camera: this tells cameras apart that put their bases alike."""
    cells = np.asarray(cells, np.float64).reshape(-1, 2)
    sides = np.asarray(sides, np.float64).reshape(-1)
    strengths = _search(edges, camera, cells, sides[:, None], _NEAR_SIDE_STEP * sides,
                        np.asarray(colours).reshape(-1) != BLACK, 1)[1]
    return np.log(np.maximum(strengths, 1e-9))


def _best_poses(edges: EdgeTensor, camera: Camera, cells: np.ndarray, poses: np.ndarray,
                inner_ridges: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Of ``poses`` ((N, K, 4): side, shift in col and row, turn in degrees) at each of
    ``cells`` (N, 2), the one (N, 4) whose outline runs along the strongest edges, and
    their strength (N,) (``inner_ridges`` (N,) bool or None: see :func:`_outline_strength`)."""
    n, k = poses.shape[:2]
    flat = poses.reshape(-1, 4)
    centres = np.repeat(cells, k, axis=0) + flat[:, 1:3]
    sides, turns = flat[:, 0], np.radians(flat[:, 3])
    points = pyramid_corners(camera, centres, sides, sides * HEIGHT_PER_SIDE, turns=turns)
    strength = _outline_strength(edges, points, None if inner_ridges is None else np.repeat(inner_ridges, k))
    best = strength.reshape(n, k).argmax(axis=1)
    return poses[np.arange(n), best], strength.reshape(n, k)[np.arange(n), best]


def _outline_strength(edges: EdgeTensor, points: np.ndarray, inner_ridges: np.ndarray | None = None) -> np.ndarray:
    """The mean edge strength across the outline (M,) of each pyramid of ``points`` ((M, 5,
    2), from :func:`model.pyramid_corners`), its segments (:func:`_segment_strengths`)
    weighted by their length."""
    template, strength, length = _segment_strengths(edges, points, inner_ridges)
    total = np.bincount(template, weights=length, minlength=len(points))
    return np.bincount(template, weights=strength * length, minlength=len(points)) / np.maximum(total, 1e-9)


def _segment_strengths(edges: EdgeTensor, points: np.ndarray,
                       inner_ridges: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mean edge strength across each segment of the outline of each pyramid of
    ``points`` ((M, 5, 2), from :func:`model.pyramid_corners`): (S,) the pyramid each
    segment is of, (S,) its strength and (S,) its length in pixels. The outline is the
    convex hull of base and apex: the base sides the apex does not lie beyond, and the two
    ridges from the base corners where it passes from one to the other (a base side the apex
    lies beyond is hidden behind the piece). For the pyramids ``inner_ridges`` ((M,) bool;
    none if None), the other ridges of a face seen, inside the outline, count too, away from
    their ends (``_INNER_RIDGE_TRIM``)."""
    # x and y apart throughout, so that no array has a last axis of two (slow to broadcast
    # over); the samples along the segments' first axis, so that their mean adds whole rows
    base, apex = points[:, :4], points[:, 4]
    beyond = ~faces_seen(base, apex)
    bx, by = base[..., 0], base[..., 1]
    fx, fy = np.roll(bx, -1, axis=1), np.roll(by, -1, axis=1)  # each side's end
    before = np.roll(beyond, 1, axis=1)
    ridge_on_hull = beyond ^ before
    ridges = ridge_on_hull
    if inner_ridges is not None:  # ridge k, between faces k-1 and k, shows where either is seen
        ridges = ridges | (~(beyond & before) & np.asarray(inner_ridges, bool)[:, None])
    # the segments counted, of each pyramid's eight: four base sides, then four ridges
    counted = np.flatnonzero(np.concatenate([~beyond, ridges], axis=1))
    template, segment = np.divmod(counted, 8)
    starts, along = [], []
    for corner, following, tip in ((bx, fx, apex[:, 0]), (by, fy, apex[:, 1])):
        start = np.concatenate([corner, corner], axis=1).ravel()[counted]
        end = np.concatenate([following, np.broadcast_to(tip[:, None], corner.shape)], axis=1).ravel()[counted]
        starts.append(start)
        along.append(end - start)
    if inner_ridges is not None:
        trim = ((segment >= 4) & ~ridge_on_hull.ravel()[template * 4 + segment % 4]) * _INNER_RIDGE_TRIM
        starts = [start + trim * step for start, step in zip(starts, along)]
        along = [step * (1 - 2 * trim) for step in along]
    length = np.hypot(*along) + 1e-9
    xs, ys = (start.astype(np.float32) + _ALONG * step.astype(np.float32) for start, step in zip(starts, along))
    nx, ny = (-along[1] / length).astype(np.float32), (along[0] / length).astype(np.float32)
    return template, edges.across(xs, ys, nx, ny).mean(axis=0), length
