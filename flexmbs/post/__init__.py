"""Room ``post``: looking at results files — stress histories and hot spots (durability), fatigue damage, and the
pictures, animations and ParaView files of :mod:`flexmbs.post.viz`.

May import: ``fem``, ``reduction`` and the rooms ``model``, ``results``, ``catalog``, ``engine``.
"""
