"""Domain errors of the vision pipeline. Each carries a reason in plain words."""


class VisionError(Exception):
    """The photo could not be read into a city; ``str(err)`` says why in plain words."""


class PhotoError(VisionError):
    """The bytes are not a usable photo (not an image, truncated, too large)."""


class BoardNotFound(VisionError):
    """No city could be found in the photo (no pieces, or no grid fits them)."""
