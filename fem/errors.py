"""Exceptions a user can cause, shared by every flexmbs package.

They live in ``fem`` because it is the bottom of the import graph; ``flexmbs`` re-exports them. The CLI prints
any :class:`FlexmbsError` as one line on stderr and exits non-zero, without a traceback.
"""


class FlexmbsError(Exception):
    """Base class of every error a user can cause; the message says what to change."""


class MeshError(FlexmbsError):
    """A mesh file that cannot be read or used (missing, no volume cells, inverted or unsupported elements)."""


class SelectionError(FlexmbsError):
    """A node selector that is malformed or matches no node."""


class MaterialError(FlexmbsError):
    """An unknown material name or non-physical material values."""


class ModelError(FlexmbsError):
    """A model that cannot be analysed (singular, disconnected, inconsistent)."""


class FileFormatError(FlexmbsError):
    """A flexmbs data file (FlexBody, results) that is damaged, truncated or of another version."""


class SimulationError(FlexmbsError):
    """A simulation that cannot proceed (divergent Newton iteration, singular Jacobian)."""
