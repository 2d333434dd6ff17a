"""Pure rules of Outrider: no I/O, no gRPC, no Flask, no SQL. Time comes in as `now`."""
