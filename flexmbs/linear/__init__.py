"""Room ``linear``: operating points, linearization of the coupled model in minimal coordinates, the state-space
model with its named inputs and outputs, eigen-analysis and transfer functions.

May import: ``fem``, ``reduction`` and the rooms ``model``, ``results``, ``catalog``, ``engine``, ``post``.
"""
