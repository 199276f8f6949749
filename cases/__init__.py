"""cases package."""
