"""reduction package."""
