"""Table-relative colour: every pixel divided by the table colour around it.

Translucent pieces tint whatever table lies under them and one light falls on both, so the
log ratio ``log(pixel / table)`` removes most of the illuminant and of the table's own colour
(von Kries adaptation against the local table). The table colour under the city is filled in
from the visible table around it with a normalised (masked) Gaussian blur. Beyond the table's
edge (the floor, where the city stands near it), and over a smooth thing far wider than a
piece (a hand reaching into the photo, a mug), what is seen is taken for table.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration import Profile
from calibration.profile import BLACK

from ._lookup import pixels_where
from .table_edge import PRINT_BLUR, beyond_table

_SECTORS = 16  # angular sectors of the border ring, to tell a pattern from a thing lying there
_NEAR_PRINT = 0.1  # log units: a pixel this near a print colour is judged as that colour
_EPS = 4.0  # added to 8-bit values before the log: keeps dark noise from exploding
_KMEANS_ATTEMPTS = 5  # table palette k-means runs, the best kept: a print colour the palette misses
# stands out as pieces. With the best of two, 11 of 26 printed cloths' palettes differed at
# working sizes 1008 and 990; with five on half the samples seeding one on all, 8
_RIM_KERNEL = np.ones((3, 3), np.uint8)  # a region's rim: one pixel of the 1/8-size photo either side
_TABLE_SHARE = 0.5  # a part of the photo this large is the table itself, not a thing on it


def table_relative(rgb: np.ndarray, profile: Profile) -> tuple[np.ndarray, np.ndarray]:
    """Log ratio of each pixel to the local table colour.

    ``rgb``: uint8 (H, W, 3) RGB. Returns ``(log_ratio, table)``: float32 (H, W, 3) natural-log
    ratios (0 where the pixel looks like the table) and float32 (H, W, 3) estimated table RGB.
    Beyond the table's edge (:func:`vision.table_edge.beyond_table`), over a smooth thing far
    wider than a piece (:func:`_smooth_things`), and within three pixels of the 1/8-size
    photo of either on the table's side (where the step is blurred), the table is what is
    seen: its log ratio is 0.
    """
    f = rgb.astype(np.float32)
    f += _EPS
    h, w = f.shape[:2]
    # The table varies slowly: estimate it on a small copy (1/8 size), then scale it back up.
    shrink = 8
    small = cv2.resize(f, (max(1, w // shrink), max(1, h // shrink)), interpolation=cv2.INTER_AREA)
    sigma = profile.table_sigma_frac * max(h, w) / shrink
    beyond = beyond_table(small, profile)
    beyond |= _smooth_things(small, rgb, beyond, profile)
    surface = np.exp(_smooth_surface(np.log(small), beyond == 0))
    estimate = surface
    for _ in range(2):  # estimate, mask what is not table, re-estimate
        not_table = np.abs(np.log(small / estimate)).max(axis=2) > profile.table_threshold
        not_table = cv2.dilate((not_table | (beyond > 0)).astype(np.uint8), np.ones((3, 3), np.uint8))
        weight = 1.0 - not_table.astype(np.float32)
        num = cv2.GaussianBlur(small * weight[..., None], (0, 0), sigma)
        den = cv2.GaussianBlur(weight, (0, 0), sigma)[..., None]
        estimate = np.where(den > 0.05, num / np.maximum(den, 1e-6), surface).astype(np.float32)
    steepness = _steepness(small)
    estimate = _with_wide_shadows(small, estimate, steepness, profile, beyond)
    estimate = _with_wide_lights(small, estimate, steepness, profile, beyond)
    table = cv2.resize(estimate, (w, h), interpolation=cv2.INTER_LINEAR)
    if beyond.any():  # beyond the table's edge, and along it, what is seen is taken for table
        seen = cv2.resize(cv2.dilate(beyond, _RIM_KERNEL), (w, h), interpolation=cv2.INTER_NEAREST) > 0
        table[seen] = f[seen]
    return cv2.log(cv2.divide(f, table)), table  # OpenCV's: several times numpy's speed


def _block_texture(rgb: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The standard deviation of the grey level (0-255) of ``rgb`` (uint8 (H, W, 3)) over
    each pixel of its copy of ``shape`` (h, w), 1/8 of its size: a print's texture, which that
    copy averages away. Returns float32 (h, w)."""
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    size = (shape[1], shape[0])
    mean = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    return np.sqrt(np.maximum(cv2.resize(grey * grey, size, interpolation=cv2.INTER_AREA) - mean * mean, 0))


def _smooth_things(small: np.ndarray, rgb: np.ndarray, beyond: np.ndarray, profile: Profile) -> np.ndarray:
    """The smooth things in ``small`` (the photo ``rgb``, uint8 (H, W, 3), at 1/8 size,
    float32 (h, w, 3)) that are no table and far wider than a piece: a hand reaching in from
    the photo's edge, a mug. Returns uint8 (h, w), 0 or 1.

    Seen blurred by ``PRINT_BLUR`` (a print fades to one colour), such a thing differs from
    the table's median colour by over ``table_threshold`` and in hue, its channels by over
    ``shadow_chroma`` apart (a shadow or a lamp's light keeps the table's hue), and is at
    least ``shadow_min_width_frac`` of the photo's long side wide everywhere (pieces that
    touch are narrower). It covers less than ``_TABLE_SHARE`` of the photo, and is smoother
    than the table: its median texture (:func:`_block_texture`) is under
    ``intruder_smoothness`` of the rest's (a piece of tinted plastic shows the print through
    it). What lies ``beyond`` the table's edge (uint8 (h, w)) is left out. On a printed cloth,
    taken for table, a hand drew the fit of the table's falloff toward it (the fit's
    tolerance there is wide), and the print beside it stood out as pieces. On a plain table
    the fit leaves such a thing out, and it is found only where it is smoother than the
    table's grain or noise."""
    blurred = np.log(cv2.GaussianBlur(small, (0, 0), PRINT_BLUR))
    ratio = blurred - np.median(blurred[beyond == 0], axis=0)
    unlike = (np.abs(ratio).max(axis=2) > profile.table_threshold) \
        & (ratio.max(axis=2) - ratio.min(axis=2) > profile.shadow_chroma) & (beyond == 0)
    count, parts = cv2.connectedComponents(_wide(unlike, _shadow_side(small, profile)))
    things = np.zeros(beyond.shape, np.uint8)
    if count == 1:
        return things
    texture = _block_texture(rgb, beyond.shape)
    for label in range(1, count):
        part = parts == label
        if (part.mean() < _TABLE_SHARE
                and np.median(texture[part]) < profile.intruder_smoothness * np.median(texture[~part])):
            things[part] = 1
    return things


def _with_wide_shadows(small: np.ndarray, estimate: np.ndarray, steepness: np.ndarray,
                       profile: Profile, beyond: np.ndarray) -> np.ndarray:
    """``estimate`` (float32 (h, w, 3), the table behind ``small``, the photo at 1/8 size,
    whose :func:`_steepness` is ``steepness``) with the shadow of a large thing (the phone
    held over the city, the arm) taken as table.

    Such a shadow darkens the table alike in every channel (within ``shadow_chroma`` log
    units, by over ``table_threshold``). It is either at least ``shadow_min_width_frac`` of
    the photo's long side wide everywhere and reaches the photo's edge (or the table's, where
    the photo shows what lies ``beyond`` it: uint8 (h, w), from
    :func:`vision.table_edge.beyond_table`; that is no shadow), or half as wide and
    soft: at three in four of its rim pixels the log brightness changes by less than
    ``shadow_max_steepness`` per pixel of ``small`` (the arm's shadow, narrower and with a
    wide penumbra). A black piece is narrower or has a sharp edge. A shadow as wide that
    reaches the edge may also be tinted, the room's light being of another colour than the
    lamp's (:func:`_tinted_shadows`). In the shadow, the table is estimated again from its
    own pixels, those with colour (tinted pieces; in a tinted shadow, those of another tint)
    and those over ``shadow_depth`` darker than the shadow (a black piece lying in it) left
    out; without it, the pieces in the shadow would be measured against the lit table and the
    shadow itself read as pieces."""
    ratio = np.log(small / estimate)
    mean = ratio.mean(axis=2)
    neutral = (ratio.max(axis=2) - ratio.min(axis=2)) < profile.shadow_chroma
    dark = neutral & (mean < -profile.table_threshold) & (beyond == 0)
    side = _shadow_side(small, profile)
    parts, at_edge = _edge_parts(_wide(dark, side), beyond, side)
    shadows = np.isin(parts, at_edge).astype(np.uint8)
    tinted, shadow_tinted = _tinted_shadows(ratio, mean, side, profile, beyond)
    shadows |= tinted
    count, narrow = cv2.connectedComponents(_wide(dark, side // 2 | 1))
    for label in range(1, count):
        part = (narrow == label).astype(np.uint8)
        rim = _rim(part)
        if (rim.any() and np.median(mean[part > 0]) < -profile.table_threshold
                and np.percentile(steepness[rim], 75) < profile.shadow_max_steepness):
            shadows |= part
    if not shadows.any():
        return estimate
    level = float(np.median(mean[shadows > 0]))
    region = cv2.dilate(shadows, _disc(side)) > 0  # the shadow with its soft edge
    table = region & (neutral | shadow_tinted) & (mean > level - profile.shadow_depth)
    return _table_within(small, estimate, region, table, side)


def _edge_parts(mask: np.ndarray, beyond: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
    """The connected parts of ``mask`` (uint8 (h, w)): their labels (int32 (h, w)), and
    those of the parts that touch the image's edge, or come within ``side`` pixels of the
    table's (of what lies ``beyond`` it, uint8 (h, w): the table estimate is blurred along
    it) ((K,) ints)."""
    _, labels = cv2.connectedComponents(mask)
    touching = np.unique(labels[cv2.dilate(beyond, _disc(2 * side + 1)) > 0])
    return labels, np.union1d(labels_at_edge(labels), touching[touching > 0])


def labels_at_edge(labels: np.ndarray) -> np.ndarray:
    """The labels of ``labels`` (int (H, W), 0 for none) that touch the image's edge, sorted
    ((K,) ints)."""
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    return edge[edge > 0]


def _tinted_shadows(ratio: np.ndarray, mean: np.ndarray, side: int, profile: Profile,
                    beyond: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The wide shadows that reach the photo's edge (or the table's: what lies ``beyond`` it,
    uint8 (h, w), is no shadow) with one tint (uint8 (h, w), 0 or 1), and their pixels of
    that tint, with the soft edge round them (bool (h, w)). ``ratio``: float32 (h, w, 3), the
    log ratio of the photo at 1/8 size to the table; ``mean``: (h, w), its mean over the
    channels; ``side``: from :func:`_shadow_side`.

    Where the room's light differs in colour from the lamp's, a shadow darkens the channels
    unalike, but by the same proportions all over: a region at least ``side`` wide
    everywhere, over ``table_threshold`` darker than the table in its median, whose median
    tint spreads less than ``shadow_tint_chroma`` across the channels, and of whose pixels at
    least ``shadow_tint_share`` have that tint (their log ratios, less their mean, within
    ``shadow_chroma`` of the tint's; the shadow's depth varies over its penumbra). A cloth's
    dark print is as wide, but no darker than the table in its median; a group of tinted
    pieces has more colour."""
    shadows = np.zeros(mean.shape, np.uint8)
    alike = np.zeros(mean.shape, bool)
    parts, at_edge = _edge_parts(_wide((mean < -profile.table_threshold) & (beyond == 0), side), beyond, side)
    for label in at_edge:
        part = parts == label
        tint = np.median(ratio[part], axis=0)
        if tint.mean() > -profile.table_threshold or tint.max() - tint.min() > profile.shadow_tint_chroma:
            continue
        same = np.abs(ratio - mean[..., None] - (tint - tint.mean())).max(axis=2) < profile.shadow_chroma
        if np.count_nonzero(same & part) >= profile.shadow_tint_share * np.count_nonzero(part):
            shadows[part] = 1
            alike |= same & (cv2.dilate(part.astype(np.uint8), _disc(side)) > 0)
    return shadows, alike


def _with_wide_lights(small: np.ndarray, estimate: np.ndarray, steepness: np.ndarray,
                      profile: Profile, beyond: np.ndarray) -> np.ndarray:
    """``estimate`` (float32 (h, w, 3), the table behind ``small``, the photo at 1/8 size,
    whose :func:`_steepness` is ``steepness``) with a lamp's hot spot on a glossy table taken
    as table.

    Such a spot brightens the table alike in every channel (within ``shadow_chroma`` log
    units, by over ``table_threshold``), is at least ``shadow_min_width_frac`` of the photo's
    long side wide everywhere, and fades out: at its rim the log brightness changes by less
    than ``light_max_steepness`` per pixel of ``small`` (at nine rim pixels in ten). A card or
    a cloth's white print is as bright and wide, but has a sharp edge. In the spot the table
    is estimated again from its own neutral pixels; without it, the spot's bright ring,
    left out of the table estimate, reads as a ring of black pieces and can take the grid.
    What lies ``beyond`` the table's edge (uint8 (h, w), from
    :func:`vision.table_edge.beyond_table`) is no spot."""
    ratio = np.log(small / estimate)
    neutral = (ratio.max(axis=2) - ratio.min(axis=2)) < profile.shadow_chroma
    side = _shadow_side(small, profile)
    wide = _wide(neutral & (ratio.mean(axis=2) > profile.table_threshold) & (beyond == 0), side)
    if not wide.any():
        return estimate
    contours, _ = cv2.findContours(wide, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    lights = np.zeros_like(wide)
    for contour in contours:
        region = np.zeros_like(wide)
        cv2.drawContours(region, [contour], -1, 1, -1)
        rim = _rim(region)
        if rim.any() and np.percentile(steepness[rim], 90) < profile.light_max_steepness:
            lights |= region
    if not lights.any():
        return estimate
    region = cv2.dilate(lights, _disc(side)) > 0
    return _table_within(small, estimate, region, region & neutral, side)


def _shadow_side(small: np.ndarray, profile: Profile) -> int:
    """The width, odd and in pixels of ``small`` (the photo at 1/8 size), that a wide shadow
    or hot spot has everywhere: ``shadow_min_width_frac`` of its long side."""
    return max(3, int(profile.shadow_min_width_frac * max(small.shape[:2])) | 1)


def _disc(side: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))


def _wide(mask: np.ndarray, side: int) -> np.ndarray:
    """The parts of ``mask`` (bool (h, w)) at least ``side`` pixels wide everywhere, once
    gaps narrower than that are closed (uint8 (h, w), 0 or 1)."""
    disc = _disc(side)
    closed = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, disc)
    return cv2.morphologyEx(closed, cv2.MORPH_OPEN, disc)


def _steepness(small: np.ndarray) -> np.ndarray:
    """How fast the log brightness of ``small`` (float32 (h, w, 3)) changes, in log units
    per pixel (float32 (h, w)); the Sobel kernels weigh eight pixels' differences."""
    brightness = np.log(small.mean(axis=2))
    return cv2.magnitude(cv2.Sobel(brightness, cv2.CV_32F, 1, 0), cv2.Sobel(brightness, cv2.CV_32F, 0, 1)) / 8


def _rim(region: np.ndarray) -> np.ndarray:
    """The pixels within one of the edge of ``region`` (uint8 (h, w), 0 or 1), either side
    (bool (h, w))."""
    return (cv2.dilate(region, _RIM_KERNEL) > 0) & (cv2.erode(region, _RIM_KERNEL) == 0)


def _table_within(small: np.ndarray, estimate: np.ndarray, region: np.ndarray, table: np.ndarray,
                  side: int) -> np.ndarray:
    """``estimate`` (float32 (h, w, 3)) with the table in ``region`` (bool (h, w)) estimated
    again from ``small``'s pixels that are ``table`` (bool (h, w)), blurred over a quarter of
    ``side`` pixels."""
    weight = table.astype(np.float32)
    sigma = side / 4
    num = cv2.GaussianBlur(small * weight[..., None], (0, 0), sigma)
    den = cv2.GaussianBlur(weight, (0, 0), sigma)[..., None]
    inside = region[..., None] & (den > 0.05)
    return np.where(inside, num / np.maximum(den, 1e-6), estimate).astype(np.float32)


def _smooth_surface(log_image: np.ndarray, table: np.ndarray, degree: int = 4, rounds: int = 6) -> np.ndarray:
    """A smooth fit of the table's light falloff: a polynomial of ``degree`` in (x, y) per
    channel, fitted to the pixels of ``log_image`` (float32 (h, w, 3)) that may be ``table``
    (bool (h, w): not beyond its edge) by iteratively reweighted least squares (Tukey's
    biweight on the largest channel residual), so that pieces and other compact things barely
    pull it. A spotlight or vignette is near quadratic in log units. Returns float32 (h, w, 3)."""
    h, w = log_image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    u, v = (2 * xs.ravel() / max(w - 1, 1) - 1), (2 * ys.ravel() / max(h - 1, 1) - 1)
    u_powers, v_powers = [np.ones_like(u)], [np.ones_like(v)]
    for _ in range(degree):  # by products: float powers are slow
        u_powers.append(u_powers[-1] * u)
        v_powers.append(v_powers[-1] * v)
    basis = np.stack([u_powers[i] * v_powers[j] for i in range(degree + 1) for j in range(degree + 1 - i)], axis=1)
    values = log_image.reshape(-1, 3).astype(np.float64)
    table = table.ravel()
    weights = table.astype(np.float64)
    for _ in range(rounds):  # normal equations: the basis is small and well conditioned on [-1, 1]
        weighted = basis.T * weights
        coef = np.linalg.solve(weighted @ basis + 1e-9 * np.eye(basis.shape[1]), weighted @ values)
        residual = np.abs(values - basis @ coef)
        residual = np.maximum(np.maximum(residual[:, 0], residual[:, 1]), residual[:, 2])
        spread = 4.685 * max(1.4826 * np.median(residual[table]), 0.02)
        weights = np.clip(1 - (residual / spread) ** 2, 0, None) ** 2 * table
    return (basis @ coef).reshape(h, w, 3).astype(np.float32)


def table_palette(log_ratio: np.ndarray, profile: Profile, size: int | None = None) -> np.ndarray:
    """The table's own colours relative to its local mean: (K, 3) float32 log ratios, the
    ``size`` (default ``table_palette_size``) k-means centres of the border ring (where only
    table is expected), less what :func:`table_relative` took for table as it is seen (its
    log ratio exactly 0: a floor, a hand), where some of the ring shows the table. A plain
    table gives centres near 0; a patterned cloth gives one centre per colour of its
    pattern. A pattern runs all round the ring; a colour seen in under
    ``table_palette_spread`` of the ring's sectors that show the table is a thing lying there
    (a card), and its centre is dropped."""
    h, w = log_ratio.shape[:2]
    ring = _border_ring(log_ratio, profile)
    shows = _shows_table(ring)
    kept = np.flatnonzero(shows) if shows.any() and not shows.all() else np.arange(len(ring))
    kept = kept[::max(1, len(kept) // 20000)]  # the pixels sampled, by their index in the ring
    sample = np.ascontiguousarray(ring[kept], dtype=np.float32)
    # their coordinates (the ring of broadcast views: no full-image index arrays) and sectors
    ys = _border_ring(np.broadcast_to(np.arange(h, dtype=np.float32)[:, None], (h, w)), profile)[kept]
    xs = _border_ring(np.broadcast_to(np.arange(w, dtype=np.float32)[None, :], (h, w)), profile)[kept]
    sectors = ((np.arctan2(ys - h / 2, xs - w / 2) + np.pi) / (2 * np.pi) * _SECTORS).astype(np.int32)
    sectors = np.minimum(sectors, _SECTORS - 1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1e-3)
    cv2.setRNGSeed(1)  # k-means seeding must not make two runs on one photo differ
    k = size or profile.table_palette_size
    # the best of several runs on every other sample starts one run on them all
    _, _, starts = cv2.kmeans(np.ascontiguousarray(sample[::2]), k, None, criteria, _KMEANS_ATTEMPTS,
                              cv2.KMEANS_PP_CENTERS)
    nearest = np.argmin(((sample[:, None, :] - starts[None]) ** 2).sum(axis=2), axis=1).astype(np.int32)
    _, labels, centres = cv2.kmeans(sample, k, nearest[:, None], criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    counts = np.bincount(labels.ravel() * _SECTORS + sectors, minlength=len(centres) * _SECTORS)
    counts = counts.reshape(len(centres), _SECTORS).astype(np.float64)
    seen = counts.sum(axis=0, keepdims=True)
    spread = (counts >= 0.01 * np.maximum(seen, 1)).sum(axis=1) / max(1, int((seen > 0).sum()))
    return centres[(spread >= profile.table_palette_spread) | (counts.sum(axis=1) == counts.sum(axis=1).max())]


def table_noise(log_ratio: np.ndarray, profile: Profile, block: int = 16) -> float:
    """How grainy the photo is where only table is expected: the median absolute difference
    between each pixel's log ratio (float32 (H, W, 3)) and its 3x3 mean (largest channel),
    per ``block``-pixel square of the border ring wholly showing the table (not taken for
    table as it is seen, as :func:`table_palette` says); the 20th percentile of the squares,
    so that the edges of a cloth's print (absent from some squares) do not count as grain.
    0 where no square shows the table."""
    h, w = log_ratio.shape[:2]
    m = max(block, int(profile.ring_frac * min(h, w)))
    medians = []
    for strip in (log_ratio[:m], log_ratio[-m:], log_ratio[m:-m, :m].transpose(1, 0, 2),
                  log_ratio[m:-m, -m:].transpose(1, 0, 2)):
        strip = np.ascontiguousarray(strip)
        high = np.abs(strip - cv2.blur(strip, (3, 3)))
        shows = _shows_table(strip)
        strip = np.maximum(np.maximum(high[..., 0], high[..., 1]), high[..., 2])
        rows, cols = strip.shape[0] // block * block, strip.shape[1] // block * block
        tiles = strip[:rows, :cols].reshape(rows // block, block, cols // block, block).transpose(0, 2, 1, 3)
        tiles = tiles.reshape(-1, block * block)
        if not shows.all():  # the squares wholly showing the table
            whole = shows[:rows, :cols].reshape(rows // block, block, cols // block, block).all(axis=(1, 3))
            tiles = tiles[whole.ravel()]
        medians.append(np.median(tiles, axis=1))
    medians = np.concatenate(medians)
    return float(np.percentile(medians, 20)) if len(medians) else 0.0


def plain_table(palette: np.ndarray, profile: Profile) -> bool:
    """Whether the table has no pattern: all colours of its ``palette`` ((K, 3) log ratios,
    from :func:`table_palette`) within ``foreground_threshold`` of each other, as a plain
    table's light and grain give; a cloth's print gives colours farther apart."""
    spread = np.abs(palette[:, None, :] - palette[None, :, :]).max() if len(palette) else 0.0
    return bool(spread < profile.foreground_threshold)


def _shows_table(log_ratio: np.ndarray) -> np.ndarray:
    """bool (...) of whether each pixel of ``log_ratio`` (float32 (..., 3)) shows the table:
    where :func:`table_relative` took what is seen for table (beyond its edge, over a smooth
    thing on it), the log ratio is exactly 0, and tells nothing of the table's colours."""
    # channel by channel: four times the speed of .any(axis=-1)
    return (log_ratio[..., 0] != 0) | (log_ratio[..., 1] != 0) | (log_ratio[..., 2] != 0)


def _border_ring(image: np.ndarray, profile: Profile) -> np.ndarray:
    """(N, ...) pixels of the border ring, ``ring_frac`` of the short side wide, where only
    table is expected: top rows, bottom rows, then the left and right columns between."""
    h, w = image.shape[:2]
    m = max(1, int(profile.ring_frac * min(h, w)))
    tail = image.shape[2:]
    return np.concatenate([image[:m].reshape(-1, *tail), image[-m:].reshape(-1, *tail),
                           image[m:-m, :m].reshape(-1, *tail), image[m:-m, -m:].reshape(-1, *tail)])


def off_table(log_ratio: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """How far each pixel is from the nearest table colour: float32 (H, W), the largest
    channel difference (log units) to the closest palette entry."""
    out = np.full(log_ratio.shape[:2], np.inf, np.float32)
    channels = [log_ratio[..., c] for c in range(3)]
    for centre in palette:
        np.minimum(out, _channel_distance(channels, centre), out=out)
    return out


def off_table_strength(log_ratio: np.ndarray, palette: np.ndarray, table: np.ndarray, plain: bool,
                       profile: Profile) -> np.ndarray:
    """How strongly each pixel stands out from the table: float32 (H, W), its distance to the
    table's ``palette`` (:func:`off_table`); on a printed table (not ``plain``) at least the
    :func:`tint_evidence` of the translucent colours, scaled so that ``tint_margin`` of it
    counts as ``foreground_threshold``. ``log_ratio`` and ``table``: float32 (H, W, 3) from
    :func:`table_relative`."""
    if plain:
        return off_table(log_ratio, palette)
    expected = profile.colors.expected(table_chroma(table.reshape(-1, 3).mean(axis=0)))[0]
    tints = np.delete(expected, BLACK, axis=0)  # glossy black is opaque: the translucent colours
    evidence, bare = _tint_evidence(log_ratio, palette, tints, profile.tint_window, profile.tint_brightness_range)
    return np.maximum(bare, evidence * np.float32(profile.foreground_threshold / profile.tint_margin))


def tint_evidence(log_ratio: np.ndarray, palette: np.ndarray, tints: np.ndarray, window: int,
                  brightness_range: float) -> np.ndarray:
    """How much better the table's print seen through tinted plastic explains each pixel's
    neighbourhood than the bare print: float32 (H, W), the mean over a ``window`` square of
    (distance to the nearest ``palette`` colour, as in :func:`off_table`) minus (the same
    distance to the palette colours shifted by one of ``tints``, each free to be up to
    ``brightness_range`` brighter or darker alike in every channel: how the light on the
    pieces differs from that on the table is not known yet). ``log_ratio``: float32 (H, W,
    3); ``palette``: (K, 3) from :func:`table_palette`; ``tints``: (T, 3) log ratios of the
    translucent pieces' colours.

    A tinted piece multiplies whatever print lies under it by its tint: over a print that
    holds its own colour (blue pieces on a blue check) its pixels are near some print
    colour, but nearer still to a tinted one. Negative on the bare table.

    Both distances change by at most as much as the pixel does, so for a pixel within
    ``_NEAR_PRINT`` of a print colour the second is taken as that print colour's own."""
    return _tint_evidence(log_ratio, palette, tints, window, brightness_range)[0]


def _tint_evidence(log_ratio, palette, tints, window, brightness_range) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tint_evidence` and :func:`off_table` (both float32 (H, W)), found together."""
    palette = np.asarray(palette, np.float32)
    tinted = (palette[:, None, :] + np.asarray(tints, np.float32)[None]).reshape(-1, 3)
    bare, nearest = _nearest_entry(log_ratio, palette)
    far = bare >= _NEAR_PRINT
    through_tint = _shifted_distance(palette, tinted, brightness_range)[nearest]
    through_tint[far] = _shifted_distance(pixels_where(log_ratio, far), tinted, brightness_range)
    return cv2.blur(bare - through_tint, (window, window)), bare


def _nearest_entry(log_ratio: np.ndarray, entries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`off_table` to ``entries`` ((K, 3) log ratios) and the index (int8 (H, W)) of
    the nearest entry."""
    best = np.full(log_ratio.shape[:2], np.inf, np.float32)
    index = np.zeros(log_ratio.shape[:2], np.int8)
    channels = [log_ratio[..., c] for c in range(3)]
    for k, entry in enumerate(entries):
        far = _channel_distance(channels, entry)
        index[far < best] = k
        np.minimum(best, far, out=best)
    return best, index


def _channel_distance(channels: list[np.ndarray], entry: np.ndarray) -> np.ndarray:
    """Largest channel difference (float32 (H, W)) between three channels (each (H, W))
    and one colour ``entry`` (3,)."""
    return np.maximum(np.maximum(np.abs(channels[0] - entry[0]), np.abs(channels[1] - entry[1])),
                      np.abs(channels[2] - entry[2]))


def _shifted_distance(values: np.ndarray, entries: np.ndarray, brightness_range: float) -> np.ndarray:
    """Distance (N,) float32 from each of ``values`` ((N, 3) log ratios) to the nearest of
    ``entries`` ((M, 3)) shifted alike in every channel by up to ``brightness_range``: the
    largest channel difference after the best such shift."""
    channels = [np.ascontiguousarray(values[:, c], dtype=np.float32) for c in range(3)]
    best = np.full(len(values), np.inf, np.float32)
    for entry in entries:
        residual = [channels[c] - np.float32(entry[c]) for c in range(3)]
        high = np.maximum(np.maximum(residual[0], residual[1]), residual[2])
        low = np.minimum(np.minimum(residual[0], residual[1]), residual[2])
        shift = np.clip((high + low) * np.float32(0.5), -brightness_range, brightness_range)
        np.minimum(best, np.maximum(high - shift, shift - low), out=best)
    return best


def table_level(table: np.ndarray) -> np.ndarray:
    """float32 (H, W) log grey of the table estimate ``table`` (float32 (H, W, 3) RGB)."""
    return cv2.log(cv2.cvtColor(table, cv2.COLOR_RGB2GRAY))


def table_chroma(table_rgb: np.ndarray) -> np.ndarray:
    """Chromaticity of a table colour: (3,) log RGB minus its mean, float64."""
    return log_chroma(np.log(np.asarray(table_rgb, dtype=np.float64).reshape(-1, 3).mean(axis=0)))


def log_chroma(values: np.ndarray) -> np.ndarray:
    """The chroma of log ratios ``values`` ((..., 3) -> (..., 3), float): each less its mean
    over the channels, so that a change of brightness alone leaves it as it is."""
    return values - values.mean(axis=-1, keepdims=True)
