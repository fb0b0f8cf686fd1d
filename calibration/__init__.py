"""Colour and size profiles for the vision pipeline, and how to make them."""
from .profile import ColorModel, PieceColorModel, Profile, ProfileError, load_profile, profile_from_json, save_profile

__all__ = ["ColorModel", "PieceColorModel", "Profile", "ProfileError", "load_profile", "profile_from_json", "save_profile"]
