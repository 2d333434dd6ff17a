"""APScheduler wiring only: each job calls one service method."""
