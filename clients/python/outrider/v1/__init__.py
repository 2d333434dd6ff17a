"""Generated from proto/outrider/v1 by `make proto`; do not edit."""
