"""Human approval use cases: create or re-attach, wait, decide, expire, cancel."""
