"""flexmbs: flexible multibody dynamics of hydraulically driven machines.

Build a :class:`Model` (bodies, markers, joints, forces, contacts, state elements), then call :func:`simulate`.
"""
from ._shadow import shadowing_message as _shadowing_message

_shadowed = _shadowing_message(("fem", "reduction"))
if _shadowed:  # a user's fem.py next to their script: say so in one line
    import sys as _sys

    if _sys.argv and (_sys.argv[0] == "-m" or _sys.argv[0].endswith("flexmbs")):
        print(f"error: {_shadowed}", file=_sys.stderr)
        raise SystemExit(2)
    raise ImportError(_shadowed)

from fem.errors import (  # noqa: F401  (re-exported: the project's user-facing errors)
    FileFormatError,
    FlexmbsError,
    MaterialError,
    MeshError,
    ModelError,
    SelectionError,
    SimulationError,
)

from ._version import __version__  # noqa: E402,F401

# the public names, room by room (docs/architecture.md), imported on first use (PEP 562): ``import flexmbs`` and
# every command that does not simulate (``flexmbs reduce``, ``--help``) skip numba, the kernels and the engine
# (0.9 s of every CLI start, issue 31)
_LAZY = {
    ".model.bodies": ("FlexibleBody", "Ground", "RigidBody"),
    ".model.contacts": ("HardStop", "JointFriction", "PlaneContact", "friction_coefficient"),
    ".model.forces": ("Bushing", "JointActuator", "MatrixBushing", "PointForce", "RotationalSpringDamper",
                      "SpringDamper"),
    ".model.joints": ("Cylindrical", "Fixed", "Generic", "Planar", "PointOnLine", "PointOnPlane", "Prismatic",
                      "Revolute", "Spherical", "Universal"),
    ".model.measurements": ("Distance", "JointCoordinate", "MarkerCoordinate"),
    ".model.model": ("Model",),
    ".model.sliding": ("SlidingContact",),
    ".model.timefunctions": ("Table", "smooth_step"),
    ".model.inputs": ("Input",),
    ".results.results": ("Results", "load_results"),
    ".engine.solver": ("simulate", "static_equilibrium"),
    ".engine.stepping": ("Run",),
    ".fmi.imports": ("FMU",),
    ".linear.linearize": ("OperatingPoint", "conventional_jacobian", "linearize"),
    ".linear.linear_model": ("LinearModel",),
    ".studies.study": ("study",),  # the function; the module is flexmbs.studies.study
}
_HOME = {name: module for module, names in _LAZY.items() for name in names}

# the lazy names and the errors: every name ``import flexmbs as fm`` offers
__all__ = [*_HOME, "FlexmbsError", "ModelError", "SimulationError", "FileFormatError", "MeshError", "MaterialError",
           "SelectionError"]


def __getattr__(name: str):
    """A public name from its room, imported on first use and then kept on the package; ``flexmbs.viz`` (pictures,
    animations; :mod:`flexmbs.post.viz`) likewise, so that pyvista is imported with it, not with flexmbs."""
    import importlib

    if name == "viz":
        value = importlib.import_module(".post.viz", __name__)
    elif name in _HOME:
        value = getattr(importlib.import_module(_HOME[name], __name__), name)
    else:
        raise AttributeError(f"module 'flexmbs' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
