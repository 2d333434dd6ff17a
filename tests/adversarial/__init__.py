"""What a hostile agent, a careless operator, or an attacker holding a token, a console account or database
access tries: each case a test that failed before its fix."""
