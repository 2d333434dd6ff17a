"""SQL storage of the safeguards."""
