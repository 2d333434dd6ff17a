// The Outrider TypeScript client: generated outrider.v1 messages and services, plus OutriderClient.
// One line per generated file (scripts/check-generated.sh fails when one is missing).
export { DEFAULT_ADDRESS, DEFAULT_TIMEOUT_MS, OutriderClient, newRequestId, type OutriderClientOptions } from "./client.js";
export { CheckStream, streamError, type CheckStreamOptions } from "./check-stream.js";
export { errorInfo, ErrorInfoSchema, type ErrorInfo } from "./errors.js";
export * from "./gen/outrider/v1/access_pb.js";
export * from "./gen/outrider/v1/access_service_pb.js";
export * from "./gen/outrider/v1/common_pb.js";
export * from "./gen/outrider/v1/recovery_pb.js";
export * from "./gen/outrider/v1/recovery_service_pb.js";
export * from "./gen/outrider/v1/safeguard_pb.js";
export * from "./gen/outrider/v1/safeguard_service_pb.js";
export * from "./gen/outrider/v1/supervisor_pb.js";
export * from "./gen/outrider/v1/supervisor_service_pb.js";
