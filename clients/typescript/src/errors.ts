// The google.rpc.ErrorInfo the sidecar attaches to every error (domain "outrider.dev"). protobuf-es
// ships no google.rpc types, so its three fields are described here once.
import { create, createFileRegistry, type DescMessage } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";

const string = (name: string, number: number) => ({ name, number, jsonName: name, type: Type.STRING, label: Label.OPTIONAL });

const errorDetails = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "google/rpc/error_details.proto",
    package: "google.rpc",
    syntax: "proto3",
    messageType: [
      {
        name: "ErrorInfo",
        field: [
          string("reason", 1),
          string("domain", 2),
          { name: "metadata", number: 3, jsonName: "metadata", type: Type.MESSAGE, label: Label.REPEATED, typeName: ".google.rpc.ErrorInfo.MetadataEntry" },
        ],
        nestedType: [{ name: "MetadataEntry", field: [string("key", 1), string("value", 2)], options: { mapEntry: true } }],
      },
    ],
  }),
  () => undefined,
);

/** The schema of google.rpc.ErrorInfo, for `ConnectError.findDetails`. */
export const ErrorInfoSchema: DescMessage = errorDetails.getMessage("google.rpc.ErrorInfo")!;

/** What the sidecar says about an error besides its code. */
export interface ErrorInfo {
  /** A stable word such as INVALID_FIELD, NOT_FOUND, OPERATOR_REQUIRED. */
  reason: string;
  domain: string;
  /** `field` names the offending request field, when there is one. */
  metadata: Record<string, string>;
}

/** The ErrorInfo of an error thrown by a call to the sidecar, or undefined when it carries none. */
export function errorInfo(err: unknown): ErrorInfo | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  const found = err.findDetails(ErrorInfoSchema)[0] as unknown as Partial<ErrorInfo> | undefined;
  if (found === undefined) return undefined;
  return { reason: found.reason ?? "", domain: found.domain ?? "", metadata: { ...(found.metadata ?? {}) } };
}
