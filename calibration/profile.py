"""Vision profiles: every tunable number of the pipeline, versioned in a JSON file.

A profile is loaded into frozen dataclasses and passed explicitly to ``vision.analyze``.
``load_profile(None)`` gives the bundled default; a name loads ``profiles/NAME.json``;
anything with a path separator or ``.json`` suffix is read as a file.
"""
from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from scorer import COLORS

logger = logging.getLogger(__name__)

PROFILE_DIR = Path(__file__).parent / "profiles"
FORMAT_VERSION = 1
COLOR_ORDER = COLORS  # the scorer's colour order indexes every colour array in vision
BLACK = COLOR_ORDER.index("black")  # the opaque colour: glossy black shows what it reflects, not the table


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
class Profile:
    """All thresholds of the vision pipeline. Lengths are in working-image pixels unless
    the name says ``_frac`` (fraction of the image's long side) or ``_side`` (sides of a
    typical piece); thresholds on colour are in natural-log ratio units."""

    name: str
    version: int
    working_side: int
    ring_frac: float
    table_sigma_frac: float
    table_threshold: float
    shadow_chroma: float
    shadow_min_width_frac: float
    shadow_depth: float
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
    split_gap_side: float
    merge_distance_side: float
    min_blob_side: float
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
    tilt_prior_deg: float
    size_tolerance: float
    outline_tolerance: float
    same_size_cost: float
    surplus_cost: float
    shadow_area_growth: float
    informative_above: float
    shading_min_spread: float
    shading_slope_range: tuple[float, float]
    max_uncertain_confidence: float
    stack_min_share: float
    stack_ring_cover: float
    min_outline_cover: float
    unseen_threshold: float
    unseen_min_overlap: float
    faint_contrast: float
    faint_noise_ratio: float
    faint_size_share: float
    edge_ratio: float
    edge_table_level: float
    colors: ColorModel

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
            defaults = json.loads((PROFILE_DIR / "default.json").read_text())
            data = {**{k: defaults[k] for k in missing if k in defaults}, **data}
            logger.info("%s: %s taken from the default profile", source, ", ".join(missing))
        colors = data["colors"]
        model = ColorModel(prototypes={c: tuple(map(float, colors["prototypes"][c])) for c in COLOR_ORDER},
                           table_gain=tuple(tuple(map(float, row)) for row in colors["table_gain"]),
                           spread=float(colors["spread"]),
                           brightness_weight={c: float(colors["brightness_weight"][c]) for c in COLOR_ORDER})
        names = {f.name for f in fields(Profile)} - {"colors"}
        values = {k: data[k] for k in names}
        low, high = map(float, values["shading_slope_range"])
        values["shading_slope_range"] = (low, high)
        return Profile(colors=model, **values)
    except KeyError as exc:
        raise ProfileError(f"{source}: the profile has no {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ProfileError):
            raise
        raise ProfileError(f"{source}: malformed profile ({exc})") from None


def save_profile(profile: Profile, path: Path) -> None:
    path.write_text(json.dumps(profile.to_json(), indent=2) + "\n")
