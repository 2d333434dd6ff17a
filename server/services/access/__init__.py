"""Credentials (API tokens) and console reviewers."""
