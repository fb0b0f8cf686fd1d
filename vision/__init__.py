"""Vision: a phone photo of a Zoning Out city -> pieces on the game's grid.

    rgb = load_photo(data, profile.working_side)  # uint8 (H, W, 3) RGB, upright, working size
    detection = analyze(rgb, profile, rules=rules, variant=variant)  # Detection: pieces, grid,
                                                  # confidences, warnings (rules: the ids of those
                                                  # in play, variant: "standard" or "small-city",
                                                  # each None where not known)
    detection.city                                # scorer.City
    detection.to_json(rules, variant)             # the `citycam detect --json` object
    rgb, detection = read_photo(data, profile, rules, variant)  # both, read again at other
                                                  # sizes where the reading breaks the
                                                  # game's rules (variant: "standard" or
                                                  # "small-city"), and without a low
                                                  # lamp's shadows

Stages, one module each: load, colour (table-relative colour), pieces (candidates), cards
(what is printed on a rule card is not pieces), grid (lattice and camera), tilt (the camera's
tilt told by the pieces' ridges where the lattice cannot tell it), classify (colour
and size), cells (snapping to cells), edge_fit (each piece's outline laid on the photo's
edges: its size where a shadow or a lost face blurs what is seen of it), stacks (two colours
in a cell: a stack or not), verify (the reading checked against the photo), second_look (the
cells beside the city looked at again, for verify), faces (a stack told by the faces of its
lower piece, for verify), seat_line (a doubted stack told by its upper's rim, on the photo
at full size), look_alikes
(yellow from green, green from black and blue from black, told apart across the city),
shaded_like_black (a black piece on a doubted cell, told by its faces' shading on a plain table),
whole_set (a reading of about a whole set, read as the set: its kinds over and short tell
flagged pieces misread, or a piece missed beside the city), detection, overlay,
second_readings (readings of the photo at other sizes weighed by the game's rules),
cast_shadows (the shadows a low lamp casts, left out of a reading made again),
upper_colour (a stack's upper read green, read again against its lower piece: the two
tints mixed look green).
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import time
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from calibration import Profile, load_profile
from scorer import CANADIAN_STYLE, MIXED_USE

from .cast_shadows import cast_shadows
from .cells import read_pieces
from .colour import off_table_strength, plain_table, table_noise, table_palette, table_relative
from .detection import DetectedPiece, Detection, build_detection
from .edge_fit import EdgeTensor, edge_tensor
from .errors import BoardNotFound, PhotoError, VisionError
from .load import field_of_view, load_photo
from .look_alikes import tell_look_alikes
from .overlay import draw_overlay
from .pieces import Blob, FaintStray, faint_strays, find_blobs
from .second_readings import broken_rules, mark_disputed, mended_by_others
from .shaded_like_black import black_on_doubted_cells
from .upper_colour import read_over_lower
from .verify import check_reading
from .whole_set import as_whole_set

logger = logging.getLogger(__name__)

PATTERNED_TABLE_WARNING = ("the table looks patterned: pieces of its own colours can go unseen; "
                           "check the empty cells beside the city")

__all__ = ["read_photo", "analyze", "find_candidates", "Candidates", "load_photo", "draw_overlay", "Detection",
           "DetectedPiece", "VisionError", "PhotoError", "BoardNotFound"]


@dataclass(frozen=True)
class Candidates:
    """What stands out from the table in one photo, before any grid: ``blobs`` (the piece
    candidates, :class:`vision.pieces.Blob`), ``side`` (a typical piece's side in pixels),
    ``log_ratio`` (float32 (H, W, 3), the table's sheen taken out), ``strength`` (float32
    (H, W), how far each pixel stands out), ``table`` (float32 (H, W, 3) RGB estimate),
    ``plain`` (whether the table is plain, not printed), ``profile`` (as adjusted to the
    photo's grain) and ``strays`` (candidates apart from the city: a piece placed away from
    it, or things on the table; on a plain table the faint regions apart from the
    candidates as large as a piece too, :func:`vision.pieces.faint_strays`: a black piece
    placed away on a dim table)."""

    blobs: list[Blob]
    side: float
    log_ratio: np.ndarray
    strength: np.ndarray
    table: np.ndarray
    plain: bool
    profile: Profile
    strays: list[Blob | FaintStray]


def read_photo(data: bytes, profile: Profile | None = None, rules=None, variant: str | None = None
               ) -> tuple[np.ndarray, Detection]:
    """Decode the photo ``data`` (:func:`load_photo`) and read its city (:func:`analyze`).
    Returns the image the kept reading was made on (uint8 (H, W, 3) RGB: the detection's
    pixel coordinates are in it) and its :class:`Detection`.

    A reading can hang on the size the photo is worked at (small pieces, blurred outlines),
    and a misread city mostly breaks the game's rules, which a city as played mostly keeps.
    So the photo is read at ``profile.working_side``; where that reading breaks the rules
    (:func:`vision.second_readings.broken_rules`, under ``rules``, the ids of the special
    rules in play, or None where they are not known, and the supply of the ``variant``'s set,
    "standard" or "small-city", or None where it is not known) or is off a clear grid, it is
    read again at each of ``profile.second_reading_scales`` times that side in turn, until a
    reading costs nothing, leaves no empty cell where a piece may stand unseen
    (:attr:`Detection.doubtful_empty`: another size may find it) and changed no piece to fit
    a whole set (:attr:`Detection.guessed`: another size may read it plainly), and the
    reading that costs least is kept (of equals, the one whose pieces are surest on the
    whole, then the first).
    A reading costs the rules it breaks, and ``profile.second_reading_missed_cost`` for each
    piece fewer than another reading found: a reading that lost part of the city has less
    left to break them with; and ``profile.off_grid_cost`` where its pieces do not sit on a
    clear grid (:attr:`Detection.on_grid`: it has mostly collapsed onto a lattice that is not
    the city's). A city that truly breaks the rules is still read as it stands unless another
    size reads it at less cost. A piece of the kept reading of a kind beyond the supply is
    read as another reading reads it where that breaks fewer rules
    (:func:`vision.second_readings.mended_by_others`: one set holds no more). The kept
    reading's pieces on cells another reading reads otherwise are flagged, and the empty
    cells beside them where another reading reads a piece are doubted
    (:func:`vision.second_readings.mark_disputed`). The detection's
    ``seconds`` count every reading made, decoding included. Where the photo records its
    lens's field of view (:func:`vision.load.field_of_view`), the camera is modelled with it
    instead of ``profile.hfov_deg`` (a photo taken at 2x zoom sees the table at half the
    angle that profile assumes).

    Where the reading at ``profile.working_side`` did not settle the photo (it broke the
    rules, sat off a clear grid, left a cell in doubt or found no city, so other sizes were
    read; or it guessed pieces and another size's reading was kept), and where the lamp that
    best explains the darkness beside the kept reading's pieces is low
    (:func:`vision.cast_shadows.cast_shadows`; on a printed cloth, whose dark colours pass
    for shadow, the darkness is also told against the table across each piece, and the two
    lamps must agree), the photo is read again so, without the shadows that lamp casts, up to
    ``profile.cast_shadow_rounds`` times (each reading places them better; a reading of the
    same pieces as the one before is not made again), and the last reading is kept unless it
    reads under ``profile.cast_shadow_least_kept`` of the cells read before it (the faces of
    pieces the reading missed, black ones on a dark table, say, went with the shadows). A
    reading the working side settled is seldom mended so (``calibration/README.md``), and
    reading it again would double its time.

    Each reading is made knowing what the ``rules`` in play allow (see :func:`analyze`), and
    may ask for the photo decoded again at ``profile.detail_side``, once, for a closer look.

    Raises :class:`PhotoError` for data that is not a readable photo and
    :class:`BoardNotFound` where no reading finds a city.
    """
    profile = profile or load_profile()
    start = time.perf_counter()
    recorded = field_of_view(data)
    if recorded is not None:
        logger.info("the photo records a field of view of %.1f degrees", recorded)
        profile = dataclasses.replace(profile, hfov_deg=recorded)
    sizes: dict = {}  # each side read: its image and table view, for every round
    detail = functools.cache(functools.partial(load_photo, data, profile.detail_side))  # decoded if asked for
    rgb, detection, view, settled = _read_at_sizes(data, profile, rules, variant, sizes, detail)
    for _ in range(0 if settled else profile.cast_shadow_rounds):
        log_ratio, _, _, plain, _ = view
        shadows = cast_shadows(detection, log_ratio, profile, printed=not plain)
        if shadows is None:
            break
        logger.info("read again without the shadows a low lamp casts")
        try:
            again = _read_at_sizes(data, profile, rules, variant, sizes, detail, shadows)
        except BoardNotFound:
            break
        if _cells_read(again[1]) < profile.cast_shadow_least_kept * _cells_read(detection):
            logger.info("the pieces left out with the shadows: the reading with them is kept")
            break
        unchanged = again[1].city.pieces == detection.city.pieces
        rgb, detection, view, _ = again
        if unchanged:
            break  # the same pieces cast the same shadows
    return rgb, dataclasses.replace(detection, seconds=time.perf_counter() - start)


def _read_at_sizes(data: bytes, profile: Profile, rules, variant: str | None, sizes: dict,
                   detail: Callable[[], np.ndarray],
                   cast: np.ndarray | None = None) -> tuple[np.ndarray, Detection, tuple, bool]:
    """The image, :class:`Detection` and table view (see :func:`_table_view`) of the reading
    of ``data`` kept among those at the sizes :func:`read_photo` tries, the shadows ``cast``
    (bool (H, W), in any image size) left out of each where given, and whether it is the
    reading at the working side and settled the photo but for pieces it guessed (it cost
    nothing and left no cell in doubt); ``rules`` and ``variant`` as for :func:`read_photo`.
    ``sizes`` holds, for each long side asked for before, the image decoded at it and its
    table view (None until it is read), and takes those of the sides asked for now: a photo
    is decoded and its table seen once at each size, however many times it is read;
    ``detail`` gives it at a finer size, as for :func:`analyze`."""
    readings, not_found = [], None  # (image, detection, rules broken, view)

    def cost(reading) -> float:
        most = max(len(other[1].pieces) for other in readings)
        return (reading[2] + profile.second_reading_missed_cost * (most - len(reading[1].pieces))
                + profile.off_grid_cost * (not reading[1].on_grid))

    def settles(reading) -> bool:  # but for the pieces it guessed
        return cost(reading) == 0 and not reading[1].doubtful_empty

    for scale in (1.0, *profile.second_reading_scales):
        side = round(scale * profile.working_side)
        if side not in sizes:
            sizes[side] = load_photo(data, side), None
        rgb, view = sizes[side]
        if any(rgb.shape == other[0].shape for other in readings):
            continue  # a photo smaller than the side asked is not enlarged
        try:
            detection, view = _analyze(rgb, profile, cast, view, rules, variant, detail)
        except BoardNotFound as exc:
            not_found = not_found or exc
            continue
        sizes[side] = rgb, view
        readings.append((rgb, detection, broken_rules(detection, rules, variant), view))
        cheapest = min(readings, key=cost)
        if settles(cheapest) and not cheapest[1].guessed:
            break
        logger.info("the reading at %d pixels breaks %d rule(s) with %d pieces", max(rgb.shape[:2]),
                    readings[-1][2], len(detection.pieces))
    if not readings:
        raise not_found
    kept = min(readings, key=lambda reading: (cost(reading), -_mean_confidence(reading[1])))
    rgb, detection, _, view = kept
    settled = rgb is sizes[round(profile.working_side)][0] and settles(kept)
    others = [other[1] for other in readings if other[1] is not detection]
    detection = mended_by_others(detection, others, rules, variant)
    return rgb, mark_disputed(detection, others, profile.max_uncertain_confidence), view, settled


def _mean_confidence(detection: Detection) -> float:
    """The mean confidence of the pieces of ``detection`` (0 for none)."""
    return float(np.mean([p.confidence for p in detection.pieces])) if detection.pieces else 0.0


def analyze(rgb, profile: Profile | None = None, cast: np.ndarray | None = None, rules=None,
            variant: str | None = None, detail: Callable[[], np.ndarray] | None = None) -> Detection:
    """Read the city in ``rgb`` (uint8 (H, W, 3) RGB, as from :func:`load_photo`), the shadows
    ``cast`` (bool, in an image of any size: see :func:`vision.cast_shadows.cast_shadows`)
    left out of the candidates where given, under the special ``rules`` in play (their ids)
    and of the ``variant`` in play ("standard" or "small-city"), each None where not known.
    ``detail``, where given, returns the same photo at a finer size (uint8 (H, W, 3) RGB, as
    from :func:`load_photo` at ``profile.detail_side``), asked for only where a closer look
    may tell a stack (:func:`vision.faces.add_face_stacks`): the rim of an upper piece on a
    lower of its colour is a line the working size blurs.

    Where ``rules`` are given without Mixed-Use Development, the game in play allows no
    stack, and none is read where only the faces of a lower piece across a seat, the ring of
    one round a piece read, or a whole set's piece missing hint at one
    (:func:`vision.verify.check_reading`, :func:`vision.whole_set.as_whole_set`): most such
    hints are a single piece's shading. A stack is still read where its two colours are seen
    (one the player should not have made, for the scorer to flag). Where they hold it, the
    player may have stacked any piece: a stack is told by the faces of its lower piece at the
    lesser ``profile.stack_face_contrast_in_play``, and a piece whose faces differ by
    ``profile.stack_face_doubt_in_play`` is flagged for the player to check. Where they hold
    Canadian Style, two large pieces side by side cost the sizes read the lesser
    ``profile.large_pair_cost_in_play``, and a whole set's large piece missed may stand
    beside a large one: the player may have placed them so. Where the rules are not known,
    stacks are read from hints and larges side by side cost as other pairs. A reading of
    about a whole set is read as the ``variant``'s set, or as either where it is not known
    (:func:`vision.whole_set.as_whole_set`). On a plain table, a stack's upper read green on
    a tinted lower is read again against that lower piece, where blue or yellow may have mixed
    with the lower's tint (:func:`vision.upper_colour.read_over_lower`). On a table judged
    patterned, the detection warns that pieces of its own colours can go unseen
    (``PATTERNED_TABLE_WARNING``): there they pass for the print, and printed cloths hold
    half the errors of the benchmark's photos.

    Where the pieces look larger than their spacing leaves room for (the pitch they are
    modelled at is finer than the grid's: a low lamp's long shadows, labelled with the
    pieces, say), the photo is read again with the pixels brighter than the table in no
    channel left out (see :func:`vision.pieces.find_blobs`), and the reading whose two
    pitches agree better is kept; where the pieces do not glow (:func:`_glowing`), only if
    it keeps ``unlit_least_kept`` of the cells read first: a dark piece's faces turned from
    the lamp are as dim as a shadow, and leaving them out can lose whole pieces.

    Raises :class:`BoardNotFound` when no piece stands out from the table.
    """
    return _analyze(rgb, profile or load_profile(), cast, rules=rules, variant=variant, detail=detail)[0]


def _analyze(rgb, profile: Profile, cast: np.ndarray | None = None, view: tuple | None = None, rules=None,
             variant: str | None = None, detail: Callable[[], np.ndarray] | None = None) -> tuple[Detection, tuple]:
    """:func:`analyze`, and the table view (see :func:`_table_view`) it read ``rgb`` in:
    ``view`` where given (one made of ``rgb`` before, with ``profile`` and ``rules``)."""
    start = time.perf_counter()
    h, w = rgb.shape[:2]
    if cast is not None and cast.shape != (h, w):
        cast = cv2.resize(cast.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0
    view = view or _table_view(rgb, _under_rules(profile, rules))
    found = _candidates(view, cast=cast)
    edges = edge_tensor(rgb, _city_box(found))
    detection = _detect(rgb, view, found, edges, cast, rules, variant, detail)
    return dataclasses.replace(detection, seconds=time.perf_counter() - start), view


def _under_rules(profile: Profile, rules) -> Profile:
    """``profile`` as the special ``rules`` in play (ids, or None) adjust it (see
    :func:`analyze`)."""
    in_play = set(rules or ())
    if MIXED_USE in in_play:
        profile = dataclasses.replace(profile, stack_face_contrast=profile.stack_face_contrast_in_play,
                                      stack_face_doubt=profile.stack_face_doubt_in_play)
    if CANADIAN_STYLE in in_play:
        profile = dataclasses.replace(profile, large_pair_cost=profile.large_pair_cost_in_play)
    return profile


def _detect(rgb, view: tuple, found: Candidates, edges: EdgeTensor, cast: np.ndarray | None, rules,
            variant: str | None, detail: Callable[[], np.ndarray] | None) -> Detection:
    """The :class:`Detection` of the candidates ``found`` in ``rgb`` (see :func:`analyze`),
    in the table ``view`` (see :func:`_table_view`), without the shadows ``cast`` (bool
    (H, W)) where they are given; ``edges`` as for :func:`_read`; ``rules``, ``variant`` and
    ``detail`` as for :func:`analyze`."""
    h, w = rgb.shape[:2]
    stacks = rules is None or MIXED_USE in rules
    larges_touch = rules is not None and CANADIAN_STYLE in rules
    try:
        reading = _read(found, (w, h), edges)
        if reading.pitch_mm < reading.grid_pitch_mm:
            least_kept = 0.0 if _glowing(found, found.profile.unlit_glow_median) else found.profile.unlit_least_kept
            found, reading = _read_without_shadows(view, found, reading, (w, h), edges, least_kept, cast)
        reading = check_reading(reading, found.strength, found.log_ratio, found.blobs, found.plain,
                                float(np.mean(found.table[::8, ::8])), found.profile, found.strays, edges, stacks,
                                larges_touch, detail)
        reading = tell_look_alikes(reading, rgb, found.strength, found.profile)
        if found.plain:
            reading = black_on_doubted_cells(reading, found.log_ratio, edges, found.profile)
        reading = as_whole_set(reading, found.profile, edges, found.log_ratio if found.plain else found.strength,
                               stacks, larges_touch, variant, found.log_ratio)
        if found.plain:
            reading = read_over_lower(reading, found.log_ratio, found.table, found.profile)
    except np.linalg.LinAlgError:
        raise BoardNotFound("the pieces found do not sit on a grid; photograph the city from above") from None
    if not found.plain:
        reading = dataclasses.replace(reading, warnings=(*reading.warnings, PATTERNED_TABLE_WARNING))
    return build_detection(reading, (w, h), found.profile, 0.0)


def _read(found: Candidates, image_size: tuple[int, int], edges: EdgeTensor):
    """The :class:`vision.cells.CityReading` of ``found`` in an image of ``image_size`` (w, h),
    its pieces sized by the photo's ``edges`` too."""
    return read_pieces(found.blobs, image_size, 1.4 * found.side, found.plain, found.profile, edges)


def _city_box(found: Candidates) -> tuple[int, int, int, int]:
    """The window (x0, y0, x1, y1) round the candidates of ``found``, those apart from the
    city too (a piece placed away from the others is kept only where its outline has edges),
    with two typical pieces' sides to spare: a piece's outline may reach past what was seen
    of it, and a piece missed at first, beside the city, is sized by its edges too."""
    pixels = np.vstack([blob.pixels for blob in (*found.blobs, *found.strays)])
    margin = int(np.ceil(2 * found.side))
    x0, y0 = pixels.min(axis=0) - margin
    x1, y1 = pixels.max(axis=0) + margin + 1
    return int(x0), int(y0), int(x1), int(y1)


def _glowing(found: Candidates, glow_median: float) -> bool:
    """Whether the pieces glow (light through tinted plastic over a dark table): the median,
    over the candidates' pixels, of each pixel's brightest channel's log ratio is over
    ``glow_median``. A shadow is never brighter than the lit table; such a piece is."""
    pixels = np.vstack([blob.pixels for blob in found.blobs])
    return bool(np.median(found.log_ratio[pixels[:, 1], pixels[:, 0]].max(axis=1)) > glow_median)


def _read_without_shadows(view: tuple, found: Candidates, reading, image_size: tuple[int, int], edges: EdgeTensor,
                          least_kept: float, cast: np.ndarray | None):
    """``found`` and its ``reading``, or the candidates found in the table ``view`` (see
    :func:`_table_view`) without unlit pixels (nor those of the shadows ``cast``, where
    given) and their reading, whichever reading's outline pitch is nearer its grid pitch, the
    second only where it reads at least ``least_kept`` as many cells as the first;
    ``image_size`` is (w, h); ``edges`` as for :func:`_read`."""
    logger.info("pieces look larger than their spacing allows: read again without shadows")
    try:
        again = _candidates(view, unlit_shadows=True, cast=cast)
        second = _read(again, image_size, edges)
    except (VisionError, np.linalg.LinAlgError):
        return found, reading
    nearer = abs(np.log(second.pitch_mm / second.grid_pitch_mm)) < abs(np.log(reading.pitch_mm / reading.grid_pitch_mm))
    if nearer and _cells_read(second) >= least_kept * _cells_read(reading):
        return again, second
    return found, reading


def _cells_read(reading) -> int:
    """How many cells the :class:`vision.cells.CityReading` (or :class:`Detection`)
    ``reading`` has pieces on."""
    return len({(p.col, p.row) for p in reading.pieces})


def find_candidates(rgb, profile: Profile) -> Candidates:
    """The piece candidates in ``rgb`` (uint8 (H, W, 3) RGB) and what they were found with.

    Raises :class:`BoardNotFound` when no piece stands out from the table.
    """
    return _candidates(_table_view(rgb, profile))


def _table_view(rgb, profile: Profile) -> tuple:
    """What the candidates in ``rgb`` (uint8 (H, W, 3) RGB) are found from: the log ratio to
    the table (float32 (H, W, 3)), the table (float32 (H, W, 3) RGB), how far each pixel
    stands out (float32 (H, W)), whether the table is plain, and ``profile`` as adjusted to
    the photo's grain."""
    log_ratio, table = table_relative(rgb, profile)
    palette = table_palette(log_ratio, profile)
    plain = plain_table(palette, profile)
    if plain:  # on a printed cloth the print, not grain, makes the fine detail
        profile = _for_grain(profile, table_noise(log_ratio, profile))
    else:  # a print's colours, and the blends at their edges, each need an entry
        palette = table_palette(log_ratio, profile, profile.print_palette_size)
    return log_ratio, table, off_table_strength(log_ratio, palette, table, plain, profile), plain, profile


def _candidates(view: tuple, unlit_shadows: bool = False, cast: np.ndarray | None = None) -> Candidates:
    """:func:`find_candidates` in the table ``view`` (see :func:`_table_view`), the faint
    strays among the strays on a plain table (:func:`vision.pieces.faint_strays`, at
    ``unseen_threshold``: on a print its colours differ as much everywhere); ``unlit_shadows``
    and ``cast`` (its ``cast_shadows``): see :func:`vision.pieces.find_blobs`."""
    log_ratio, table, strength, plain, profile = view
    blobs, side, log_ratio, strength, strays = find_blobs(log_ratio, strength, table, profile, unlit_shadows, cast)
    if not blobs:
        raise BoardNotFound("no pieces found: is the whole city in the photo, on a plain table?")
    if plain:
        strays = [*strays, *faint_strays(strength, profile.unseen_threshold, [*blobs, *strays], side)]
    return Candidates(blobs, side, log_ratio, strength, table, plain, profile, strays)


def _for_grain(profile: Profile, noise: float) -> Profile:
    """``profile`` with its colour-difference thresholds raised to ``noise_factor`` times the
    photo's grain (:func:`vision.colour.table_noise`) where that is higher: on a dark table
    in dim light the sensor noise alone would otherwise stand out from the table."""
    floor = profile.noise_factor * noise
    return dataclasses.replace(profile, foreground_threshold=max(profile.foreground_threshold, floor),
                               unseen_threshold=max(profile.unseen_threshold, floor / 2))
