"""What a hostile agent or a careless operator tries, each case a test that failed before its fix."""
