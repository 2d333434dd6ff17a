"""What an attacker holding a token, a console account or database access tries, as tests."""
