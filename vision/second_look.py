"""A second look at the cells beside a reading, once the grid and camera are known.

Empty cells next to the city get a second look. The first pass takes only what differs
clearly from the table and is not near white (:func:`vision.pieces.foreground`). On a dark
table under a lamp a black pyramid can look much like the table, and a blue one on a blue
cloth like its print. Knowing where a piece would stand and what it would look like
from the camera, a cell can be tested with weaker rules: the pixels that differ from the
table must fill the projected outline of one pyramid size and little else around it; or, on
a plain table, the inside of such an outline must differ, even faintly, from a thin ring
around it; or, on a print, it must stand out from the print, even a little, more than a thin
ring around it does, or, where it shares the print's colour, every side and ridge of an
outline laid on the photo's edges must be a straight edge; or, on a dim plain table, where
a glossy black pyramid can match the table in colour, its edges must show all round inside
the outline. A card, a cloth pattern or a shadow does not take that shape. The sizes of the
pieces found so are then read again with the game's rules, which tell more than such weak
evidence does, and with how their outlines fit the photo's edges (:mod:`vision.edge_fit`).
On a dim plain table the black pieces seen at first are sized by their edges too, where
their lit faces, matching the table, dropped out of what was seen.

Candidates too far from the city to be linked to it get a look too: a piece placed apart
from the others breaks a rule and must be read to be flagged. One is a piece where it
fills a pyramid's outline on a cell of the grid.
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

import cv2
import numpy as np

from calibration import PieceColorModel, Profile
from calibration.profile import BLACK, COLOR_ORDER

from ._lookup import pixels_where
from .camera import apply_homography
from .cells import PER_KIND, SIZES, CityReading, Reading, cells_beside, edge_weights, least_sizes
from .classify import MAX_PER_COLOR, likely_sizes
from .colour import log_chroma
from .edge_fit import EdgeTensor, posed_outlines, size_costs, straightest_outline
from .model import BASE_MM, outline, silhouettes, size_outlines, window_mask
from .pieces import Blob, FaintStray

logger = logging.getLogger(__name__)

_SECTOR_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # the neighbour each of _CORNERS' sides faces
_CORNERS = ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5))
# the gradient of a table in a photo is never below that of a camera's least sensor noise
# (Sobel magnitude of 0.5% noise in log units); a noise-free image must not make every edge strong
_LEAST_EDGE_LEVEL = 0.02
# the table's own gradient (relative_edges) is measured in this many blocks along the photo's
# longer side, in each where at least _EDGE_BLOCK_TABLE of it is table away from the city
_EDGE_BLOCKS = 6
_EDGE_BLOCK_TABLE = 0.25
# the faint and print tests' ring, in working-resolution pixels: it starts past the outline's
# blurred edge and is a few pixels wide, thin enough to hold only the table right beside a piece
_GAP_KERNEL = np.ones((3, 3), np.uint8)
_RING_KERNEL = np.ones((9, 9), np.uint8)
# the middle share of each side of a cell whose outline edges :func:`_least_quarter` averages:
# at the corners, the lines of the sides beside it run in (an outline is drawn 3 pixels wide)
_QUARTER_MIDDLE = 0.6


def add_unseen(reading: CityReading, differs: np.ndarray, strength: np.ndarray, log_ratio: np.ndarray,
               colours: "PhotoColours", edges: np.ndarray | None, profile: Profile,
               outline_edges: EdgeTensor | None = None) -> CityReading:
    """``reading`` with pieces added in empty cells beside it (and beside those, and so on)
    where what differs from the table (``differs``, uint8 (H, W)) and no piece read explains
    matches the outline of one pyramid size: intersection over union at least
    ``unseen_min_overlap``; on a plain table (``colours.plain``), also faint pieces
    (:func:`_faint_piece_in_cell`), on a print, pieces that stand out (``strength``, float32
    (H, W)) only a little but all over (:func:`_print_piece_in_cell`; the cells where such a
    piece may stand, too little to read, are added to ``doubtful_empty``) or, where the
    photo's edges and their scale are known, whose sides and ridges are straight edges
    (:func:`_straight_piece_in_cell`), and where ``edges``
    (from :func:`relative_edges`) are given, black pieces seen only by their edges
    (:func:`_edged_piece`). Their colour is read from their median log ratio as the
    candidates' were, by ``colours`` (:class:`PhotoColours`: the piece colour model on a
    plain table, else the nearest of the photo's expected colours); ``log_ratio`` is float32
    (H, W, 3). Their sizes are read again with the rules (:func:`_sizes_with_rules`), and
    with how their outlines fit ``outline_edges`` (:func:`_edge_costs`)."""
    pieces = list(reading.pieces)
    if not pieces:
        return reading
    explained, counts = explained_mask(pieces, differs.shape), _colour_counts(pieces)
    occupied = {(p.col, p.row) for p in pieces}
    frontier = cells_beside(occupied, occupied)
    doubtful = []
    while frontier and len(pieces) < profile.max_candidates:
        col, row = frontier.pop(0)
        occupied.add((col, row))
        shapes, box = _cell_outlines(reading, (col, row), differs.shape)
        if box is None:
            continue
        found = _piece_in_cell((col, row), shapes, box, differs, explained, log_ratio, colours, counts,
                               profile.unseen_min_overlap)
        if found is None and colours.plain:
            found = _faint_piece_in_cell((col, row), shapes, box, explained, log_ratio, colours, counts, profile)
        if found is None and not colours.plain:
            found, doubted = _print_piece_in_cell((col, row), shapes, box, explained, strength, log_ratio, colours,
                                                  counts, profile)
            if found is None and outline_edges is not None and reading.edge_scale is not None:
                found = _straight_piece_in_cell(reading, (col, row), explained, outline_edges, log_ratio, colours,
                                                counts, profile)
            if doubted and found is None:
                doubtful.append((col, row))
        if found is None and edges is not None:
            found = _edged_piece(reading, (col, row), shapes, box, explained, edges, outline_edges, counts,
                                 {(p.col, p.row) for p in pieces}, profile)
        if found is None:
            continue
        _take(found, pieces, counts, explained)
        frontier += cells_beside([(col, row)], occupied | set(frontier))
    added = len(pieces) - len(reading.pieces)
    if added:
        logger.info("%d piece(s) found on a second look at empty cells", added)
        known = len(reading.pieces)
        pieces = _sizes_with_rules(pieces, known, reading, profile,
                                   _edge_costs(pieces[known:], reading, outline_edges, profile))
    return dataclasses.replace(reading, pieces=pieces,
                               doubtful_empty=tuple(sorted({*reading.doubtful_empty, *doubtful})))


def _colour_counts(pieces: list[Reading]) -> np.ndarray:
    """How many of the ``pieces`` are of each colour: (5,) int, in COLOR_ORDER."""
    return np.bincount([p.color_index for p in pieces], minlength=len(COLOR_ORDER))


def _take(found: Reading, pieces: list[Reading], counts: np.ndarray, explained: np.ndarray) -> None:
    """Add a piece ``found`` on a second look to the ``pieces``, its colour's ``counts`` (see
    :func:`_colour_counts`) and what they explain (``explained``, see :func:`explained_mask`)."""
    pieces.append(found)
    counts[found.color_index] += 1
    cv2.fillConvexPoly(explained, np.round(found.outline).astype(np.int32), 1)


def explained_mask(pieces: list[Reading], shape: tuple[int, int]) -> np.ndarray:
    """uint8 (H, W) mask of ``shape``, 1 in and just round the outlines of the ``pieces``
    read: what they explain of the photo."""
    explained = np.zeros(shape, np.uint8)
    for p in pieces:
        cv2.fillConvexPoly(explained, np.round(p.outline).astype(np.int32), 1)
    return cv2.dilate(explained, np.ones((5, 5), np.uint8))


def _edge_costs(added: list[Reading], reading: CityReading, outline_edges: EdgeTensor | None,
                profile: Profile) -> np.ndarray | None:
    """(N, 3) cost of each size for the pieces ``added`` on a second look, by how their
    outlines fit the photo's ``outline_edges`` at the scale the pieces read first set
    (``reading.edge_scale``; :func:`edge_fit.size_costs`), each piece's times its weight
    (:func:`vision.cells.edge_weights`: a black piece's counts more, as for the pieces read
    first); None without edges or that scale."""
    if outline_edges is None or reading.edge_scale is None or not added:
        return None
    cells, colours = np.array([[p.col, p.row] for p in added]), np.array([p.color_index for p in added])
    costs = size_costs(outline_edges, reading.camera, cells, reading.edge_scale, colours, profile.edge_strength_spread,
                       profile.edge_strength_cap)
    return edge_weights(colours, profile)[:, None] * costs


def _sizes_with_rules(pieces: list[Reading], known: int, reading: CityReading, profile: Profile,
                      edge_costs: np.ndarray | None = None) -> list[Reading]:
    """``pieces`` with the sizes of those found on a second look (all but the first
    ``known``) read again together with the rules (:func:`classify.likely_sizes`; a piece under
    another stays larger than it): what
    they were sized by (a faint contrast, edges, a blurred print) tells a size less surely
    than a clear outline, so each size step away from it costs only
    ``second_look_size_cost``, less than a broken rule, plus its ``edge_costs`` ((N, 3),
    one row a piece found on a second look, from :func:`_edge_costs`), if given. The pieces
    read first were sized with the rules already; one of them changes size only where that
    mends more than two broken rules, as in that reading."""
    on_table = [k for k, p in enumerate(pieces) if p.level == 0]
    costs = []
    for k in on_table:
        steps = np.abs(np.array(SIZES) - pieces[k].size)
        step_cost = profile.second_look_size_cost if k >= known else 2 * profile.same_size_cost
        costs.append(np.where(steps == 1, step_cost, 2 * step_cost) * (steps > 0))
        if k >= known and edge_costs is not None:
            costs[-1] = costs[-1] + edge_costs[k - known]
    # likely_sizes costs a mismatch m at tolerance 1 as m^2 / 2
    sizes = likely_sizes(np.sqrt(2 * np.array(costs)), np.array([pieces[k].color_index for k in on_table]),
                         np.array([[pieces[k].col, pieces[k].row] for k in on_table]), 1.0, profile.same_size_cost,
                         PER_KIND, profile.surplus_cost, least_sizes(pieces, on_table), profile.large_pair_cost)[0] + 1
    out = list(pieces)
    for k, size in zip(on_table, sizes):
        p = out[k]
        if size != p.size:
            shape = outline(reading.camera, np.array([p.col, p.row], np.float64), int(size), reading.pitch_mm)
            out[k] = dataclasses.replace(p, size=int(size), outline=shape, center=_centre(shape))
    return out


@dataclass(frozen=True)
class PhotoColours:
    """What a piece found on a second look is read against in this photo: on a ``plain``
    table the piece colour model (as the candidates were) at the table's ``chroma`` (3,)
    and ``level``, less the photo's ``offset`` (3,); on a print the nearest of the
    ``expected`` colours ((5, 3): the prototypes at the table's chroma, moved by the offset)."""

    expected: np.ndarray
    offset: np.ndarray
    chroma: np.ndarray
    level: float
    plain: bool
    model: PieceColorModel

    @classmethod
    def of(cls, blobs: list[Blob], offset: np.ndarray, plain: bool, profile: Profile) -> "PhotoColours":
        """The table as the ``blobs`` saw it (their medians)."""
        chroma = np.median([b.chroma for b in blobs], axis=0)
        return cls(profile.colors.expected(chroma)[0] + offset, offset, chroma,
                   float(np.median([b.level for b in blobs])), plain, profile.piece_colors)

    def color(self, feature: np.ndarray, full: np.ndarray) -> int:
        """The colour index of a piece whose median log ratio is ``feature`` (3,), among the
        colours not ``full`` ((5,) bool: as many pieces as a set has)."""
        if self.plain:
            cost = self.model.costs(feature - self.offset, self.chroma, np.array([self.level]), self.offset)[0]
        else:
            cost = np.linalg.norm(self.expected - feature, axis=1)
        cost[full] = np.inf
        return int(cost.argmin())

    def color_within(self, log_ratio: np.ndarray, box, inside: np.ndarray, counts: np.ndarray) -> int:
        """:meth:`color` of the median log ratio (``log_ratio``: float32 (H, W, 3)) over the
        pixels ``inside`` (bool) of the window ``box`` (x0, y0, x1, y1), among the colours
        not yet held by as many pieces as a set has (``counts``: see :func:`_colour_counts`)."""
        x0, y0, x1, y1 = box
        return self.color(np.median(pixels_where(log_ratio[y0:y1, x0:x1], inside), axis=0), counts >= MAX_PER_COLOR)

    def tint(self, change: np.ndarray) -> int:
        """The colour index of the tinted piece (not black) that changes a log ratio most
        nearly the way ``change`` (3,) does, in chroma (each less its mean over the
        channels): the cosine of their angle. A tint through which light falls on black
        is seen against black, not the table, so its brightness tells nothing."""
        chromas = log_chroma(np.vstack([self.expected - self.offset, change]))
        cosine = chromas[:-1] @ chromas[-1] / np.maximum(np.linalg.norm(chromas[:-1], axis=1)
                                                         * np.linalg.norm(chromas[-1]), 1e-12)
        cosine[BLACK] = -np.inf
        return int(cosine.argmax())


def _cell_outlines(reading: CityReading, cell, image_shape):
    """The projected outlines ((K, 2) (x, y)) of each size on ``cell`` (col, row), and the
    window (x0, y0, x1, y1) around them that holds the largest with half its width to spare,
    or None for the window if it leaves an image of ``image_shape`` (H, W) (the city is always
    wholly in the photo)."""
    shapes = size_outlines(reading.camera, np.array(cell, np.float64), reading.pitch_mm)
    largest = shapes[-1]
    margin = 0.5 * (largest.max(axis=0) - largest.min(axis=0))
    x0, y0 = np.floor(largest.min(axis=0) - margin).astype(int)
    x1, y1 = np.ceil(largest.max(axis=0) + margin).astype(int)
    h, w = image_shape
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return shapes, None
    return shapes, (int(x0), int(y0), int(x1), int(y1))


def _piece_in_cell(cell, shapes, box, differs, explained, log_ratio, colours, counts,
                   least_overlap: float) -> Reading | None:
    """The piece standing on ``cell`` (col, row), or None when the pixels that differ from
    the table there and are not explained by a piece already read do not take the shape
    of a pyramid: fill the projected outline of no size by ``least_overlap`` (intersection
    over union) or more. ``shapes`` and ``box``: from :func:`_cell_outlines`."""
    x0, y0, x1, y1 = box
    seen = differs[y0:y1, x0:x1] & (1 - explained[y0:y1, x0:x1])
    if seen.sum() == 0:
        return None
    overlap, size, shape, inside = _best_outline(seen > 0, shapes, box)
    if overlap < least_overlap:
        return None
    color = colours.color_within(log_ratio, box, inside, counts)
    return Reading(int(cell[0]), int(cell[1]), color, size, 0, float(overlap), _centre(shape), shape)


def _best_outline(seen: np.ndarray, shapes, box):
    """Of the projected outlines ``shapes`` (one per size, from :func:`_cell_outlines`), the
    one that best matches ``seen`` (bool, the window ``box``): (intersection over union,
    size, outline, bool mask of ``seen`` inside it)."""
    best = None
    for size, shape in zip(SIZES, shapes):
        mask = window_mask(shape, box) > 0
        overlap = (seen & mask).sum() / max((seen | mask).sum(), 1)
        if best is None or overlap > best[0]:
            best = (float(overlap), size, shape, seen & mask)
    return best


def _centre(shape: np.ndarray) -> tuple[float, float]:
    """The pixel centre (x, y) given to a piece found on a second look: the mean of its
    projected outline's (K, 2) (x, y) corners."""
    return tuple(float(v) for v in shape.mean(axis=0))


def outline_contrasts(reading: CityReading, cells: list[tuple[int, int]], size: int, image: np.ndarray) -> np.ndarray:
    """(len(cells),) how far the median of ``image`` (float32 (H, W) or (H, W, C): the log
    ratio on a plain table, the strength on a print) inside the projected outline of a piece
    of ``size`` on each of ``cells`` (col, row) differs from its median over a thin ring
    round it, in the channel that differs most, both over what the pieces of ``reading``
    leave free; 0 where the outline is mostly covered by them, or its window leaves the
    photo."""
    explained = explained_mask(reading.pieces, image.shape[:2])
    out = np.zeros(len(cells))
    for k, cell in enumerate(cells):
        shapes, box = _cell_outlines(reading, cell, image.shape[:2])
        if box is None:
            continue
        x0, y0, x1, y1 = box
        window = image[y0:y1, x0:x1].reshape(y1 - y0, x1 - x0, -1)
        inside = _inside_and_ring(shapes[size - 1], shapes[size - 1], box, explained[y0:y1, x0:x1] == 0)
        if inside is not None:
            inner, ring = inside
            out[k] = np.abs(np.median(window[inner], axis=0) - np.median(window[ring], axis=0)).max()
    return out


def _ring_round(mask: np.ndarray) -> np.ndarray:
    """bool mask of the thin ring round ``mask`` (uint8 window of an outline): past its
    blurred edge (``_GAP_KERNEL``) and within ``_RING_KERNEL`` of it."""
    return cv2.dilate(mask, _RING_KERNEL) > cv2.dilate(mask, _GAP_KERNEL)


def _inside_and_ring(inner_shape: np.ndarray, ring_shape: np.ndarray, box,
                     free: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """bool masks of the window ``box`` (x0, y0, x1, y1): the inside of the outline
    ``inner_shape`` past its blurred edge, and the thin ring round the outline ``ring_shape``
    (:func:`_ring_round`), both where ``free`` (bool, the window); None where the inside
    left free is under half the outline, or the ring under 20 pixels: mostly covered by
    pieces already read."""
    mask = window_mask(inner_shape, box)
    inner = (cv2.erode(mask, _GAP_KERNEL) > 0) & free
    ring = _ring_round(mask if ring_shape is inner_shape else window_mask(ring_shape, box)) & free
    if np.count_nonzero(inner) < 0.5 * np.count_nonzero(mask) or np.count_nonzero(ring) < 20:
        return None
    return inner, ring


def _faint_piece_in_cell(cell, shapes, box, explained, log_ratio, colours, counts,
                         profile: Profile) -> Reading | None:
    """The piece on ``cell`` (col, row) of a plain table whose colour is close to the
    table's (a black pyramid under the lamp on a dark table), or None: inside the projected
    outline of some size the median log ratio must differ from that of a thin ring around it
    by at least ``faint_contrast`` and by ``faint_noise_ratio`` times the ring's own spread.
    Its size is the smallest whose difference is at least ``faint_size_share`` of the
    strongest (noise ratio aside: the ring round the true size holds the piece's shadow, and
    a larger outline's ring lies beyond it); its colour is read from the median inside it
    (``colours``, :class:`PhotoColours`). Such a piece is read with
    confidence 0.5, so it is flagged for the player to check. ``shapes`` and ``box``: from
    :func:`_cell_outlines`."""
    x0, y0, x1, y1 = box
    free = explained[y0:y1, x0:x1] == 0
    window = np.ascontiguousarray(log_ratio[y0:y1, x0:x1])
    seen = []  # (size, shape, contrast, median inside) of the sizes whose outline is mostly free
    present = False
    for size, shape in zip(SIZES, shapes):
        inside = _inside_and_ring(shape, shape, box, free)
        if inside is None:
            continue
        inner, ring = inside
        outside = pixels_where(window, ring)
        around = np.median(outside, axis=0)
        median = np.median(pixels_where(window, inner), axis=0)
        contrast = median - around
        seen.append((size, shape, contrast, median))
        if not present and np.abs(contrast).max() >= profile.faint_contrast:
            noise = 1.4826 * np.median(np.abs(outside - around), axis=0)
            present = bool(np.max(np.abs(contrast) / np.maximum(noise, 1e-3)) >= profile.faint_noise_ratio)
    if not present:
        return None
    strongest = max(np.abs(contrast).max() for _, _, contrast, _ in seen)
    size, shape, _, median = next(s for s in seen if np.abs(s[2]).max() >= profile.faint_size_share * strongest)
    color = colours.color(median, counts >= MAX_PER_COLOR)
    return Reading(int(cell[0]), int(cell[1]), color, size, 0, 0.5, _centre(shape), shape)


def _print_piece_in_cell(cell, shapes, box, explained, strength, log_ratio, colours, counts,
                         profile: Profile) -> tuple[Reading | None, bool]:
    """The piece on ``cell`` (col, row) of a printed table that shares a colour with the
    print (a blue pyramid on a blue check, or on pink with blue stripes, where the stripes'
    blurred edges give the palette a purple), or None; and whether, none read, a piece may
    stand there. Each of its pixels stands out from the print only a little (``strength``,
    float32 (H, W), :func:`vision.colour.off_table_strength`), less than any pixel test may
    ask without reading the print's edges as pieces, but it does so all over the piece,
    while the print round it does not: the median strength inside the smallest size's
    projected outline must exceed that of a thin ring round the largest by
    ``print_contrast`` and by ``print_noise_ratio`` times the ring's own spread. Its size is
    then the one whose projected outline best matches (intersection over union, at least
    ``print_min_overlap``) what stands out more than halfway from the ring's level to the
    inside's, opened to drop the print's thin lines and kept where it touches the inside;
    its colour is read from the median log ratio (float32 (H, W, 3)) there (``colours``,
    :class:`PhotoColours`). Such a piece is read with confidence 0.5, so it is flagged for
    the player to check. Where the inside stands out by ``print_doubt_contrast`` and
    ``print_doubt_noise_ratio`` times the ring's spread, and an outline matches what stands
    out by ``print_doubt_overlap``, but the piece is not read, a piece may stand there.
    ``shapes`` and ``box``: from :func:`_cell_outlines`."""
    x0, y0, x1, y1 = box
    free = explained[y0:y1, x0:x1] == 0
    window = strength[y0:y1, x0:x1]
    inside = _inside_and_ring(shapes[0], shapes[-1], box, free)
    if inside is None:
        return None, False
    inner, ring = inside
    around = float(np.median(window[ring]))
    spread = 1.4826 * float(np.median(np.abs(window[ring] - around)))
    contrast = float(np.median(window[inner])) - around
    readable = contrast >= profile.print_contrast and contrast >= profile.print_noise_ratio * spread
    doubtable = contrast >= profile.print_doubt_contrast and contrast >= profile.print_doubt_noise_ratio * spread
    if not (readable or doubtable):
        return None, False
    above = ((window > around + contrast / 2) & free).astype(np.uint8)
    _, parts = cv2.connectedComponents(cv2.morphologyEx(above, cv2.MORPH_OPEN, _GAP_KERNEL))
    touching = np.unique(parts[inner & (parts > 0)])
    seen = np.isin(parts, touching[touching > 0])
    overlap, size, shape, inside = _best_outline(seen, shapes, box)
    if not readable or overlap < profile.print_min_overlap:
        return None, doubtable and overlap >= profile.print_doubt_overlap
    color = colours.color_within(log_ratio, box, inside, counts)
    return Reading(int(cell[0]), int(cell[1]), color, size, 0, 0.5, _centre(shape), shape), False


def _straight_piece_in_cell(reading: CityReading, cell, explained: np.ndarray, outline_edges: EdgeTensor,
                            log_ratio: np.ndarray, colours: "PhotoColours", counts: np.ndarray,
                            profile: Profile) -> Reading | None:
    """The piece on ``cell`` (col, row) of a printed table told by its shape alone, or None:
    a pyramid of the print's own colour (a blue one on blue blossoms) stands out from it too
    little to be seen by colour, but every side and ridge of it is a straight edge, which a
    print's blossoms, and its lines, do not all follow. Each size's outline, its side at the
    reading's edge scale, is laid along the strongest of ``outline_edges`` (pose searched),
    and the straightest (:func:`edge_fit.straightness`, off what the pieces read explain,
    ``explained``) is read where it is at least ``print_straightness``; its colour from the
    median log ratio (float32 (H, W, 3)) inside it (``colours``, :class:`PhotoColours`). It
    is read with confidence 0.5, so it is flagged for the player to check."""
    sides = np.array([BASE_MM[size] for size in SIZES]) / reading.edge_scale
    best, straight, shape = straightest_outline(outline_edges, reading.camera, cell, sides, explained)
    if straight < profile.print_straightness:
        return None
    x0, y0 = np.floor(shape.min(axis=0)).astype(int)
    x1, y1 = np.ceil(shape.max(axis=0)).astype(int) + 1
    h, w = explained.shape
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None
    box = (x0, y0, x1, y1)
    color = colours.color_within(log_ratio, box, window_mask(shape, box) > 0, counts)
    logger.debug("a piece told by its straight outline on %s (%.2f)", cell, straight)
    return Reading(int(cell[0]), int(cell[1]), color, SIZES[best], 0, 0.5, _centre(shape), shape)


def _edged_piece(reading: CityReading, cell, shapes, box, explained, edges, outline_edges: EdgeTensor | None,
                 counts, taken, profile: Profile) -> Reading | None:
    """The black piece :func:`_edged_piece_in_cell` reads on ``cell`` (col, row) with the
    outlines ``shapes`` projected square on it, or else, where edges of at least
    ``edge_ratio`` show in two of the cell's triangles (:func:`_cell_triangles`), with each
    size's outline laid along the strongest of ``outline_edges``
    (:func:`edge_fit.posed_outlines`, where those and their scale are known): a piece placed
    off its cell's centre, or turned, has its outline there, across the square ones."""
    if counts[BLACK] >= MAX_PER_COLOR:
        return None
    triangles = _cell_triangles(reading, cell, shapes, box, explained, edges)
    if triangles is None:
        return None
    found = _edged_piece_in_cell(cell, shapes, box, explained, edges, triangles, taken, profile)
    if found is not None or outline_edges is None or reading.edge_scale is None \
            or sum(a >= profile.edge_ratio for a in triangles[0]) < 2:
        return found
    sides = np.array([BASE_MM[size] for size in SIZES]) / reading.edge_scale
    posed = posed_outlines(outline_edges, reading.camera, cell, sides)
    triangles = _cell_triangles(reading, cell, posed, box, explained, edges)
    if triangles is None:
        return None
    return _edged_piece_in_cell(cell, posed, box, explained, edges, triangles, taken, profile)


def _cell_triangles(reading: CityReading, cell, shapes, box, explained,
                    edges) -> tuple[list[float], np.ndarray, np.ndarray] | None:
    """The mean of ``edges`` (float32 (H, W)) in each of the four triangles from the centre
    of ``cell`` (col, row) out through one of its sides (pushed out past the cell), where no
    piece read explains them (``explained``) within the largest of ``shapes``: the four
    means, the centre (x, y) and corners ((4, 2) (x, y)); None where pieces read explain
    half of that outline or more. ``box``: the window of :func:`_cell_outlines`."""
    x0, y0, x1, y1 = box
    free = explained[y0:y1, x0:x1] == 0
    mask = window_mask(shapes[-1], box)
    inner = (mask > 0) & free
    if inner.sum() < 0.5 * mask.sum():
        return None
    col, row = float(cell[0]), float(cell[1])
    centre = reading.camera.project(np.array([[col, row, 0.0]]))[0]
    corners = reading.camera.project(np.array([[col + dc, row + dr, 0.0] for dc, dr in _CORNERS]))
    corners = centre + 1.5 * (corners - centre)
    sectors = _side_means(edges[y0:y1, x0:x1], box, centre, [corners[[k, (k + 1) % 4]] for k in range(4)], inner)
    return sectors, centre, corners


def _edged_piece_in_cell(cell, shapes, box, explained, edges, triangles, taken, profile: Profile) -> Reading | None:
    """The black piece on ``cell`` (col, row) of a dim plain table that matches the table in
    colour and brightness (glossy black reflects the room, and can look just like a dark
    table), or None. Such a piece still shows its outline and the ridges between its faces:
    inside the outline of the largest size, in the four triangles from the cell's centre out
    through one of its sides, the mean of ``edges`` (float32 (H, W), the gradient in units of
    the table's own) must be at least ``edge_ratio`` in three and half that in the fourth
    (seen at a slant, the side leaning away shows less): a neighbour's or a shadow's edge
    runs along one or two sides, a line through the cell through two. A large piece lit from
    one side can show strong edges on two sides only; it is read too where the mean of
    ``edges`` along one size's outline is at least ``edge_outline_ratio`` and
    ``edge_outline_contrast`` times that along any other size's (the true outline collects
    edges all round; the others cross faces or the table), with every triangle at least half
    ``edge_ratio``, or all but one where a triangle reaching ``edge_ratio`` faces a cell of
    ``taken`` (the cells (col, row) read so far) that is empty: the shaded side of a piece
    lit from one side can show no edge at all, while edges that face only the pieces round an
    empty cell are theirs. Its size is the one whose outline runs along the strongest edges.
    Where the faces show few edges (a large piece's faces are wide and flat), a piece is read
    too where its outline shows all round: the mean of ``edges`` along one size's outline at
    least ``edge_ring_ratio`` and ``edge_outline_contrast`` times that along any other's, and
    at least ``edge_ring_quarter`` along the middle of each side (:func:`_least_quarter`). A
    tinted piece always shows its tint (:func:`_faint_piece_in_cell`), so this one is read as
    black, with confidence 0.5, flagged for the player to check. ``shapes``: each size's
    outline on the cell, (K, 2) (x, y); ``box``: the window of :func:`_cell_outlines`;
    ``triangles``: :func:`_cell_triangles` of those. A set holds only so many black pieces:
    where as many are read, :func:`_edged_piece` reads none."""
    sectors, centre, corners = triangles
    x0, y0, x1, y1 = box
    free, window = explained[y0:y1, x0:x1] == 0, edges[y0:y1, x0:x1]
    size, standing_out = _outlined_size(shapes, box, edges, profile)
    if standing_out >= profile.edge_ring_ratio and _least_quarter(
            shapes[size - 1], centre, corners, box, window, free) >= profile.edge_ring_quarter:
        return Reading(int(cell[0]), int(cell[1]), BLACK, size, 0, 0.5, _centre(shapes[size - 1]), shapes[size - 1])
    weakest, second = sorted(sectors)[:2]
    if second < profile.edge_ratio / 2:  # two sides without edges: no outline makes up for that
        return None
    outlined = standing_out >= profile.edge_outline_ratio
    facing_open = [a for a, (dc, dr) in zip(sectors, _SECTOR_STEPS) if (cell[0] + dc, cell[1] + dr) not in taken]
    shaded_side = outlined and max(facing_open, default=0.0) >= profile.edge_ratio
    if weakest < profile.edge_ratio / 2 and not shaded_side or second < profile.edge_ratio and not outlined:
        return None
    return Reading(int(cell[0]), int(cell[1]), BLACK, size, 0, 0.5, _centre(shapes[size - 1]), shapes[size - 1])


def add_strays(reading: CityReading, strays: list[Blob | FaintStray], log_ratio: np.ndarray,
               colours: "PhotoColours", profile: Profile, outline_edges: EdgeTensor | None = None) -> CityReading:
    """``reading`` with the pieces that stand apart from the city: of the ``strays``
    (candidates too far from the city to be linked to it: mostly things on the table; and
    faint regions there, :func:`vision.pieces.faint_strays`), those on an empty cell of the
    grid whose pixels match the outline of one pyramid size there (:func:`_piece_in_cell`,
    as on a second look, by ``profile.stray_min_overlap``: a piece seen with its shadow
    joined to it fills its outline by about a half, and each is kept only where its outline
    has edges, :func:`vision.verify.drop_edgeless`). A piece not connected to the others
    breaks a rule, and the player must see it flagged, not dropped; a coin or a die lies on
    a grid cell only by chance, and rarely in a pyramid's outline. A stray's cell is the one
    its base centre falls on: its centre less the lean a medium pyramid's silhouette has
    there. The pieces so found are sized again with the rules and by how their outlines fit
    the photo's ``outline_edges``, as on a second look (:func:`_sizes_with_rules`,
    :func:`_edge_costs`: what stands out of a faint piece on a dim table takes in its blurred
    rim and shadow). ``log_ratio`` and ``colours`` as for :func:`add_unseen`."""
    pieces = list(reading.pieces)
    if not pieces or not strays:
        return reading
    seen = np.zeros(log_ratio.shape[:2], np.uint8)
    for b in strays:
        seen[b.pixels[:, 1], b.pixels[:, 0]] = 1
    explained, counts = explained_mask(pieces, seen.shape), _colour_counts(pieces)
    occupied = {(p.col, p.row) for p in pieces}
    to_grid = np.linalg.inv(reading.camera.P[:, [0, 1, 3]])  # the table plane's homography, inverted
    for cell in sorted({_stray_cell(reading, to_grid, b.center) for b in strays} - occupied):
        shapes, box = _cell_outlines(reading, cell, seen.shape)
        if box is None:
            continue
        found = _piece_in_cell(cell, shapes, box, seen, explained, log_ratio, colours, counts,
                               profile.stray_min_overlap)
        if found is None:
            continue
        _take(found, pieces, counts, explained)
    known = len(reading.pieces)
    if len(pieces) > known:
        logger.info("%d piece(s) found apart from the city", len(pieces) - known)
        pieces = _sizes_with_rules(pieces, known, reading, profile,
                                   _edge_costs(pieces[known:], reading, outline_edges, profile))
    return dataclasses.replace(reading, pieces=pieces)


def _stray_cell(reading: CityReading, to_grid: np.ndarray, center: tuple[float, float]) -> tuple[int, int]:
    """The grid cell (col, row) on which a candidate seen at pixel ``center`` (x, y) stands:
    its centre less the lean of a medium pyramid's silhouette on the nearest cell.
    ``to_grid``: (3, 3) image (x, y, 1) -> table (col, row, 1) homography."""
    nearest = np.round(apply_homography(to_grid, center)[0])
    _, seen = silhouettes(reading.camera, nearest[None], 2, reading.pitch_mm)
    base = reading.camera.project(np.append(nearest, 0.0)[None])
    col, row = np.round(apply_homography(to_grid, np.asarray(center) - (seen - base))[0])
    return int(col), int(row)

def black_sizes_from_edges(reading: CityReading, edges: np.ndarray, profile: Profile) -> CityReading:
    """``reading`` with its black pieces on the table sized by their edges where these tell:
    on a dim table a glossy black piece's lit faces can match the table and drop out of what
    was seen of it, and its soft shadow can look like more of it, but its outline still
    shows. This holds for the pieces seen at first and for those found on a second look.
    Where the mean of ``edges`` (from :func:`relative_edges`) along one size's projected
    outline is at least ``edge_outline_ratio`` and ``edge_outline_contrast`` times that along
    any other size's (:func:`_outlined_size`), the piece takes that size."""
    stacked = {(p.col, p.row) for p in reading.pieces if p.level == 1}
    pieces = list(reading.pieces)
    for k, p in enumerate(pieces):
        if p.level or p.color_index != BLACK or (p.col, p.row) in stacked:
            continue
        shapes, box = _cell_outlines(reading, (p.col, p.row), edges.shape)
        if box is None:
            continue
        size, standing_out = _outlined_size(shapes, box, edges, profile)
        if standing_out >= profile.edge_outline_ratio and size != p.size:
            pieces[k] = dataclasses.replace(p, size=size, outline=shapes[size - 1])
    return dataclasses.replace(reading, pieces=pieces)


def _outlined_size(shapes, box, edges: np.ndarray, profile: Profile) -> tuple[int, float]:
    """The size whose projected outline (of ``shapes``, from :func:`_cell_outlines`, in the
    window ``box``) runs along the strongest ``edges`` (float32 (H, W)), and the mean of
    ``edges`` along it where that is at least ``edge_outline_contrast`` times that along any
    other size's outline, else 0: how far the outline stands out."""
    x0, y0, x1, y1 = box
    window = edges[y0:y1, x0:x1]
    along = []
    for shape in shapes:
        line = np.zeros(window.shape, np.uint8)
        cv2.polylines(line, [np.round(shape - (x0, y0)).astype(np.int32)], True, 1, 3)
        along.append(float(window[line > 0].mean()))
    k = int(np.argmax(along))
    runner_up = max(a for j, a in enumerate(along) if j != k)
    return SIZES[k], along[k] if along[k] >= profile.edge_outline_contrast * runner_up else 0.0


def _least_quarter(shape: np.ndarray, centre: np.ndarray, corners: np.ndarray, box, window: np.ndarray,
                   free: np.ndarray) -> float:
    """The least, over the cell's four sides, of the mean of ``window`` (float32 edges of the
    window ``box``) along the outline ``shape`` ((K, 2) (x, y)) where ``free`` (bool, not
    explained by the pieces read), in the triangle from the cell's ``centre`` (x, y) out
    through the middle ``_QUARTER_MIDDLE`` of that side (``corners``: (4, 2) (x, y), pushed
    out past the cell); 0 for a triangle holding under 6 such outline pixels."""
    x0, y0 = box[:2]
    line = np.zeros(window.shape, np.uint8)
    cv2.polylines(line, [np.round(shape - (x0, y0)).astype(np.int32)], True, 1, 3)
    sides = [corners[[k, (k + 1) % 4]] for k in range(4)]
    middles = [ends.mean(axis=0) + _QUARTER_MIDDLE * (ends - ends.mean(axis=0)) for ends in sides]
    return min(_side_means(window, box, centre, middles, (line > 0) & free))


def _side_means(window: np.ndarray, box, centre: np.ndarray, sides: list[np.ndarray], where: np.ndarray) -> list[float]:
    """The mean of ``window`` (float32, the window ``box`` of the image) where ``where``
    (bool, its shape) in each triangle from the cell's ``centre`` (x, y) to one of the
    ``sides`` ((2, 2) (x, y) ends each); 0 for a triangle holding under 6 such pixels."""
    means = []
    for ends in sides:
        part = where & (window_mask(np.vstack([centre, ends]), box) > 0)
        means.append(float(window[part].mean()) if part.sum() > 5 else 0.0)
    return means

def relative_edges(log_ratio: np.ndarray, differs: np.ndarray, reading: CityReading) -> np.ndarray:
    """Gradient magnitude of the log brightness (the mean log ratio, float32 (H, W, 3)) in
    units of the table's own nearby (:func:`_table_edge_level`): float32 (H, W). A sensor's
    noise is about the same in linear units all over a photo, so in log units it grows
    where the table lies in shade: a table lit from one side is rough in the log where it is
    dark, smooth where it is lit. The table's own is measured where ``differs`` (uint8
    (H, W)) is 0, away from the city of ``reading`` and the cells round it
    (:func:`_city_area`), where the edges of the pieces unseen would add to it, and where it
    has some gradient: beyond the table's edge and over a smooth thing on it, the table is
    what is seen (log ratio 0), and measured there the table would look smooth."""
    brightness = (log_ratio[..., 0] + log_ratio[..., 1] + log_ratio[..., 2]) / 3
    gx = cv2.Sobel(brightness, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(brightness, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = cv2.magnitude(gx, gy)
    table = (differs == 0) & (_city_area(reading, differs.shape) == 0) & (magnitude > 0)
    return magnitude / _table_edge_level(magnitude, table if table.any() else differs == 0)


def _city_area(reading: CityReading, shape: tuple[int, int]) -> np.ndarray:
    """uint8 (H, W) mask of ``shape``, 1 within the convex hull of the cells of ``reading``'s
    pieces and the cells beside them."""
    cells = {(p.col + dc, p.row + dr) for p in reading.pieces for dc in (-1, 0, 1) for dr in (-1, 0, 1)}
    corners = np.array([[col + dc, row + dr, 0.0] for col, row in cells for dc, dr in _CORNERS])
    hull = cv2.convexHull(np.round(reading.camera.project(corners)).astype(np.int32))
    area = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(area, hull, 1)
    return area


def _table_edge_level(magnitude: np.ndarray, table: np.ndarray) -> np.ndarray:
    """float32 (H, W): the median of ``magnitude`` (float32 (H, W)) over the ``table`` (bool
    (H, W)) pixels of each of ``_EDGE_BLOCKS`` blocks along the longer side of the photo (and
    as many of the same size along the other), interpolated between the blocks' centres,
    never under ``_LEAST_EDGE_LEVEL``. A block holding too little table takes the mean of its
    neighbours' (those that have one, round by round); with no table at all, every level is
    ``_LEAST_EDGE_LEVEL``."""
    h, w = magnitude.shape
    side = int(np.ceil(max(h, w) / _EDGE_BLOCKS))
    rows, cols = -(-h // side), -(-w // side)
    levels = np.full((rows, cols), np.nan, np.float32)
    for r in range(rows):
        for c in range(cols):
            block = (slice(r * side, (r + 1) * side, 2), slice(c * side, (c + 1) * side, 2))
            on_table = magnitude[block][table[block]]
            if on_table.size >= _EDGE_BLOCK_TABLE * table[block].size:
                levels[r, c] = np.median(on_table)
    if np.isnan(levels).all():
        levels[:] = np.median(magnitude[table]) if table.any() else _LEAST_EDGE_LEVEL
    while np.isnan(levels).any():
        padded = np.pad(levels, 1, constant_values=np.nan)
        around = np.stack([padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]])
        known = np.isfinite(around)
        mean = np.where(known, around, 0).sum(axis=0) / np.maximum(known.sum(axis=0), 1)
        levels = np.where(np.isnan(levels) & known.any(axis=0), mean, levels).astype(np.float32)
    levels = np.maximum(levels, _LEAST_EDGE_LEVEL)
    return cv2.resize(levels, (cols * side, rows * side), interpolation=cv2.INTER_LINEAR)[:h, :w]
