"""Snapping piece candidates to grid cells and deciding colour, size and stacking.

The grid is fitted to the candidates' anchors, the camera recovered from it, and each anchor
corrected for the lean of its pyramid (the apex leans away from the camera, so what the camera
sees of a piece is off its base centre). Fit, model and correction are repeated a few times.
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

import cv2
import numpy as np

from calibration import Profile
from calibration.profile import BLACK

from .camera import Camera, CameraPrior, camera_from_homography, intrinsics
from .classify import (classify_colors, color_confidence, color_costs, likely_sizes, size_confidence, size_scores,
                       within_supply)
from .edge_fit import EdgeTensor, edge_scale, fit_outlines, fit_sides, scale_misfit, sides_scale, size_costs
from .errors import BoardNotFound
from .grid import GridFit, cell_side, fit_grid, moved_grid
from .model import BASE_MM, base_centres, outline, pyramid_points, seat_height_mm, silhouettes
from .pieces import Blob
from .stacks import split_stack
from .tilt import RUNG_DEG, told_tilt, within_rung

logger = logging.getLogger(__name__)

PITCH_MM_CHOICES = np.arange(26.0, 43.0, 1.0)  # plausible grid pitches (design: roughly 27-40 mm)
SIZES = (1, 2, 3)
PER_KIND = 3  # pieces of one colour and size in a standard set
MAX_PIECES = 5 * 3 * PER_KIND  # a whole set: five colours, three sizes
_COARSER = 1.5  # a lattice fitted again after one with too many cells is at least this much coarser
_OUTLINE_PITCH_SPAN_MM = 3.0  # the outlines choose among the pitches this near the areas' choice
_STRAY_CELLS = 6  # cells a reading may hold beyond a whole set's pieces: stray things (a card's print, glare)
_SCALE_DEPENDENT_CONFIDENCE = 0.5  # at most, for a piece whose size hangs on the scale (as a second look's)
_MIN_EDGE_SIZED = 3  # pieces on the table that set the edges' scale well enough to size by
# no phone focuses on a table from nearer than this: a camera the grid puts lower is a lattice
# fitted to something other than the city (and pyramids near its height project without bound)
_LEAST_CAMERA_HEIGHT_MM = 100.0
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # the steps (col, row) to a cell's four neighbours


@dataclass(frozen=True)
class Reading:
    """One piece as read: grid cell (col, row), colour index, size 1..3, level, confidence,
    the pixel centre (x, y) of what was seen and its outline (K, 2) (x, y) in pixels."""

    col: int
    row: int
    color_index: int
    size: int
    level: int
    confidence: float
    center: tuple[float, float]
    outline: np.ndarray


@dataclass(frozen=True)
class CityReading:
    """The pieces read, the grid and camera they were read with, and the photo's colour
    offset (3,) (see :func:`classify.classify_colors`). ``grid_pitch_mm`` is the grid's
    pitch as far as the pieces tell; ``pitch_mm`` the pitch at which the modelled pieces
    match what is seen of them, their outlines' scale: finer than the grid's where hard
    shadows make every piece look larger. ``edge_scale`` (millimetres a grid unit, or None
    where the pieces were not sized by the photo's edges) puts the outlines fitted to the
    edges at the sizes read (:func:`edge_fit.edge_scale`). ``doubtful_empty``: cells (col,
    row) read empty where a piece may stand unseen (:func:`verify.doubt_empty_cells`), for
    the player to check. ``warnings``: what the reading did that the player should know, in
    plain words (:func:`vision.whole_set.as_whole_set`), passed on to the detection.
    ``guessed``: how many pieces were read anew or added to fit a whole set, which the photo
    did not show plainly (passed on to the detection)."""

    grid: GridFit
    camera: Camera
    grid_pitch_mm: float
    pitch_mm: float
    pieces: list[Reading]
    color_offset: np.ndarray
    edge_scale: float | None = None
    doubtful_empty: tuple[tuple[int, int], ...] = ()
    warnings: tuple[str, ...] = ()
    guessed: int = 0


def cells_beside(cells, taken) -> list[tuple[int, int]]:
    """The cells (col, row) next to any of ``cells`` (col, row) and not in ``taken``, in order."""
    return sorted({(col + dc, row + dr) for col, row in cells for dc, dr in NEIGHBOURS} - set(taken))


def size_beside(cell: tuple[int, int], size: int, placed: set[tuple[int, int, int]]) -> bool:
    """Whether a cell next to ``cell`` (col, row) holds a piece of ``size``, by ``placed``
    (the (col, row, size) of each piece): the rules then forbid that size on ``cell``."""
    return any((cell[0] + dc, cell[1] + dr, size) in placed for dc, dr in NEIGHBOURS)


def read_pieces(blobs: list[Blob], image_size: tuple[int, int], spacing_hint: float, plain: bool,
                profile: Profile, edges: EdgeTensor | None = None) -> CityReading:
    """Turn candidates into pieces on cells. ``image_size`` is (width, height); ``plain``:
    whether the table is plain (not printed); ``edges``: the photo's edges round the city,
    where the pieces' outlines are fitted to size them (see :func:`_apply_priors`) and to
    move the grid onto them (:func:`_centred_on_outlines`).

    On a plain table, each candidate's colour is read whole by the piece colour model
    (``profile.piece_colors``); on a print, where the table under a piece is not the table
    estimate, a candidate keeps the colour its pixels were labelled with.

    The grid is fitted to the candidates' centres, then refitted three times to where the
    pieces' base centres are, given the sizes read on the lattice before. Refits can swing
    between two lattices; the one whose anchors sit nearest its nodes (the mean distance,
    weighted as the fit weights them) is kept.

    A lattice that puts the candidates on more cells than a whole set has pieces (and a few
    strays) is finer than the grid (fragments between pieces fitted it as well); the grid is
    then fitted again with lattices at least ``_COARSER`` times as coarse, and the fit with
    fewer cells is kept.

    A camera tilted more than ``max_tilt_deg`` from straight down is more likely a lattice
    bent by stray candidates (a lamp's hot spot, the edge of a shadow) than a photo taken
    from above: the reading is made again with the tilt prior narrowed to
    ``steep_refit_prior_deg``, and kept if its camera is less tilted. A photo that is truly
    oblique still fits steeply.

    A small city's anchors fit a grid seen straight down as well as a tilted one; where the
    pieces' ridges in the photo's ``edges`` tell another tilt (:func:`vision.tilt.told_tilt`),
    the reading is made again with the prior on the tilt round that one, a rung of the
    ladder wide (:data:`vision.tilt.RUNG_DEG`), and kept where its camera's tilt stays within
    a rung of it (:func:`vision.tilt.within_rung`: else the anchors of the whole reading tell
    against it).

    Raises :class:`BoardNotFound` where the grid puts the camera under
    ``_LEAST_CAMERA_HEIGHT_MM`` above the table (a lattice fitted to stray candidates); a
    reading made again under another prior that does so leaves the first one standing."""
    reading = _read_pieces(blobs, image_size, spacing_hint, plain, profile, edges)
    if reading.camera.tilt_deg > profile.max_tilt_deg:
        again = _read_again(blobs, image_size, spacing_hint, plain,
                            dataclasses.replace(profile, tilt_prior_deg=profile.steep_refit_prior_deg), edges)
        if again is not None and again.camera.tilt_deg < reading.camera.tilt_deg:
            reading = again
    toward = None if edges is None else told_tilt(reading, edges, image_size, profile)
    if toward is not None:
        within_a_rung = dataclasses.replace(profile, tilt_prior_deg=RUNG_DEG)
        again = _read_again(blobs, image_size, spacing_hint, plain, within_a_rung, edges, toward)
        if again is not None and within_rung(again.camera, toward):
            return again
    return reading


def _read_again(*args) -> CityReading | None:
    """:func:`_read_pieces` of ``args``, or None where it finds no grid (:class:`BoardNotFound`):
    a reading made again under another prior that fails leaves the first one standing."""
    try:
        return _read_pieces(*args)
    except BoardNotFound as exc:
        logger.info("reading again under another camera prior: %s", exc)
        return None


def _read_pieces(blobs: list[Blob], image_size: tuple[int, int], spacing_hint: float, plain: bool,
                 profile: Profile, edges: EdgeTensor | None, toward: tuple[float, float] | None = None) -> CityReading:
    """:func:`read_pieces` with the camera prior of ``profile``, round the tilt ``toward``
    (see :class:`vision.camera.CameraPrior`)."""
    features, chromas = np.array([b.feature for b in blobs]), np.array([b.chroma for b in blobs])
    offset = shared_offset(features, chromas, profile)
    outlier = profile.piece_colors.outlier_cost if plain else None
    if plain:
        costs = profile.piece_colors.costs(features - offset, chromas, np.array([b.level for b in blobs]), offset)
        colors = costs.argmin(axis=1)
    else:
        costs = color_costs(features, chromas, profile.colors, offset)
        colors = np.array([b.color_index for b in blobs])
    color_conf = color_confidence(costs, colors, outlier)
    centers = np.array([b.center for b in blobs])
    areas = np.array([b.area for b in blobs], np.float64)
    typical = np.percentile(areas, profile.typical_piece_percentile)  # the rest may be fragments
    trust = np.clip(areas / typical, 0.2, 1.0)  # fragments count for less
    # a cell is wider than a typical piece, as its solid part tells: a long shadow on a light
    # table can double a candidate's area, and its area would rule out the true pitch
    min_pitch = np.sqrt(np.percentile([b.solid_area for b in blobs], profile.typical_piece_percentile))
    prior = CameraPrior(intrinsics(image_size, profile.hfov_deg), profile.anchor_noise, profile.tilt_prior_deg, toward)
    tolerance = (profile.lattice_tolerance, profile.lattice_tolerance_growth)

    def settled_grid(min_pitch: float) -> tuple[GridFit, float, np.ndarray]:
        fit = fit_grid(centers, spacing_hint, tolerance, trust, min_pitch, prior)
        pitches = PITCH_MM_CHOICES
        refits = []  # they can swing between two lattices, each one's sizes moving the anchors to the other
        for _ in range(3):  # model the pieces, move each anchor to its base centre, refit
            camera = camera_from_homography(fit.H, image_size, profile.hfov_deg)
            sizes, grid_pitch_mm = _cell_sizes_and_pitch(camera, fit.cells, areas, colors, profile, pitches)
            pitches = PITCH_MM_CHOICES[np.abs(PITCH_MM_CHOICES - grid_pitch_mm) <= 2]  # refits move it little
            anchors = base_centres(camera, centers, fit.cells, sizes, grid_pitch_mm)
            fit = fit_grid(anchors, spacing_hint, tolerance, trust, min_pitch, prior)
            refits.append((fit, grid_pitch_mm, anchors))
        return min(refits, key=lambda refit: np.average(refit[0].residual, weights=trust))  # anchors nearest nodes

    fit, grid_pitch_mm, anchors = settled_grid(min_pitch)
    if _occupied(fit) > MAX_PIECES + _STRAY_CELLS:  # more cells than a set has pieces: a lattice finer than the grid's
        coarser = settled_grid(_COARSER * _pixel_pitch(fit))
        if _occupied(coarser[0]) < _occupied(fit):
            fit, grid_pitch_mm, anchors = coarser
    camera = _camera_above_table(fit, image_size, grid_pitch_mm, profile)
    if edges is not None:
        fit = _centred_on_outlines(fit, anchors, camera, edges, colors, areas, BASE_MM[2] / grid_pitch_mm, profile)
        camera = _camera_above_table(fit, image_size, grid_pitch_mm, profile)
    # with the grid settled, the pitch at which the pieces are modelled is searched again, among
    # finer ones too: a hard shadow on a light table can make each piece look up to
    # shadow_area_growth times larger (a finer pitch scales the models up alike). While the grid
    # is fitted, such pitches would let a lattice of half the true cells explain the pieces.
    finest = PITCH_MM_CHOICES[0] / np.sqrt(profile.shadow_area_growth)
    pitches = np.concatenate([np.arange(PITCH_MM_CHOICES[0] - 1, finest - 1e-9, -1.0)[::-1], PITCH_MM_CHOICES])
    pitch_mm = _cell_sizes_and_pitch(camera, fit.cells, areas, colors, profile, pitches)[1]
    by_cell: dict[tuple[int, int], list[int]] = {}
    for i, cell in enumerate(fit.cells):
        by_cell.setdefault((int(cell[0]), int(cell[1])), []).append(i)
    near = pitches[np.abs(pitches - pitch_mm) <= _OUTLINE_PITCH_SPAN_MM]
    pitch_mm, fits, scale_dependent = _best_fitting_pitch(camera, by_cell, blobs, colors, near, profile)
    readings = _assemble(blobs, by_cell, fits, camera, pitch_mm, colors, costs, color_conf, areas, profile)
    pieces, scale = _apply_priors(readings, camera, pitch_mm, profile, scale_dependent, edges)
    pieces = _within_supply(pieces, [c for _, _, c in readings], outlier, profile)
    return CityReading(fit, camera, grid_pitch_mm, pitch_mm, pieces, offset, scale)


def _camera_above_table(fit: GridFit, image_size: tuple[int, int], pitch_mm: float, profile: Profile) -> Camera:
    """The camera of the grid ``fit`` in an image of ``image_size`` (w, h), its cells
    ``pitch_mm`` apart. Raises :class:`BoardNotFound` where it stands under
    ``_LEAST_CAMERA_HEIGHT_MM`` above the table."""
    camera = camera_from_homography(fit.H, image_size, profile.hfov_deg)
    if camera.center[2] * pitch_mm < _LEAST_CAMERA_HEIGHT_MM:
        raise BoardNotFound("the pieces found sit on no grid a phone could see from above; "
                            "photograph the whole city from above")
    return camera


def _centred_on_outlines(fit: GridFit, anchors: np.ndarray, camera: Camera, edges: EdgeTensor, colors: np.ndarray,
                         areas: np.ndarray, medium_side: float, profile: Profile) -> GridFit:
    """``fit`` moved along the table by the median shift of the pieces' outlines from their
    cells' centres (:func:`edge_fit.fit_outlines`, each cell's colour its largest
    candidate's), where it holds at least ``profile.outline_centring_min_cells`` cells and
    that shift is at least ``profile.outline_centring_min_shift`` pitches; else ``fit``.
    What is seen of each piece can lean one way all over the photo (the shadows of tinted
    pieces are tinted too, and taken with them), and so can the grid fitted to its
    ``anchors`` ((N, 2) image (x, y)); the outlines lie where the bases are."""
    index, _ = _per_cell(fit.cells, areas)
    if index.max() + 1 < profile.outline_centring_min_cells:
        return fit
    largest = _largest_per_cell(index, areas)
    poses = fit_outlines(edges, camera, fit.cells[largest], medium_side, colors[largest])
    shift = np.median(poses[:, 1:3], axis=0)
    if np.hypot(*shift) < profile.outline_centring_min_shift:
        return fit
    logger.info("grid moved by (%.3f, %.3f) pitches onto the pieces' outlines", *shift)
    return moved_grid(fit, shift, anchors)


def shared_offset(features: np.ndarray, chromas: np.ndarray, profile: Profile) -> np.ndarray:
    """The photo's colour offset (3,) shared by all candidates (:func:`classify.classify_colors`)
    of ``features`` and ``chromas`` ((N, 3) each): what is taken off each candidate's feature
    before its colour is read."""
    return classify_colors(features, chromas, profile.colors, profile.informative_above)[1]


def _occupied(fit: GridFit) -> int:
    """How many distinct cells ``fit`` puts the candidates on."""
    return len(np.unique(fit.cells, axis=0))


def _pixel_pitch(fit: GridFit) -> float:
    """The side in pixels of a cell of ``fit`` in the middle of its cells."""
    return cell_side(fit.H, np.median(fit.cells, axis=0))


def _predicted_areas(camera: Camera, cells: np.ndarray, pitch_mm: float, elevation_mm=None) -> np.ndarray:
    """(N, 3) projected silhouette area in pixels of each size standing on each cell."""
    lift = 0.0 if elevation_mm is None else elevation_mm
    return np.stack([silhouettes(camera, cells, size, pitch_mm, lift)[0] for size in SIZES], axis=1)


def _per_cell(cells: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index (N,) of each candidate's cell among the distinct cells, and ``values`` (N,)
    summed over the candidates of each candidate's cell (N,)."""
    _, index = np.unique(cells, axis=0, return_inverse=True)
    index = index.ravel()
    return index, np.bincount(index, weights=values)[index]


def _largest_per_cell(index: np.ndarray, areas: np.ndarray) -> np.ndarray:
    """For each distinct cell, the index of its largest candidate, given each candidate's
    cell ``index`` (N,) (:func:`_per_cell`) and ``areas`` (N,)."""
    largest = np.full(index.max() + 1, -1)
    for i in np.argsort(-areas):
        if largest[index[i]] < 0:
            largest[index[i]] = i
    return largest


def _cell_sizes_and_pitch(camera: Camera, cells: np.ndarray, areas: np.ndarray, colors: np.ndarray,
                          profile: Profile, pitches: np.ndarray):
    """:func:`_sizes_and_pitch` with the candidates of one cell read as one piece (a piece
    broken into colour fragments, or a stack seen from above, shows its whole outline);
    the colour of a cell is that of its largest candidate. Returns per-candidate sizes (N,)
    and the pitch."""
    index, total = _per_cell(cells, areas)
    first = _largest_per_cell(index, areas)
    sizes, pitch_mm = _sizes_and_pitch(camera, cells[first], total[first], colors[first], profile, pitches)
    return sizes[index], pitch_mm


def _sizes_and_pitch(camera: Camera, cells: np.ndarray, areas: np.ndarray, colors: np.ndarray,
                     profile: Profile, pitches: np.ndarray):
    """Sizes (N,) and the pitch in mm, one of ``pitches``, that best explain the measured
    areas together, with the rules as soft priors (:func:`classify.likely_sizes`): at a wrong
    pitch every piece reads one size off, and neighbours then break the rules."""
    unit = _predicted_areas(camera, cells, 32.0)
    predicted = unit * (32.0 / np.asarray(pitches, np.float64))[:, None, None] ** 2  # areas scale with (size / pitch)^2
    sizes, cost = likely_sizes(size_scores(areas, predicted), colors, cells, profile.size_tolerance,
                               profile.same_size_cost, PER_KIND, profile.surplus_cost,
                               large_pair_cost=profile.large_pair_cost)
    best = int(np.argmin(cost))
    return sizes[best] + 1, float(pitches[best])


def _best_fitting_pitch(camera: Camera, by_cell: dict, blobs: list[Blob], colors: np.ndarray,
                        pitches: np.ndarray, profile: Profile):
    """Of ``pitches`` (the areas' choice and those near it), the one at which the pieces'
    outlines fit what is seen in their cells best (:func:`_outline_fit`), the rules read as
    soft priors (:func:`classify.likely_sizes`; a cell's colour is its largest candidate's):
    areas alone are thrown by lost faces and shadows, outlines less. Returns the pitch; per
    cell of ``by_cell`` (cell -> candidate indices), its outline fit at that pitch; and the
    cells whose size depends on the scale: read otherwise at a pitch whose reading costs no
    more than one broken rule (``profile.same_size_cost``) above the best's."""
    cells = sorted(by_cell)
    fits = [_outline_fit(camera, cell, np.vstack([blobs[i].pixels for i in by_cell[cell]]), pitches)
            for cell in cells]
    cell_colors = np.array([colors[max(by_cell[cell], key=lambda i: blobs[i].area)] for cell in cells])
    sizes, cost = likely_sizes(np.stack([mismatch for mismatch, _ in fits], axis=1), cell_colors, np.array(cells),
                               profile.outline_tolerance, profile.same_size_cost, PER_KIND, profile.surplus_cost,
                               large_pair_cost=profile.large_pair_cost)
    best = int(np.argmin(cost))
    nearly = sizes[cost <= cost[best] + profile.same_size_cost]
    scale_dependent = {cell for cell, differs in zip(cells, (nearly != sizes[best]).any(axis=0)) if differs}
    return (float(pitches[best]), {cell: (mismatch[best], inside[best]) for cell, (mismatch, inside) in zip(cells, fits)},
            scale_dependent)


def _assemble(blobs, by_cell, fits, camera, pitch_mm, colors, costs, color_conf, areas,
              profile) -> list[tuple[Reading, np.ndarray, np.ndarray]]:
    """One reading per cell and level: same-coloured candidates in one cell are merged, two
    colours in one cell are a stack. Each reading comes with its (3,) size mismatches and its
    (5,) colour costs (its candidates', weighted by area). A piece on the table is sized by
    how its outline fits all that is seen in its cell (:func:`_outline_fit`). Of the two
    colours with the most pixels inside that outline (a shadow labelled black lies mostly
    beyond it), the second is a piece on top only where the model of a stack puts each
    (:func:`stacks.split_stack`, which also says which is on top and its size; a weak split
    stands only where the rules allow its upper piece, :func:`_within_rules`); else the
    first is the piece's colour. A reading's confidence is that of its colour (its
    candidates' best), times that of its size for a piece on top; a piece on the table's size,
    and so its confidence, is settled with the rules (:func:`_apply_priors`). A piece read
    alone in a cell where a second colour shows inside its outline is as sure as its colour's
    share of what is seen there: it may be a stack the model did not take, or the second
    colour its own. ``by_cell``: the candidates' indices by cell;
    ``fits``: each cell's outline fit (:func:`_outline_fit`) at ``pitch_mm``."""
    lower_sizes = {cell: int(fits[cell][0].argmin()) + 1 for cell in by_cell}
    cell_colours, splits = {}, {}
    for (col, row), members in sorted(by_cell.items()):
        _, inside = fits[(col, row)]  # the lower piece's outline holds all that is seen in the cell
        bounds = np.cumsum([0] + [blobs[i].area for i in members])
        within = inside[lower_sizes[(col, row)] - 1]
        seen_inside = {i: int(within[bounds[k]:bounds[k + 1]].sum()) for k, i in enumerate(members)}
        groups: dict[int, list[int]] = {}
        for i in members:
            groups.setdefault(int(colors[i]), []).append(i)
        ranked = sorted(groups.items(), key=lambda kv: -sum(seen_inside[i] for i in kv[1]))[:2]
        cell_colours[(col, row)] = ranked, seen_inside
        splits[(col, row)] = None if len(ranked) < 2 else split_stack(
            camera, (col, row), lower_sizes[(col, row)], pitch_mm,
            tuple(np.vstack([blobs[i].pixels for i in idx]) for _, idx in ranked), profile)
    splits = _within_rules(splits, lower_sizes)
    readings = []
    for (col, row), (ranked, seen_inside) in cell_colours.items():
        mismatch = fits[(col, row)][0]
        lower_size, split = lower_sizes[(col, row)], splits[(col, row)]
        colour_share, seen_in_outline = 1.0, sum(seen_inside.values())
        if split is None and len(ranked) > 1 and seen_in_outline:  # the piece's colour's share of it
            colour_share = sum(seen_inside[i] for i in ranked[0][1]) / seen_in_outline
        ranked = ranked[:1] if split is None else [ranked[split.lower], ranked[1 - split.lower]]
        for level, (color, idx) in enumerate(ranked):
            lift = None
            scores = mismatch[None]
            size = lower_size
            if level:
                size = split.upper_size
                lift = np.array([seat_height_mm(lower_size, size)])
                predicted = _predicted_areas(camera, np.array([[col, row]]), pitch_mm, lift)[0]
                scores = size_scores(np.array([areas[idx].sum()]), predicted[None])
            pixels = np.vstack([blobs[i].pixels for i in idx])
            center = tuple(float(v) for v in pixels.mean(axis=0))
            shape = outline(camera, np.array([col, row], np.float64), size, pitch_mm,
                            0.0 if lift is None else float(lift[0]))
            conf = float(np.max(color_conf[idx])) * colour_share
            if level:
                conf *= float(size_confidence(scores, np.array([size - 1]), profile.size_tolerance)[0])
            cost = areas[idx] @ costs[idx] / areas[idx].sum()
            readings.append((Reading(col, row, color, size, level, conf, center, shape), scores[0], cost))
    return readings


def _within_rules(splits: dict, lower_sizes: dict) -> dict:
    """``splits`` (cell (col, row) -> :class:`stacks.StackSplit` or None) without the weak
    ones whose upper piece is the size of a piece on an orthogonal neighbour (``lower_sizes``:
    cell -> size of the piece on the table; the neighbours' uppers count too): a stacked
    piece is next to its neighbours' pieces, so the rules forbid that. A weak split's
    evidence does not outweigh them."""
    sizes = {cell: {size} for cell, size in lower_sizes.items()}
    for cell, split in splits.items():
        if split is not None:
            sizes[cell].add(split.upper_size)
    out = dict(splits)
    for (col, row), split in splits.items():
        if split is not None and split.weak and any(
                split.upper_size in sizes.get(near, ()) for near in
                ((col + 1, row), (col - 1, row), (col, row + 1), (col, row - 1))):
            out[(col, row)] = None
    return out


def _outline_fit(camera: Camera, cell: tuple[int, int], pixels: np.ndarray,
                 pitches_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How the projected outline of each size on ``cell`` (col, row), modelled at each of
    ``pitches_mm`` (P,), fits the ``pixels`` ((N, 2) int (x, y), distinct) seen there:
    (P, 3) minus the log of their intersection over union, and (P, 3, N) bool, whether each
    pixel lies inside each outline. Unlike the area alone, the overlap tells a piece with a
    part missing, or with its shadow, from a piece of another size where those parts lie."""
    points = pyramid_points(camera, cell, pitches_mm)
    x0, y0 = np.floor(np.minimum(points.reshape(-1, 2).min(axis=0), pixels.min(axis=0))).astype(int) - 1
    x1, y1 = np.ceil(np.maximum(points.reshape(-1, 2).max(axis=0), pixels.max(axis=0))).astype(int) + 2
    corners = np.round(points - (x0, y0)).astype(np.int32)
    model = np.zeros((y1 - y0, x1 - x0), np.uint8)
    at = (pixels[:, 1] - y0) * model.shape[1] + (pixels[:, 0] - x0)  # the pixels' places in the window, flat
    mismatch = np.empty(points.shape[:2])
    inside = np.empty(points.shape[:2] + (len(pixels),), bool)
    for p, k in np.ndindex(*points.shape[:2]):
        model[:] = 0
        cv2.fillConvexPoly(model, cv2.convexHull(corners[p, k]), 1)
        inside[p, k] = model.take(at).view(bool)
        common = np.count_nonzero(inside[p, k])
        overlap = common / max(np.count_nonzero(model) + len(pixels) - common, 1)
        mismatch[p, k] = -np.log(max(overlap, 1e-3))
    return mismatch, inside


def _apply_priors(readings, camera: Camera, pitch_mm: float, profile: Profile,
                  scale_dependent: set[tuple[int, int]],
                  edges: EdgeTensor | None = None) -> tuple[list[Reading], float | None]:
    """Sizes of the pieces on the table re-read together with the rules (see
    :func:`classify.likely_sizes`); the pieces on top of stacks keep theirs, and the pieces
    under them stay larger than them (:func:`least_sizes`). Where the photo's ``edges`` are
    given and at least ``_MIN_EDGE_SIZED`` pieces stand on the table, each one's outline fit
    is then joined by how its outline fits the edges (:func:`_with_edge_costs`, each size's
    outline at the scale of :func:`_sides_own_scale`) and the sizes read again, and moved a
    step where they put the edges' scale at no pitch pieces are placed at
    (:func:`_within_pitches`). A piece on the table is then as confident as its colour (its
    reading's confidence) times its size: how much better the size read fits what is seen
    than the other sizes do (:func:`classify.size_confidence`), and no more than its
    outline's overlap with what is seen over ``profile.confident_overlap``; on a cell of
    ``scale_dependent`` (col, row), whose size another nearly as likely scale reads
    otherwise, no more than ``_SCALE_DEPENDENT_CONFIDENCE``. So a piece sized by the rules
    against what is seen, or whose outline fits what is seen poorly (a piece with part of it
    lost, or with its shadow), or whose size hangs on the scale, is flagged for the player
    to check. Returns the readings and the edges' scale at the sizes read
    (:func:`edge_fit.edge_scale`; None without edges)."""
    out = [r for r, _, _ in readings]
    idx = [k for k, r in enumerate(out) if r.level == 0]
    mismatches = np.array([readings[k][1] for k in idx]).reshape(-1, 3)
    sizes, scale = np.array([out[k].size for k in idx]), None
    if len(idx) >= 2:
        colours, cells = np.array([out[k].color_index for k in idx]), np.array([[out[k].col, out[k].row] for k in idx])
        least = least_sizes(out, idx)

        def settled(scores):
            return likely_sizes(scores, colours, cells, profile.outline_tolerance, profile.same_size_cost, PER_KIND,
                                profile.surplus_cost, least, profile.large_pair_cost)[0] + 1
        sizes = settled(mismatches)
        if edges is not None and len(idx) >= _MIN_EDGE_SIZED:
            sides = fit_sides(edges, camera, cells, BASE_MM[2] / pitch_mm, colours)
            costs = size_costs(edges, camera, cells, _sides_own_scale(sides, sizes, least, profile), colours,
                               profile.edge_strength_spread, profile.edge_strength_cap)
            mismatches = _with_edge_costs(mismatches, costs, colours, profile)
            sizes = settled(mismatches)
            sizes, scale = _within_pitches(sides, sizes, least)
    for k, size, mismatch in zip(idx, sizes, mismatches):
        r = out[k]
        overlap = float(np.exp(-readings[k][1][size - 1]))
        conf = r.confidence * float(size_confidence(mismatch[None], np.array([size - 1]), profile.outline_tolerance)[0])
        conf *= min(1.0, overlap / profile.confident_overlap)
        if (r.col, r.row) in scale_dependent:
            conf = min(conf, _SCALE_DEPENDENT_CONFIDENCE)
        shape = r.outline if size == r.size else outline(camera, np.array([r.col, r.row], np.float64), int(size),
                                                          pitch_mm)
        out[k] = dataclasses.replace(r, size=int(size), outline=shape, confidence=conf)
    return out, scale


def _sides_own_scale(sides: np.ndarray, sizes: np.ndarray, least: np.ndarray, profile: Profile) -> float:
    """The scale (millimetres a grid unit) the sizes are told at: the one ``sizes`` (N,) put
    the outlines' ``sides`` (N,) at (:func:`edge_fit.edge_scale`), or the sides' own
    (:func:`edge_fit.sides_scale`, among the pitches pieces are placed at) where it fits them
    better by ``profile.sides_scale_gain`` pieces' worth of misfit or more, and fits them
    well: by at most ``profile.sides_scale_misfit`` a piece (outlines settled on a print's
    edges scatter at every scale)."""
    scale = edge_scale(sides, sizes)
    own, misfit = sides_scale(sides, least, np.arange(PITCH_MM_CHOICES[0], PITCH_MM_CHOICES[-1] + 1e-9, 0.1))
    if (misfit <= profile.sides_scale_misfit * len(sides)
            and scale_misfit(sides, sizes, scale) - misfit >= profile.sides_scale_gain):
        logger.info("sizes told at the outlines' own scale, %.1f mm a cell, not %.1f", own, scale)
        return own
    return scale


def _within_pitches(sides: np.ndarray, sizes: np.ndarray, least: np.ndarray) -> tuple[np.ndarray, float]:
    """``sizes`` (N,) 1..3 of the pieces whose outlines settled at ``sides`` (N,) grid units,
    and the scale they put the edges at (:func:`edge_fit.edge_scale`); or, where that scale
    is not a pitch pieces are placed at (``PITCH_MM_CHOICES``) and every size moved one step
    (down where the scale is too coarse, up where too fine, each piece still larger than the
    one on it, ``least`` (N,) 0-based) puts it there, the sizes so moved and their scale: a
    city of two sizes, or one whose largest pieces went unseen, fits the pieces' sides a
    step off as well as at their true sizes, but not at a plausible pitch."""
    def placed(mm: float) -> bool:
        return PITCH_MM_CHOICES[0] <= mm <= PITCH_MM_CHOICES[-1]
    scale = edge_scale(sides, sizes)
    moved = sizes + (-1 if scale > PITCH_MM_CHOICES[-1] else 1)
    if placed(scale) or moved.min() < 1 or moved.max() > len(SIZES) or np.any(moved <= least):
        return sizes, scale
    moved_scale = edge_scale(sides, moved)
    return (moved, moved_scale) if placed(moved_scale) else (sizes, scale)


def least_sizes(pieces: list[Reading], idx: list[int]) -> np.ndarray:
    """(len(idx),) the smallest size index (0..2) each of the pieces ``idx`` of ``pieces``
    may have: the size of the piece on top of it, if any (the upper piece is smaller)."""
    uppers = {(p.col, p.row): p.size for p in pieces if p.level == 1}
    return np.array([uppers.get((pieces[k].col, pieces[k].row), 0) for k in idx])


def _with_edge_costs(mismatches: np.ndarray, costs: np.ndarray, colours: np.ndarray, profile: Profile) -> np.ndarray:
    """The outline mismatches (N, 3) of the pieces on the table joined by their sizes' costs
    (N, 3) on the photo's edges (:func:`edge_fit.size_costs`): each size's cost grows by
    ``edge_size_weight`` times its edge cost, so that ``(mismatch / tolerance)^2 / 2``, as
    :func:`classify.likely_sizes` costs it, holds both. What is seen tells a size surely
    where it is a piece's whole outline, the edges where a shadow or a lost face blurs it.
    A black piece's edge cost (by ``colours``, (N,) indices into COLOR_ORDER) counts
    ``black_edge_weight`` times a tinted one's: glossy black mirrors the room, and on a dark
    table its lit faces drop out of what is seen while its outline still shows."""
    weight = edge_weights(colours, profile)[:, None]
    return np.sqrt(mismatches ** 2 + 2 * profile.outline_tolerance ** 2 * weight * costs)


def edge_weights(colours: np.ndarray, profile: Profile) -> np.ndarray:
    """(N,) how much each piece's edge costs count against what is seen of it, by its colour
    index (``colours`` (N,), COLOR_ORDER): ``edge_size_weight``, times ``black_edge_weight``
    for a black piece."""
    return profile.edge_size_weight * np.where(np.asarray(colours) == BLACK, profile.black_edge_weight, 1.0)


def _within_supply(pieces: list[Reading], costs: list[np.ndarray], outlier_cost: float | None,
                   profile: Profile) -> list[Reading]:
    """``pieces`` with colours re-read so that no kind is over its supply where that costs
    less than ``surplus_cost`` a piece (see :func:`classify.within_supply`); a re-read
    piece's confidence is at most that of its new colour. ``costs``: each piece's (5,)
    colour costs; ``outlier_cost``: see :func:`classify.color_confidence`."""
    if not pieces:
        return pieces
    costs = np.array(costs)
    old = np.array([p.color_index for p in pieces])
    new = within_supply(old, np.array([p.size for p in pieces]), costs, PER_KIND, profile.surplus_cost)
    conf = color_confidence(costs, new, outlier_cost)
    return [p if a == b else dataclasses.replace(p, color_index=int(b), confidence=min(p.confidence, float(c)))
            for p, a, b, c in zip(pieces, old, new, conf)]
