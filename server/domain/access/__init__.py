"""Who may call what: principals and token scopes, console reviewers and their throttle, token buckets."""
