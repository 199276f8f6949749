"""Craig–Bampton reduction with orthonormalization and rigid-mode removal → flexible bodies (seed 003 §2.1.2)."""
from reduction.flexbody import FlexBody, Interface, Invariants, compute_invariants  # noqa: F401
from reduction.io import read_flexbody, write_flexbody  # noqa: F401
from reduction.reduce import damping_ratios, mac_matrix, reduce  # noqa: F401

__all__ = ["FlexBody", "Interface", "Invariants", "compute_invariants", "read_flexbody", "write_flexbody",
           "damping_ratios", "mac_matrix", "reduce"]
