import signal as _signal

_interrupted = []


def _note_ctrl_c(signum, frame):
    _interrupted.append(signum)
    raise KeyboardInterrupt


# A Ctrl-C while the command's modules load (about a second) is one line too, not an import traceback; and it is
# noted, since a KeyboardInterrupt raised inside a weakref callback of the import machinery is only printed as
# "Exception ignored" and the command then ran to its end with exit 0. (The package's own __init__, run before this
# file, stays open.) The console script imports this module too (``flexmbs.__main__:entry``), so it is covered alike.
if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _note_ctrl_c)
try:
    from flexmbs.cli.app import main
except KeyboardInterrupt:
    _interrupted.append(_signal.SIGINT)
finally:
    if _signal.getsignal(_signal.SIGINT) is _note_ctrl_c:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)


def entry() -> None:
    """The ``flexmbs`` command (``python -m flexmbs`` and the console script of pyproject.toml): one line and exit
    130 for a Ctrl-C while its modules loaded (above), else the command."""
    if _interrupted:
        import sys

        sys.stderr.write("error: interrupted\n")
        sys.exit(130)
    main()


if __name__ == "__main__":
    entry()
