"""Use cases: domain rules combined with storage and events. Ports in `ports.py`."""
