"""Room ``studies``: parameter studies of a case on Dask — designs (grid, zip, Latin hypercube), the worker task,
the study table and its records.

May import: ``fem``, ``reduction`` and the rooms ``model``, ``results``, ``catalog``, ``engine``, ``post``, ``linear``.
"""
