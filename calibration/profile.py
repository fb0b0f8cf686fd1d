"""Vision profiles: every tunable number of the pipeline, versioned in a JSON file.

A profile is loaded into frozen dataclasses and passed explicitly to ``vision.analyze``.
``load_profile(None)`` gives the bundled default; a name loads ``profiles/NAME.json``;
anything with a path separator or ``.json`` suffix is read as a file.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from scorer import COLORS

logger = logging.getLogger(__name__)

PROFILE_DIR = Path(__file__).parent / "profiles"
FORMAT_VERSION = 1
COLOR_ORDER = COLORS  # the scorer's colour order indexes every colour array in vision
BLACK = COLOR_ORDER.index("black")  # the opaque colour: glossy black shows what it reflects, not the table
_DEPTH_STEPS = np.linspace(-2.5, 2.5, 21)  # the log depths a tint is tried at, in units of its spread


class ProfileError(ValueError):
    """A profile is missing or malformed; the message says which and why."""


@dataclass(frozen=True)
class ColorModel:
    """Piece colours in table-relative log-ratio space (see ``vision.colour``).

    A piece's feature is modelled as ``prototypes[colour] + table_gain @ table_chroma``;
    ``spread`` is the typical distance of a piece from its prototype (log units). A
    feature's distance from a prototype counts its brightness part (along (1, 1, 1)) times
    ``brightness_weight[colour]``: glossy black shows what it reflects, from near black to
    grey, so its brightness tells less than a tinted piece's.
    """

    prototypes: dict[str, tuple[float, float, float]]
    table_gain: tuple[tuple[float, float, float], ...]
    spread: float
    brightness_weight: dict[str, float]

    def distance(self, residual: np.ndarray) -> np.ndarray:
        """Distances (..., 5) of residuals (..., 5, 3) from each colour's prototype (feature
        minus expected, COLOR_ORDER): the chroma part in full, the brightness part weighted."""
        residual = np.asarray(residual, np.float64)
        brightness = residual.mean(axis=-1)
        chroma = residual - brightness[..., None]
        return np.sqrt((chroma ** 2).sum(axis=-1) + 3 * self.brightness_weights() * brightness ** 2)

    def brightness_weights(self) -> np.ndarray:
        """(5,) float64 ``brightness_weight`` in COLOR_ORDER."""
        return np.array([self.brightness_weight[c] for c in COLOR_ORDER], dtype=np.float64)

    def prototype_array(self) -> np.ndarray:
        """(5, 3) float64 prototypes in COLOR_ORDER."""
        return np.array([self.prototypes[c] for c in COLOR_ORDER], dtype=np.float64)

    def expected(self, chromas: np.ndarray) -> np.ndarray:
        """(N, 5, 3) float64 feature expected of each colour (COLOR_ORDER) over tables of
        ``chromas`` ((N, 3) table chroma, or one (3,))."""
        chromas = np.asarray(chromas, np.float64).reshape(-1, 3)
        return self.prototype_array()[None] + (chromas @ np.array(self.table_gain).T)[:, None, :]


@dataclass(frozen=True)
class PieceColorModel:
    """How a whole piece's colour is read on a plain table (see ``vision.cells``).

    A piece's feature (its candidate's median table-relative log ratio, less the photo's
    shared offset, (3,)) is modelled per colour as Gaussian: its mean linear in the table it
    stands on, ``coefficients[colour].T @ (1, table chroma (3), table level)``, with
    ``covariance[colour]`` (3, 3). The table level is the log of the table's grey under the
    piece: on a dark table the camera's dark floor lifts the channels a tint absorbs, and
    glossy black shows more of its surroundings. A full covariance per colour follows how each
    colour actually varies (black from near black to grey, a tint along its own hue).
    ``outlier_cost`` is the cost (on the scale of :meth:`costs`) of "none of these colours":
    a candidate that fits no colour well (a shadow, two tints mixed, a stack seen from above)
    has the confidence of its colour lowered, so that the player is asked to check it.
    A tinted piece can look brighter than its colour's mean in every channel alike (light
    through the plastic, a lamp close by): such a lift, in log units, is taken off before its
    cost is measured and costs as a Gaussian of spread ``brighter_spread`` (0: none). Only a
    lift: a tint darker than its mean all over is what black looks like, and black, told by
    its darkness, is never lifted.
    Another maker's plastic, or a thicker wall, holds more or less dye: the light it absorbs
    from the table's goes as the dye it passes (Beer-Lambert), so each channel a tint darkens
    (its mean log ratio to the table, the photo's offset put back, under 0) may be darkened
    by a depth d times as much, log d costing as a Gaussian of spread ``tint_depth_spread``
    (0: none); a channel brighter than the table (light the plastic sends back over a dark
    one) is not absorption and is kept. Black is opaque and has no depth.
    """

    coefficients: dict[str, tuple[tuple[float, float, float], ...]]
    covariance: dict[str, tuple[tuple[float, float, float], ...]]
    outlier_cost: float
    brighter_spread: float
    tint_depth_spread: float = 0.0

    def costs(self, features: np.ndarray, chromas: np.ndarray, levels: np.ndarray,
              offsets: np.ndarray | None = None) -> np.ndarray:
        """(N, 5) float64 negative log likelihood of each colour (COLOR_ORDER), up to a shared
        constant, for ``features`` (N, 3), ``chromas`` (N, 3) and ``levels`` (N,). Where the
        photos' ``offsets`` ((N, 3) or (3,), taken off the features) are given, each tinted
        colour may be deeper or paler than its mean (see :attr:`tint_depth_spread`)."""
        features = np.asarray(features, np.float64).reshape(-1, 3)
        regressors = self.regressors(chromas, levels)
        coefficients = np.array([self.coefficients[c] for c in COLOR_ORDER])  # (5, 5, 3)
        covariance = np.array([self.covariance[c] for c in COLOR_ORDER])  # (5, 3, 3)
        means = np.einsum("nk,ckj->ncj", regressors, coefficients)  # (N, 5, 3)
        inverse = np.linalg.inv(covariance)
        constant = 0.5 * np.log(np.linalg.det(covariance))[None]
        if offsets is None or self.tint_depth_spread <= 0:
            return self._residual_costs(features[:, None, :] - means, inverse) + constant
        seen = means + np.broadcast_to(np.asarray(offsets, np.float64), features.shape)[:, None, :]  # to the table
        tinted = np.arange(len(COLOR_ORDER)) != BLACK
        absorbed = np.where(tinted[None, :, None] & (seen < 0), seen, 0.0)
        best = None
        for log_depth in _DEPTH_STEPS * self.tint_depth_spread:
            costs = self._residual_costs(features[:, None, :] - means - absorbed * (np.exp(log_depth) - 1), inverse)
            costs += tinted * 0.5 * (log_depth / self.tint_depth_spread) ** 2
            best = costs if best is None else np.minimum(best, costs)
        return best + constant

    def _residual_costs(self, residual: np.ndarray, inverse: np.ndarray) -> np.ndarray:
        """(N, 5) half the Mahalanobis distance of each ``residual`` (N, 5, 3) (feature less
        each colour's mean) in units of each colour's ``inverse`` covariance (5, 3, 3), a
        tinted colour's brighter lift (:meth:`_lifts`) taken off and costed."""
        lift = self._lifts(residual, inverse)
        residual = residual - lift[..., None]
        mahalanobis = np.einsum("nci,cij,ncj->nc", residual, inverse, residual)
        lift_cost = 0.0 if self.brighter_spread <= 0 else (lift / self.brighter_spread) ** 2
        return 0.5 * (mahalanobis + lift_cost)

    def _lifts(self, residual: np.ndarray, inverse: np.ndarray) -> np.ndarray:
        """(N, 5) the lift (a grey shift, at least 0; 0 for black) that, taken off each
        ``residual`` (N, 5, 3) (feature less each colour's mean), costs least: in units of
        each colour's ``inverse`` covariance (5, 3, 3), plus the lift's own cost."""
        if self.brighter_spread <= 0:
            return np.zeros(residual.shape[:2])
        grey = inverse.sum(axis=2)  # (5, 3): the inverse covariance times (1, 1, 1)
        lift = np.einsum("nci,ci->nc", residual, grey) / (grey.sum(axis=1) + self.brighter_spread ** -2)[None]
        lift[:, BLACK] = 0.0
        return np.maximum(lift, 0.0)

    @staticmethod
    def regressors(chromas: np.ndarray, levels: np.ndarray) -> np.ndarray:
        """(N, 5) float64 what a colour's mean is linear in: 1, the table chroma (N, 3) and
        level (N,)."""
        chromas = np.asarray(chromas, np.float64).reshape(-1, 3)
        return np.hstack([np.ones((len(chromas), 1)), chromas, np.asarray(levels, np.float64).reshape(-1, 1)])


@dataclass(frozen=True)
class Profile:
    """All thresholds of the vision pipeline. Lengths are in working-image pixels unless
    the name says ``_frac`` (fraction of the image's long side) or ``_side`` (sides of a
    typical piece); thresholds on colour are in natural-log ratio units."""

    name: str
    version: int
    working_side: int
    detail_side: int
    second_reading_scales: tuple[float, ...]
    second_reading_missed_cost: float
    off_grid_cost: float
    ring_frac: float
    table_sigma_frac: float
    table_threshold: float
    shadow_chroma: float
    shadow_min_width_frac: float
    shadow_depth: float
    shadow_max_steepness: float
    shadow_tint_chroma: float
    shadow_tint_share: float
    beyond_table_share: float
    intruder_smoothness: float
    light_max_steepness: float
    table_palette_size: int
    print_palette_size: int
    table_palette_spread: float
    foreground_threshold: float
    foreground_strong_factor: float
    tint_margin: float
    tint_window: int
    tint_brightness_range: float
    noise_factor: float
    absorb_fraction: float
    paper_fraction: float
    grey_fraction: float
    grey_max_side: float
    glow_offset: float
    glow_shadow_depth: float
    glow_shadow_tint: float
    unlit_glow_median: float
    unlit_least_kept: float
    cast_shadow_darkness: float
    cast_shadow_share: float
    cast_shadow_elevations_deg: tuple[float, ...]
    cast_shadow_turns: int
    cast_shadow_max_elevation_deg: float
    cast_shadow_rounds: int
    cast_shadow_least_kept: float
    cast_shadow_print_agreement_deg: float
    cast_shadow_print_max_elevation_deg: float
    card_min_side: float
    card_cut_min_side: float
    card_rect_fill: float
    card_hull_fill: float
    card_straightness: float
    round_min_sides: float
    round_fit_tolerance: float
    round_fit_share: float
    round_inside_share: float
    split_gap_side: float
    merge_distance_side: float
    min_blob_side: float
    frame_min_share: float
    frame_min_area: float
    label_window_side: float
    cluster_reach_side: float
    cluster_reach_neighbours: float
    max_candidates: int
    max_raw_candidates: int
    hfov_deg: float
    lattice_tolerance: float
    lattice_tolerance_growth: float
    typical_piece_percentile: float
    anchor_noise: float
    outline_centring_min_cells: int
    outline_centring_min_shift: float
    tilt_prior_deg: float
    max_tilt_deg: float
    oblique_warning_deg: float
    shadow_warning_ratio: float
    steep_refit_prior_deg: float
    tilt_anchor_margin: float
    tilt_edge_margin: float
    tilt_told_most_pieces: int
    size_tolerance: float
    outline_tolerance: float
    edge_size_weight: float
    black_edge_weight: float
    edge_strength_spread: float
    edge_strength_cap: float
    sides_scale_gain: float
    sides_scale_misfit: float
    same_size_cost: float
    large_pair_cost: float
    large_pair_cost_in_play: float
    surplus_cost: float
    shadow_area_growth: float
    informative_above: float
    shading_min_spread: float
    shading_slope_range: tuple[float, float]
    max_uncertain_confidence: float
    confident_overlap: float
    look_alike_gap: float
    look_alike_separation: float
    look_alike_supply_gap: float
    look_alike_supply_separation: float
    stack_min_cover: float
    stack_side_cover: float
    stack_align_shift: float
    stack_align_scale: float
    stack_central_share: float
    stack_central_fill: float
    stack_central_cover: float
    stack_face_contrast: float
    stack_face_doubt: float
    stack_face_contrast_in_play: float
    stack_face_doubt_in_play: float
    stack_tint_contrast: float
    stack_seat_line: float
    ring_outline_shift: float
    ring_straightness: float
    lower_base_contrast: float
    edgeless_share: float
    empty_doubt_share: float
    empty_doubt_contrast: float
    empty_doubt_side_share: float
    black_shading_correlation: float
    min_outline_cover: float
    unseen_threshold: float
    unseen_min_overlap: float
    stray_min_overlap: float
    faint_contrast: float
    faint_noise_ratio: float
    faint_size_share: float
    print_contrast: float
    print_noise_ratio: float
    print_min_overlap: float
    print_doubt_contrast: float
    print_doubt_noise_ratio: float
    print_doubt_overlap: float
    print_straightness: float
    second_look_size_cost: float
    edge_ratio: float
    edge_outline_ratio: float
    edge_outline_contrast: float
    edge_ring_ratio: float
    edge_ring_quarter: float
    edge_table_level: float
    colors: ColorModel
    piece_colors: PieceColorModel

    def to_json(self) -> dict:
        return asdict(self)


def load_profile(name_or_path: str | None = None) -> Profile:
    """Load a profile by name (bundled) or path; ``None`` is the default profile."""
    name_or_path = name_or_path or "default"
    looks_like_path = name_or_path.endswith(".json") or "/" in name_or_path or "\\" in name_or_path
    path = Path(name_or_path) if looks_like_path else PROFILE_DIR / f"{name_or_path}.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in PROFILE_DIR.glob("*.json")))
        raise ProfileError(f"no profile {name_or_path!r} (bundled profiles: {known})") from None
    except (OSError, ValueError) as exc:
        raise ProfileError(f"profile {name_or_path!r} cannot be read: {exc}") from None
    return profile_from_json(data, str(name_or_path))


def profile_from_json(data: dict, source: str = "profile") -> Profile:
    """Build a :class:`Profile` from its JSON form; raises :class:`ProfileError` if malformed.
    A threshold the profile lacks (one added to the pipeline after the profile was made, say
    by ``citycam calibrate``) is taken from the bundled default profile, and logged."""
    try:
        if data.get("version") != FORMAT_VERSION:
            raise ProfileError(f"{source}: profile format version {data.get('version')!r}, expected {FORMAT_VERSION}")
        missing = sorted({f.name for f in fields(Profile)} - set(data) - {"colors"})
        if missing and "colors" in data:
            defaults = _default_json()
            data = {**{k: defaults[k] for k in missing if k in defaults}, **data}
            logger.info("%s: %s taken from the default profile", source, ", ".join(missing))
            if "piece_colors" in missing:
                logger.warning("%s was made before whole pieces' colours were calibrated: on a plain table "
                               "the default's are used; run citycam calibrate again", source)
        colors = data["colors"]
        model = ColorModel(prototypes={c: tuple(map(float, colors["prototypes"][c])) for c in COLOR_ORDER},
                           table_gain=tuple(tuple(map(float, row)) for row in colors["table_gain"]),
                           spread=float(colors["spread"]),
                           brightness_weight={c: float(colors["brightness_weight"][c]) for c in COLOR_ORDER})
        pieces = data["piece_colors"]
        # a profile made before tints could look brighter, or deeper, takes those spreads from the default
        later = sorted({"brighter_spread", "tint_depth_spread"} - set(pieces))
        if later:
            defaults = _default_json()["piece_colors"]
            pieces = {**{k: defaults[k] for k in later}, **pieces}
            for name in later:
                logger.info("%s: %s taken from the default profile", source, name)
        piece_model = PieceColorModel(
            coefficients={c: _matrix(pieces["coefficients"][c], (5, 3)) for c in COLOR_ORDER},
            covariance={c: _matrix(pieces["covariance"][c], (3, 3)) for c in COLOR_ORDER},
            outlier_cost=float(pieces["outlier_cost"]),
            brighter_spread=float(pieces["brighter_spread"]), tint_depth_spread=float(pieces["tint_depth_spread"]))
        if any(np.linalg.eigvalsh(np.array(m)).min() <= 0 for m in piece_model.covariance.values()):
            raise ValueError("a piece colour's covariance is not positive definite")
        names = {f.name for f in fields(Profile)} - {"colors", "piece_colors"}
        values = {k: data[k] for k in names}
        low, high = map(float, values["shading_slope_range"])
        values["shading_slope_range"] = (low, high)
        values["second_reading_scales"] = tuple(map(float, values["second_reading_scales"]))
        values["cast_shadow_elevations_deg"] = tuple(map(float, values["cast_shadow_elevations_deg"]))
        return Profile(colors=model, piece_colors=piece_model, **values)
    except KeyError as exc:
        raise ProfileError(f"{source}: the profile has no {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ProfileError):
            raise
        raise ProfileError(f"{source}: malformed profile ({exc})") from None


def _default_json() -> dict:
    """The bundled default profile's JSON form."""
    return json.loads((PROFILE_DIR / "default.json").read_text())


def _matrix(rows, shape: tuple[int, int]) -> tuple[tuple[float, ...], ...]:
    """``rows`` as a tuple of float tuples of ``shape``; ValueError if it has another."""
    array = np.array(rows, np.float64)
    if array.shape != shape:
        raise ValueError(f"expected a {shape[0]} x {shape[1]} matrix, got shape {array.shape}")
    return tuple(tuple(map(float, row)) for row in array)


def save_profile(profile: Profile, path: Path) -> None:
    """Write ``profile`` as JSON, each list of numbers on one line."""
    text = json.dumps(profile.to_json(), indent=2)
    text = re.sub(r"\[\s*([-+0-9.eE]+(?:,\s*[-+0-9.eE]+)*)\s*\]",
                  lambda m: "[" + ", ".join(re.split(r",\s*", m.group(1))) + "]", text)
    path.write_text(text + "\n")
