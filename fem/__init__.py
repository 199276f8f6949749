"""fem package."""
