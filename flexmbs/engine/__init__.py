"""Room ``engine``: the equations and their solution — system assembly, constraint and body kernels, Newton
matrices, generalized-α integrator, located events, consistent start, recorder, ``simulate``, ``static_equilibrium``.

May import: ``fem``, ``reduction`` and the rooms ``model``, ``results``, ``catalog``.
"""
