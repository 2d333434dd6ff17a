"""The only place that sets up the OpenTelemetry SDK; the metrics catalog, Prometheus text and the
console's recent-trace buffer."""
