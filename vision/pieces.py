"""Finding piece candidates: blobs of one colour that stand out from the table.

Works on the table-relative log ratio of :mod:`vision.colour`. Pixels far from the table
(paper and glare left out) are labelled with their nearest colour prototype, once the
photo's shared brightness offset and the table's sheen are measured on the colour-blind
regions; labels are smoothed, and each colour's regions are split into single pieces where
two touch (distance-transform peaks and a watershed).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from skimage.segmentation import watershed

from calibration import Profile
from calibration.profile import BLACK, COLOR_ORDER

from ._lookup import pixels_at, pixels_where
from .cards import card_outlines, least_quadrilateral, on_card
from .classify import MIN_FOR_OFFSET, classify_colors, shading_slope
from .colour import labels_at_edge, table_chroma, table_level
from .errors import BoardNotFound
from .model import window_mask
from .round_things import round_things

# the most a candidate counts for in choosing the city, in typical pieces' sides squared: a
# large piece with its shadow, or two pieces of one colour not split
_MOST_PIECE_SIDES = 2.0
# a region over _OUTSIZED times as wide as the next widest, and those wider (at most
# _OUTSIZED_MOST), are no pieces where each is one thing (a mug) or runs off the photo (a
# hand), and fills _THING_FILL of its convex hull
_OUTSIZED = 2.0
_OUTSIZED_MOST = 3
_THING_FILL = 0.75  # such a thing fills at least this share of its convex hull
_THING_QUADRILATERAL = 0.85  # and, if it is one thing, at most this share of the least four-sided figure round it
_OUTSIZED_MARGIN_SIDE = 0.25  # round such a thing, taken for table with it: its rim, its shadow's edge
_ONE_THING_AREA = 2.0  # a thing covers at most this many discs as wide as its widest peak
_ONE_THING = 2.0  # a thing's peaks over half as wide as its widest lie within this many widest peaks of it
# where the peaks' median weighted by their cubes is over _SPECKS times that weighted by their
# squares, specks of grain or print may outnumber the pieces so far that they set the side: so
# they do where _SPECKS_THINGS peaks of at least _SPECKS_NEAR of the former's half lie over
# _SPECKS_APART of it apart
_SPECKS = 1.7
_SPECKS_THINGS = 3
_SPECKS_NEAR = 0.8
_SPECKS_APART = 0.75
# a faint region apart from the candidates is about as large as a piece: between these many
# typical sides squared (a small piece's faces, a large one's with its shadow)
_FAINT_AREA_SIDES = (0.3, 3.0)


@dataclass(frozen=True)
class Blob:
    """One piece candidate. ``center`` is the pixel centroid (x, y); ``pixels`` the (N, 2)
    int32 array of its (x, y) pixel coordinates; ``feature`` the median log ratio (3,);
    ``chroma`` the table's chroma (3,); ``color_index`` the colour its pixels were labelled
    with; ``radius`` the radius in pixels of the largest disc inside it; ``level`` the mean
    log grey of the table under it."""

    center: tuple[float, float]
    pixels: np.ndarray
    feature: np.ndarray
    chroma: np.ndarray
    color_index: int
    radius: float
    level: float

    @property
    def area(self) -> int:
        return len(self.pixels)

    @property
    def solid_area(self) -> float:
        """The area, but no more than that of the square around its largest disc: a whole
        piece's, nearly all of it; a thin line's (a card's border or text), a sliver."""
        return min(float(self.area), (2 * self.radius) ** 2)


@dataclass(frozen=True)
class FaintStray:
    """A region apart from the candidates that differs from the table a little: ``center``
    its pixel centroid (x, y), ``pixels`` the (N, 2) int32 array of its (x, y) pixel
    coordinates."""

    center: tuple[float, float]
    pixels: np.ndarray


def faint_strays(strength: np.ndarray, threshold: float, candidates: list[Blob], side: float) -> list[FaintStray]:
    """The regions where ``strength`` (float32 (H, W), from ``colour.off_table``) is over
    ``threshold`` that touch none of the ``candidates`` (nor come within two pixels of one)
    nor the photo's edge, each about as large as a piece (``_FAINT_AREA_SIDES`` times the
    typical piece's ``side`` squared, in pixels). On a dim plain table a black piece placed
    apart from the city differs from it too little to be a candidate, yet a little all over
    its outline; the city's own such pieces are found on a second look beside it
    (:func:`vision.second_look.add_unseen`), one apart only among the strays."""
    taken = np.zeros(strength.shape, np.uint8)
    for blob in candidates:
        taken[blob.pixels[:, 1], blob.pixels[:, 0]] = 1
    taken = cv2.dilate(taken, np.ones((5, 5), np.uint8))
    count, labels, stats, centres = cv2.connectedComponentsWithStats((strength > threshold).astype(np.uint8))
    area = stats[:, cv2.CC_STAT_AREA]
    kept = (area >= _FAINT_AREA_SIDES[0] * side ** 2) & (area <= _FAINT_AREA_SIDES[1] * side ** 2)
    kept[0] = False
    kept[labels_at_edge(labels)] = False
    kept[np.unique(labels[taken > 0])] = False
    found = []
    for label in np.flatnonzero(kept):  # each looked for in its own box, not the whole photo
        x0, y0, w, h = stats[label, :4]
        ys, xs = np.nonzero(labels[y0:y0 + h, x0:x0 + w] == label)
        found.append(FaintStray((float(centres[label][0]), float(centres[label][1])),
                                np.column_stack([xs + x0, ys + y0]).astype(np.int32)))
    return found


def foreground(log_ratio: np.ndarray, strength: np.ndarray, table: np.ndarray, profile: Profile) -> np.ndarray:
    """Pixels that are not table (bool (H, W)), by hysteresis: regions whose ``strength``
    (float32 (H, W), the distance to the table's palette from ``colour.off_table``) is over
    ``foreground_threshold`` that hold some pixel ``foreground_strong_factor`` times as far.

    Paper, cards and glare are not pieces: they are brighter than the table in every channel,
    and near white, every channel above ``paper_fraction`` of the photo's brightest (the 99th
    percentile of the pixels' largest channel). Tinted plastic absorbs some channel, and a
    piece glowing over a dark table is brighter than the table but not near white. Grey
    things, every channel above ``grey_fraction`` of the brightest but not white, are kept
    only in patches no larger than ``grey_max_side`` typical pieces' sides squared: a glossy
    black piece reflecting the room on a dark table, not a card in shade. ``table`` is the
    float32 (H, W, 3) table estimate behind ``log_ratio``."""
    candidate = strength > profile.foreground_threshold
    passes_all, lowest, brightest = _whiteness(log_ratio, table, candidate, profile)
    grey = passes_all & (lowest >= profile.grey_fraction * brightest)
    white = passes_all & (lowest >= profile.paper_fraction * brightest)
    weak = _opened(candidate, ~grey)
    grey_patches = _opened(candidate, grey & ~white)
    count, patches = cv2.connectedComponents(grey_patches, connectivity=8)  # without stats: several times the speed
    if count > 1:  # the typical piece is measured only where there is grey to judge
        areas = np.bincount(patches.ravel(), minlength=count)
        small = areas <= (profile.grey_max_side * typical_piece_side(weak > 0)) ** 2
        small[0] = False
        weak |= small[patches].astype(np.uint8)
    count, regions = cv2.connectedComponents(weak, connectivity=8)
    strong = np.zeros(count, bool)
    strong[regions[strength > profile.foreground_strong_factor * profile.foreground_threshold]] = True
    strong[0] = False
    return strong[regions]


def _whiteness(log_ratio: np.ndarray, table: np.ndarray, where: np.ndarray,
               profile: Profile) -> tuple[np.ndarray, np.ndarray, float]:
    """What paper and grey are judged on, for the K pixels ``where`` (bool (H, W)): whether
    each passes light in every channel (its darkest log ratio above ``absorb_fraction`` of
    the foreground threshold below the table's) (K,) bool, its lowest channel's value in the
    photo (K,), and the photo's brightest (the 99th percentile of the pixels' largest channel,
    on a sample)."""
    # the photo's own values (plus the log's offset), on a sample and on the pixels asked only
    sample = np.exp(log_ratio[::4, ::4]) * table[::4, ::4]
    brightest = float(np.percentile(_largest_channel(sample), 99))
    ratios = pixels_where(log_ratio, where)
    lit = np.exp(ratios) * pixels_where(table, where)
    lowest = np.minimum(np.minimum(lit[:, 0], lit[:, 1]), lit[:, 2])
    darkest = np.minimum(np.minimum(ratios[:, 0], ratios[:, 1]), ratios[:, 2])
    return darkest >= -profile.absorb_fraction * profile.foreground_threshold, lowest, brightest


def _largest_channel(values: np.ndarray) -> np.ndarray:
    """(H, W) the largest of each pixel's three ``values`` ((H, W, 3)): channel by channel,
    twenty times the speed of ``values.max(axis=2)`` on a photo."""
    return np.maximum(np.maximum(values[..., 0], values[..., 1]), values[..., 2])


def _opened(where: np.ndarray, values: np.ndarray) -> np.ndarray:
    """uint8 (H, W) mask set to ``values`` (bool (K,)) at the K pixels of ``where`` (bool
    (H, W)), morphologically opened (3 x 3): lone pixels and threads dropped."""
    mask = np.zeros(where.shape, np.uint8)
    mask[where] = values
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def pixel_labels(log_ratio: np.ndarray, fg: np.ndarray, expected: np.ndarray, brightness_weight: np.ndarray,
                 window: int = 5) -> np.ndarray:
    """Colour index per pixel (int8 (H, W)): 0..4 in COLOR_ORDER (nearest of ``expected``,
    (5, 3) log ratios, each colour's brightness part weighted by ``brightness_weight`` (5,)
    as in :meth:`ColorModel.distance`, by majority in a ``window`` square), -1 where ``fg``
    is false."""
    out = np.full(fg.shape, -1, np.int8)
    if not fg.any():
        return out
    x, y, w, h = cv2.boundingRect(fg.view(np.uint8))  # only the box around the foreground
    margin = window // 2 + 1
    x0, y0 = max(x - margin, 0), max(y - margin, 0)
    box = (slice(y0, y + h + margin), slice(x0, x + w + margin))
    out[box] = _labels_in(log_ratio[box], fg[box], expected, brightness_weight, window)
    return out


def _labels_in(log_ratio: np.ndarray, fg: np.ndarray, expected: np.ndarray, brightness_weight: np.ndarray,
               window: int) -> np.ndarray:
    """:func:`pixel_labels` over the whole of its (h, w) inputs."""
    channels = [log_ratio[..., c] for c in range(3)]
    nearest = np.zeros(fg.shape, np.int8)
    best = None
    for k, e in enumerate(expected):  # running minimum: no (H, W, 5) stack
        residual = [channels[c] - np.float32(e[c]) for c in range(3)]
        dist = sum(r ** 2 for r in residual)
        if brightness_weight[k] != 1:  # the squares less (1 - weight) x the brightness part's
            dist -= np.float32((1 - brightness_weight[k]) / 3) * (residual[0] + residual[1] + residual[2]) ** 2
        if best is None:
            best = dist
        else:
            closer = dist < best
            nearest[closer] = k
            np.minimum(best, dist, out=best)
    labels = np.zeros(fg.shape, np.int8)
    most = None
    for k in range(len(COLOR_ORDER)):
        votes = cv2.boxFilter(((nearest == k) & fg).astype(np.float32), -1, (window, window))
        if most is None:
            most = votes
        else:
            labels[votes > most] = k
            np.maximum(most, votes, out=most)
    labels[~fg] = -1
    return labels


def find_blobs(log_ratio: np.ndarray, strength: np.ndarray, table: np.ndarray, profile: Profile,
               unlit_shadows: bool = False, cast_shadows: np.ndarray | None = None
               ) -> tuple[list[Blob], float, np.ndarray, np.ndarray, list[Blob]]:
    """Piece candidates of every colour, split where same-coloured pieces touch, the side in
    pixels of a typical piece, ``log_ratio`` without the table's sheen (float32 (H, W, 3),
    see below; the input itself where there is none), ``strength`` and the strays:
    candidates apart from the city (:func:`_main_cluster`), most of them things on the
    table, but a piece placed away from the others is among them too. ``log_ratio`` and
    ``table`` as from ``colour.table_relative``, ``strength`` as from ``colour.off_table``;
    both are returned with the things far wider than any piece (:func:`_side_and_outsized`:
    a mug, a hand) or round (:func:`vision.round_things.round_things`: a mug whose rim alone
    stands out), and ``_OUTSIZED_MARGIN_SIDE`` typical sides round them, taken for table (0),
    so that no later look reads them as pieces.

    Two passes: the colour-blind foreground regions first tell how this photo's table and
    light shifted all colours (one offset), and how much of the table's brightness from
    place to place the pieces do not share (:func:`classify.shading_slope`: a glossy table's
    sheen). Then that sheen is taken out, within the brightness range the regions span, and
    pixels are labelled with shifted prototypes. Where that shift says the pieces glow (more
    than ``glow_offset`` brighter than the table lets expect: light passing through tinted
    plastic over a dark table), pixels over ``glow_shadow_depth`` darker than the table in
    every channel are shadows, not pieces, and so are candidates labelled black that are
    darker than the table in every channel but tinted (:func:`_tinted_shadow`). Where the
    shift says they do not glow (it takes ``MIN_FOR_OFFSET`` regions to tell), a candidate
    of a tinted colour brighter than the table in every channel is glare (a lamp's halo on a
    glossy table looks blue against warm wood): tinted plastic absorbs some channel.
    Candidates on a rule card are its print, not pieces (:mod:`vision.cards`). A region too
    thin to be a piece is a candidate only round one of another colour (:func:`_rings`, with
    ``frame_min_share`` and ``frame_min_area``).

    With ``unlit_shadows``, the pixels brighter than the table in no channel are left out:
    where the pieces glow, they are shadows (a shadow, tinted or not, is the table with less
    light). A piece's face turned from the lamp can be as dim, so this is for a second
    reading (see :func:`vision.analyze`). The pixels of ``cast_shadows`` (bool (H, W), from
    :func:`vision.cast_shadows.cast_shadows`) are left out too.
    """
    fg = foreground(log_ratio, strength, table, profile)
    if cast_shadows is not None:
        fg &= ~cast_shadows
    glare = False  # whether a tinted candidate brighter than the table in every channel is glare
    glowing = False
    mean_table = cv2.mean(table, mask=(~fg).astype(np.uint8))[:3] if (~fg).any() else table.reshape(-1, 3).mean(axis=0)
    chroma = table_chroma(np.array(mean_table))
    expected = profile.colors.expected(chroma)[0]
    scale, outsized = _side_and_outsized(fg)
    outsized |= round_things(fg & ~outsized, scale, profile)  # a mug under twice as wide as the rest
    if outsized.any():  # a mug, a hand: taken for table, with the edges of its rim and shadow
        reach = 2 * int(_OUTSIZED_MARGIN_SIDE * scale) + 1
        outsized = cv2.dilate(outsized.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))) > 0
        fg &= ~outsized
        log_ratio = np.where(outsized[..., None], np.float32(0), log_ratio)
        strength = np.where(outsized, np.float32(0), strength)
    min_area = (profile.min_blob_side * scale) ** 2
    count, regions = cv2.connectedComponents(fg.astype(np.uint8), connectivity=4)
    flats = [flat for flat in _pixels_by_label(regions, count) if len(flat) >= min_area]
    level = table_level(table)
    if flats:
        pixels = log_ratio.reshape(-1, 3)
        medians = np.array([np.median(pixels.take(flat, axis=0), axis=0) for flat in flats])
        chromas = np.tile(chroma, (len(flats), 1))
        levels = np.array([float(level.reshape(-1).take(flat).mean()) for flat in flats])
        slope = shading_slope(medians, chromas, levels, profile.colors, profile.informative_above,
                              profile.shading_min_spread, profile.shading_slope_range)
        if slope:
            log_ratio = _without_sheen(log_ratio, level, levels, slope)
            medians -= slope * (levels - np.median(levels))[:, None]
        _, offset = classify_colors(medians, chromas, profile.colors, profile.informative_above)
        expected = expected + offset
        glowing = bool(offset[0] > profile.glow_offset)
        glare = not glowing and len(flats) >= MIN_FOR_OFFSET  # too few pieces tell no glow
        if glowing:  # the pieces glow: what is darker than the table is shadow
            fg = fg & (_largest_channel(log_ratio) > -profile.glow_shadow_depth)
    if unlit_shadows:
        fg = fg & (_largest_channel(log_ratio) > 0)
    labels = pixel_labels(log_ratio, fg, expected, profile.colors.brightness_weights(),
                          max(5, int(profile.label_window_side * scale) | 1))
    blobs: list[Blob] = []
    thin: list[Blob] = []
    for k in range(len(COLOR_ORDER)):
        mask = (labels == k).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        for region, radius, marked in _split_touching(mask, scale, profile.split_gap_side):
            if len(region) < min_area:
                continue
            xs, ys = region[:, 0], region[:, 1]
            feature = np.median(pixels_at(log_ratio, xs, ys), axis=0)
            if glare and k != BLACK and feature.min() > 0:
                continue  # tinted plastic absorbs some channel: brighter than the table in all is glare
            blob = Blob((float(xs.mean()), float(ys.mean())), region, feature, chroma, k, radius,
                        float(pixels_at(level, xs, ys).mean()))
            (blobs if marked else thin).append(blob)
            if len(blobs) > profile.max_raw_candidates:
                raise _too_busy(profile.max_raw_candidates)
    blobs += _rings(thin, blobs, profile.frame_min_share, profile.frame_min_area)
    merged = _merge_close(blobs, profile.merge_distance_side * scale, log_ratio, level)
    city = _main_cluster(merged, profile.cluster_reach_side * scale, profile.cluster_reach_neighbours,
                         (_MOST_PIECE_SIDES * scale) ** 2)
    in_city = {id(b) for b in city}
    strays = [b for b in merged if id(b) not in in_city]
    if glowing:  # after the clustering, which the shadows beside the pieces help hold together
        city = [b for b in city if not _tinted_shadow(b, profile.glow_shadow_tint)]
        strays = [b for b in strays if not _tinted_shadow(b, profile.glow_shadow_tint)]
    cards = card_outlines(_paper(log_ratio, strength, table, city, profile), scale, profile)
    city = [b for b in city if not on_card(b.center, cards)]
    strays = [b for b in strays if not on_card(b.center, cards)]
    if len(city) > profile.max_candidates:
        raise _too_busy(profile.max_candidates)
    return city, scale, log_ratio, strength, strays


def _paper(log_ratio: np.ndarray, strength: np.ndarray, table: np.ndarray, blobs: list[Blob],
           profile: Profile) -> np.ndarray:
    """bool (H, W): the pixels :func:`foreground` leaves out as paper (near white and brighter
    than the table in every channel), and not in ``blobs``."""
    where = strength > profile.foreground_threshold
    for blob in blobs:
        where[blob.pixels[:, 1], blob.pixels[:, 0]] = False
    passes_all, lowest, brightest = _whiteness(log_ratio, table, where, profile)
    paper = np.zeros(where.shape, bool)
    paper[where] = passes_all & (lowest >= profile.paper_fraction * brightest)
    return paper


def _tinted_shadow(blob: Blob, tint: float) -> bool:
    """Whether ``blob``, where the pieces glow, is the shadow of a tinted piece: labelled
    black, darker than the table in every channel, yet its channels' log ratios (its
    ``feature``) spread over more than ``tint``. The lamp's light reaches the table behind a
    tinted piece through the plastic, which passes its own colour. A glossy black piece
    reflects the room: against the table it is near grey, or brighter."""
    return blob.color_index == BLACK and float(blob.feature.max()) < 0 and float(np.ptp(blob.feature)) > tint


def _without_sheen(log_ratio: np.ndarray, level: np.ndarray, levels: np.ndarray, slope: float) -> np.ndarray:
    """``log_ratio`` (float32 (H, W, 3)) with ``slope`` times the table's log brightness
    ``level`` (float32 (H, W)) taken out, relative to the median of ``levels`` (the regions'),
    and clipped to their range: no correction is extrapolated beyond what the pieces show."""
    spanned = np.clip(level, levels.min(), levels.max()) - np.median(levels)
    return log_ratio - (slope * spanned).astype(np.float32)[..., None]


def _too_busy(count: int) -> BoardNotFound:
    return BoardNotFound(f"over {count} things stand out from the table, far more than a city holds; "
                         "a busy pattern? try a plain table or cloth")


def _main_cluster(blobs: list[Blob], reach: float, sparse_reach: float, most: float = np.inf) -> list[Blob]:
    """The group of candidates linked by gaps under ``reach`` pixels (or
    ``sparse_reach`` times the median distance between nearest candidates if longer: a sparse
    city, or one with gaps) with the most solid area (:attr:`Blob.solid_area`, each candidate's
    counted up to ``most`` pixels): the city. A rule card's print can break into more
    candidates than the city has, and into more pixels than a small city, but into thin
    lines; a hand or a sleeve reaching into the photo is one candidate as large as a city,
    but one. Candidates far from the city are things on the table that are not part of it."""
    if len(blobs) < 2:
        return blobs
    centers = np.array([b.center for b in blobs])
    dist = np.linalg.norm(centers[:, None] - centers[None], axis=2)
    np.fill_diagonal(dist, np.inf)
    reach = max(reach, sparse_reach * float(np.median(dist.min(axis=1))))
    groups = _linked_groups(dist < reach)
    areas = np.minimum([b.solid_area for b in blobs], most)
    return [blobs[i] for i in max(groups, key=lambda g: areas[g].sum())]


def _merge_close(blobs: list[Blob], distance: float, log_ratio: np.ndarray, level: np.ndarray) -> list[Blob]:
    """Merge same-coloured candidates whose centres are closer than ``distance`` pixels (and
    chains of them): one piece split in two by a highlight or an edge. ``level``: float32
    (H, W) log grey of the table (see :class:`Blob`)."""
    if len(blobs) < 2:
        return blobs
    centers = np.array([b.center for b in blobs])
    colors = np.array([b.color_index for b in blobs])
    close = (np.linalg.norm(centers[:, None] - centers[None], axis=2) < distance) & (colors[:, None] == colors[None])
    merged = []
    for group in _linked_groups(close):
        if len(group) == 1:
            merged.append(blobs[group[0]])
            continue
        pixels = np.vstack([blobs[i].pixels for i in group])
        feature = np.median(pixels_at(log_ratio, pixels[:, 0], pixels[:, 1]), axis=0)
        center = (float(pixels[:, 0].mean()), float(pixels[:, 1].mean()))
        merged.append(Blob(center, pixels, feature, blobs[group[0]].chroma, blobs[group[0]].color_index,
                           max(blobs[i].radius for i in group),
                           float(pixels_at(level, pixels[:, 0], pixels[:, 1]).mean())))
    return merged


def _linked_groups(linked: np.ndarray) -> list[list[int]]:
    """Connected groups of a symmetric (N, N) bool link matrix, each a sorted index list."""
    group = -np.ones(len(linked), int)
    for start in range(len(linked)):
        if group[start] >= 0:
            continue
        group[start] = start
        stack = [start]
        while stack:
            i = stack.pop()
            for j in np.flatnonzero(linked[i] & (group < 0)):
                group[j] = start
                stack.append(j)
    return [list(np.flatnonzero(group == g)) for g in np.unique(group)]


def outline_mask(shape: tuple[int, int], outline: np.ndarray) -> np.ndarray:
    """bool (H, W) mask of the convex ``outline`` ((K, 2) (x, y)), eroded by one pixel so
    that it holds the piece and not its edge."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(np.asarray(outline, np.float32)).astype(np.int32), 1)
    return cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0


def typical_piece_side(fg: np.ndarray) -> float:
    """Side in pixels of a typical piece among the regions of ``fg`` (bool (H, W)); see
    :func:`_side_and_outsized`."""
    return _side_and_outsized(fg)[0]


def _side_and_outsized(fg: np.ndarray) -> tuple[float, np.ndarray]:
    """Side in pixels of a typical piece: twice the typical distance-transform peak of the
    regions of ``fg`` (bool (H, W)) (a square of side s peaks at s / 2), which holds even
    where pieces touch. Typical by area: the median of the peaks weighted by the squares
    they stand for, so that specks of table texture, however many, do not set it.

    By area, one large thing would set it: a hand reaching in, a mug beside the city. So
    where one of the ``_OUTSIZED_MOST`` widest regions (by their widest peaks) is over
    ``_OUTSIZED`` times as wide as the next widest (which has a peak), it and those wider
    are left out if each runs off the photo or is one thing (:func:`_one_thing`: it covers
    at most a few discs as wide as its widest peak, and its peaks over half as wide lie near
    that one) and not four-sided (:func:`_four_sided`), and fills its convex hull
    (:func:`_fills_hull`). A large piece is under twice as wide as a small one, but with its
    shadow joined it can be over, where the city's other pieces do not stand out (black ones
    on a dark table): it is square, and a mug round. The city's pieces, joined to a mug or to
    one another by a cloth's print or by shadows, cover more than one thing. Returns the
    side and the regions left out (bool (H, W)): no piece is so wide, and they are no
    candidates.
    """
    fg = fg.astype(np.uint8)
    dist = cv2.distanceTransform(fg, cv2.DIST_L2, 3)
    ys, xs = np.nonzero((dist == cv2.dilate(dist, np.ones((7, 7), np.uint8))) & (dist >= 3))
    count, labels = cv2.connectedComponents(fg, connectivity=8)  # without stats: several times the speed
    values, regions = pixels_at(dist, xs, ys), pixels_at(labels, xs, ys)
    widest = np.zeros(count, np.float32)
    np.maximum.at(widest, regions, values)
    running_off = np.zeros(count, bool)
    running_off[labels_at_edge(labels)] = True
    order = np.argsort(widest)[::-1]
    outsized = np.zeros(count, bool)
    for k in range(min(_OUTSIZED_MOST, count - 2)):
        if widest[order[k]] > _OUTSIZED * widest[order[k + 1]] > 0:  # next to nothing, nothing is wide
            first = order[:k + 1]
            if all((running_off[r] or (_one_thing(xs, ys, values, regions == r, np.count_nonzero(labels == r))
                                       and not _four_sided(labels == r)))
                   and _fills_hull(labels == r) for r in first):
                outsized[first] = True
            break
    kept = ~outsized[regions]
    side = _weighted_median_side(values[kept], xs[kept], ys[kept])
    return side, (outsized[labels] if outsized.any() else np.zeros(labels.shape, bool))


def _one_thing(xs: np.ndarray, ys: np.ndarray, values: np.ndarray, mine: np.ndarray, area: int) -> bool:
    """Whether the region of ``area`` pixels whose distance-transform peaks, at (``xs``,
    ``ys``) of ``values`` (1-D, pixels), are those ``mine`` (bool) is one thing, not
    several: it covers at most ``_ONE_THING_AREA`` discs as wide as its widest peak, and its
    peaks over half as wide lie within ``_ONE_THING`` times its value of it."""
    widest = np.argmax(np.where(mine, values, -1))
    if area > _ONE_THING_AREA * np.pi * values[widest] ** 2:
        return False
    wide = mine & (values > values[widest] / 2)
    return bool(np.hypot(xs[wide] - xs[widest], ys[wide] - ys[widest]).max() <= _ONE_THING * values[widest])


def _fills_hull(region: np.ndarray) -> bool:
    """Whether ``region`` (bool (H, W)) fills at least ``_THING_FILL`` of its convex hull, as
    a mug or a hand does: pieces packed close and joined by their shadows leave bays round
    the city."""
    hull = cv2.convexHull(cv2.findNonZero(region.view(np.uint8)))
    return bool(np.count_nonzero(region) >= _THING_FILL * cv2.contourArea(hull))


def _four_sided(region: np.ndarray) -> bool:
    """Whether ``region`` (bool (H, W)) fills over ``_THING_QUADRILATERAL`` of the least
    four-sided figure round its convex hull, as a piece does with its shadow; a mug, round,
    fills about pi / 4 of it."""
    quadrilateral = least_quadrilateral(cv2.convexHull(cv2.findNonZero(region.view(np.uint8))))
    return quadrilateral is not None and bool(
        np.count_nonzero(region) > _THING_QUADRILATERAL * cv2.contourArea(quadrilateral))


def _weighted_median_side(peaks: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> float:
    """Twice the median of the distance-transform ``peaks`` (1-D, pixels) at (``xs``,
    ``ys``) (1-D, pixels), weighted by their squares; 8 pixels without peaks.

    Specks of a table's grain or print can be so many that they set it at a fraction of the
    pieces' side; the median weighted by the peaks' cubes counts them for less and is then
    over ``_SPECKS`` times as large. It is taken where it is the side of several things:
    ``_SPECKS_THINGS`` peaks near it lie apart (one wide thing, a mug joined to a card by its
    shadow, would set it alone)."""
    if not len(peaks):
        return 8.0
    ordered = np.sort(peaks).astype(np.float64)
    by_squares, by_cubes = (2 * ordered[np.searchsorted(weight, 0.5 * weight[-1])]
                            for weight in (np.cumsum(ordered ** 2), np.cumsum(ordered ** 3)))
    if by_cubes > _SPECKS * by_squares and _things_apart(peaks, xs, ys, by_cubes) >= _SPECKS_THINGS:
        return float(by_cubes)
    return float(by_squares)


def _things_apart(peaks: np.ndarray, xs: np.ndarray, ys: np.ndarray, side: float) -> int:
    """How many of the ``peaks`` (1-D, pixels) at (``xs``, ``ys``) at least ``_SPECKS_NEAR``
    of half of ``side`` (pixels) lie over ``_SPECKS_APART * side`` from one another, up to
    ``_SPECKS_THINGS``: taken widest first, each apart from those counted before."""
    near = np.flatnonzero(peaks >= _SPECKS_NEAR * side / 2)
    apart: list[int] = []
    for k in near[np.argsort(-peaks[near])]:
        if all(np.hypot(xs[k] - xs[j], ys[k] - ys[j]) > _SPECKS_APART * side for j in apart):
            apart.append(k)
            if len(apart) == _SPECKS_THINGS:
                break
    return len(apart)


def _split_touching(mask: np.ndarray, scale: float,
                    gap_side: float) -> list[tuple[np.ndarray, float, bool]]:
    """Connected regions of ``mask`` (uint8 (H, W)), split at distance-transform peaks at
    least ``gap_side * scale`` apart; each region as an (N, 2) int32 array of (x, y) with the
    radius of the largest disc inside it (pixels) and whether it holds a peak: a region too
    thin for one (under ``0.15 * scale`` from its middle to its edge) is returned whole,
    unmarked."""
    if not cv2.countNonZero(mask):
        return []
    x, y, w, h = cv2.boundingRect(mask)
    x0, y0 = max(x - 2, 0), max(y - 2, 0)
    crop = mask[y0:y + h + 2, x0:x + w + 2]
    # the 5x5 mask, not DIST_MASK_PRECISE: that one gave different results run to run
    dist = cv2.distanceTransform(crop, cv2.DIST_L2, cv2.DIST_MASK_5)
    gap = max(3, int(gap_side * scale))
    peaks = (dist == cv2.dilate(dist, np.ones((2 * gap + 1,) * 2, np.uint8))) & (dist >= 0.15 * scale)
    # peaks closer than half the gap are one piece's flat top: join them into one marker
    joined = cv2.dilate(peaks.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (gap | 1, gap | 1)))
    count, markers = cv2.connectedComponents(joined & crop, connectivity=8)
    if count > 1:
        markers = watershed(-dist, markers, mask=crop > 0, connectivity=1)
    unmarked, rest = cv2.connectedComponents(((markers == 0) & (crop > 0)).astype(np.uint8), connectivity=8)
    width = crop.shape[1]
    depth = dist.ravel()
    out = []
    for labelled, n, marked in ((markers, count, True), (rest, unmarked, False)):
        out += [(np.stack([flat % width + x0, flat // width + y0], axis=1).astype(np.int32), float(depth[flat].max()),
                 marked) for flat in _pixels_by_label(labelled, n) if len(flat)]
    return out


def _rings(thin: list[Blob], blobs: list[Blob], share: float, area: float) -> list[Blob]:
    """Of the ``thin`` candidates, those framing a candidate of another colour of ``blobs``,
    as a stack's lower piece frames the upper one: the frame's convex hull holds the
    candidate's centre and ``share`` of its pixels, and they cover at least ``area`` of the
    hull. A thread of a cloth's print can curve round a candidate's centre, but rarely round
    most of a candidate that fills its hull."""
    if not blobs:
        return []
    centers = np.array([b.center for b in blobs])
    colors = np.array([b.color_index for b in blobs])
    out = []
    for ring in thin:
        (x0, y0), (x1, y1) = ring.pixels.min(axis=0), ring.pixels.max(axis=0)
        near = np.flatnonzero((colors != ring.color_index) & (centers[:, 0] > x0) & (centers[:, 0] < x1)
                              & (centers[:, 1] > y0) & (centers[:, 1] < y1))
        if not len(near):
            continue
        inside = window_mask(cv2.convexHull(ring.pixels).reshape(-1, 2), (x0, y0, x1 + 1, y1 + 1))
        hull_area = np.count_nonzero(inside)
        for i in near:
            xs, ys = blobs[i].pixels[:, 0] - x0, blobs[i].pixels[:, 1] - y0
            within = (xs >= 0) & (xs <= x1 - x0) & (ys >= 0) & (ys <= y1 - y0)
            framed = np.count_nonzero(inside[ys[within], xs[within]])
            if framed >= share * blobs[i].area and framed >= area * hull_area:
                out.append(ring)
                break
    return out


def _pixels_by_label(labels: np.ndarray, count: int) -> list[np.ndarray]:
    """Flat pixel indices of each label 1..count-1 of ``labels`` (int (H, W)), in one sort
    instead of one full-image comparison per label."""
    flat = labels.ravel()
    labelled = np.flatnonzero(flat > 0)  # most of a photo is label 0: leave it out of the sort
    order = labelled[np.argsort(flat[labelled], kind="stable")]
    bounds = np.searchsorted(flat[order], np.arange(1, count + 1))
    return [order[bounds[k]:bounds[k + 1]] for k in range(count - 1)]
