"""Synthetic phone photos of finished Zoning Out cities, with exact ground truth.

Entry points: :func:`bench.scenegen.scene.make_scene` (one scene from a seed) and the CLI
``python -m bench.scenegen.make_set``.
"""
