"""Room ``model``: what a user builds — bodies (rigid, floating-frame flexible), markers, joints, forces, contacts,
sliding contacts, measurements, time functions, rotations and the compiled body/marker kinematics they use.

May import: ``fem``, ``reduction`` and nothing else of flexmbs (it is the lowest room).
"""
