"""Server reflection as both `grpc.reflection.v1.ServerReflection` and `v1alpha`.

grpcio-reflection only ships v1alpha; grpcurl, ghz, Postman and IDE clients ask for v1 first and some
never fall back. The two protocols are the same messages under two package names, so one servicer
answers both: the v1 descriptor is v1alpha's with the package renamed, registered in the default pool
so reflection can describe itself under either name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection as v1alpha
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1ALPHA_SERVICE_NAME: str = v1alpha.SERVICE_NAME
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _register_v1_descriptor() -> None:
    """Adds grpc/reflection/v1/reflection.proto to the default pool (once), derived from v1alpha's."""
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(_V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    v1alpha_pb2.DESCRIPTOR.CopyToProto(proto)
    old, new = v1alpha_pb2.DESCRIPTOR.package, "grpc.reflection.v1"
    proto.name, proto.package = _V1_FILE, new
    proto.options.Clear()  # v1alpha's java/go options name v1alpha packages

    def rename(type_name: str) -> str:
        return type_name.replace(f".{old}.", f".{new}.", 1)

    def walk(messages: Iterable[descriptor_pb2.DescriptorProto]) -> None:
        for message in messages:
            for f in message.field:
                if f.type_name:
                    f.type_name = rename(f.type_name)
            walk(message.nested_type)

    walk(proto.message_type)
    for service in proto.service:
        for method in service.method:
            method.input_type, method.output_type = rename(method.input_type), rename(method.output_type)
    pool.Add(proto)


class _ReflectionServicer(v1alpha.aio.ReflectionServicer):  # type: ignore[misc]
    """Also resolves a method's full name (`pkg.Service.Method`), as the reflection protocol says a symbol
    may be: the Python pool's FindFileContainingSymbol knows services but not methods, and ghz asks for
    the method."""

    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        response = super()._file_containing_symbol(request, fully_qualified_name)
        service, _, method = fully_qualified_name.rpartition(".")
        if response.HasField("error_response") and service:
            try:
                found = self._pool.FindServiceByName(service)
            except KeyError:
                return response
            if method in found.methods_by_name:
                return self._file_by_filename(request, found.file.name)
        return response


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection for `service_names` (plus both reflection services) under v1 and v1alpha."""
    _register_v1_descriptor()
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer = _ReflectionServicer(names)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=v1alpha_pb2.ServerReflectionRequest.FromString,
        response_serializer=v1alpha_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        tuple(
            grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": handler})
            for name in (V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
        )
    )
