"""SQL storage of API tokens, console reviewers and shared settings."""
