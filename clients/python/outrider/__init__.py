"""Outrider Python client: generated `outrider.v1` messages and stubs, and a typed client."""
