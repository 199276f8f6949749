"""Room ``tree``: tree-structured rigid models from modified Denavit–Hartenberg parameters (seed 004), their
Newton–Euler kinematics and dynamics, and the flexmbs model built from such a tree.

May import: ``fem`` and the rooms ``model``, ``results``, ``catalog``, ``engine``.
"""
