"""flexmbs: flexible multibody dynamics of hydraulically driven machines.

Build a :class:`Model` (bodies, markers, joints, forces, contacts, state elements), then call :func:`simulate`.
"""
from ._shadow import shadowing_message as _shadowing_message

if _shadowing_message(("fem", "reduction")):  # a user's fem.py next to their script: say so in one line
    import sys as _sys

    if _sys.argv and (_sys.argv[0] == "-m" or _sys.argv[0].endswith("flexmbs")):
        print(f"error: {_shadowing_message(('fem', 'reduction'))}", file=_sys.stderr)
        raise SystemExit(2)
    raise ImportError(_shadowing_message(("fem", "reduction")))

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

# the public names, room by room (docs/architecture.md)
from .model.bodies import FlexibleBody, Ground, RigidBody  # noqa: E402
from .model.contacts import HardStop, JointFriction, PlaneContact, friction_coefficient  # noqa: E402
from .model.forces import Bushing, JointActuator, PointForce, RotationalSpringDamper, SpringDamper  # noqa: E402
from .model.joints import Cylindrical, Fixed, Planar, Prismatic, Revolute, Spherical, Universal  # noqa: E402
from .model.measurements import Distance, JointCoordinate, MarkerCoordinate  # noqa: E402
from .model.model import Model  # noqa: E402
from .model.sliding import SlidingContact  # noqa: E402
from .model.timefunctions import Table, smooth_step  # noqa: E402
from .results.results import Results, load_results  # noqa: E402
from .engine.solver import simulate, static_equilibrium  # noqa: E402
from .linear.linearize import OperatingPoint, conventional_jacobian, linearize  # noqa: E402
from .linear.linear_model import LinearModel  # noqa: E402
from .studies.study import study  # noqa: E402  (the function; the module is flexmbs.studies.study)

__all__ = [
    "Model", "RigidBody", "FlexibleBody", "Ground", "simulate", "static_equilibrium", "Results", "load_results",
    "Fixed", "Revolute", "Spherical", "Prismatic", "Cylindrical", "Universal", "Planar",
    "PointForce", "SpringDamper", "RotationalSpringDamper", "Bushing", "JointActuator", "Table", "smooth_step",
    "Distance", "JointCoordinate", "MarkerCoordinate", "JointFriction", "PlaneContact", "HardStop",
    "friction_coefficient", "linearize", "conventional_jacobian", "LinearModel", "OperatingPoint", "SlidingContact", "study",
    "FlexmbsError", "ModelError", "SimulationError", "FileFormatError", "MeshError", "MaterialError", "SelectionError",
]


def __getattr__(name: str):
    """``flexmbs.viz`` (pictures, animations; :mod:`flexmbs.post.viz`) on first use: pyvista is not imported with
    flexmbs itself."""
    if name == "viz":
        from .post import viz

        return viz
    raise AttributeError(f"module 'flexmbs' has no attribute {name!r}")
