"""The installed distribution's version (package metadata), importable by every room without a circle."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("flexmbs")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
