"""gRPC adapters: servicers translate requests, delegate to services, translate back."""
