"""The `outrider` subcommands that work straight on the database (tokens, users, audit, console)."""
