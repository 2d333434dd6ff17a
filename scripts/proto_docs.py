"""Write the API reference page from the comments in proto/outrider/v1 (run by `make proto`).

    python scripts/proto_docs.py [--out docs/reference/api.md]

protoc (from grpc_tools) compiles the protos into a descriptor set with source info; every service, RPC,
message, field, enum and value is written with its leading comment, so the proto comments stay the one
per-RPC contract. `scripts/check-generated.sh` fails when the committed page is not what this writes now.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path

from google.protobuf import descriptor_pb2
from grpc_tools import protoc  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "proto"
PACKAGE = "outrider.v1"
# Field numbers in descriptor.proto, for SourceCodeInfo paths.
FILE_MESSAGE, FILE_ENUM, FILE_SERVICE = 4, 5, 6
MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ENUM = 2, 3, 4
ENUM_VALUE, SERVICE_METHOD = 2, 2
SCALARS = {
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: "double",
    descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT: "float",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: "uint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32: "int32",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED32: "fixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: "bool",
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: "string",
    descriptor_pb2.FieldDescriptorProto.TYPE_BYTES: "bytes",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32: "uint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED32: "sfixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT32: "sint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT64: "sint64",
}


def descriptors(files: Sequence[Path]) -> descriptor_pb2.FileDescriptorSet:
    well_known = resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "api.pb"
        args = ["protoc", f"-I{PROTO}", f"-I{well_known}", "--include_source_info", f"--descriptor_set_out={out}"]
        if protoc.main([*args, *(str(f.relative_to(PROTO)) for f in files)]) != 0:
            raise SystemExit("proto_docs.py: protoc failed")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


class Comments:
    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        self.by_path = {tuple(loc.path): loc for loc in file.source_code_info.location}

    def leading(self, path: tuple[int, ...]) -> str:
        loc = self.by_path.get(path)
        return _clean(loc.leading_comments) if loc else ""

    def detached(self, path: tuple[int, ...]) -> list[str]:
        loc = self.by_path.get(path)
        return [_clean(c) for c in loc.leading_detached_comments] if loc else []


def _clean(comment: str) -> str:
    lines = [line[1:] if line.startswith(" ") else line for line in comment.strip("\n").split("\n")]
    return "\n".join(line.rstrip() for line in lines).strip()


def anchor(full_name: str) -> str:
    return full_name.lstrip(".").replace(".", "-").lower()


def escape(text: str) -> str:
    """Markdown-safe outside code spans (`<token>` would be taken for HTML); code spans stay as written."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # even parts are outside backticks
        parts[i] = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def cell(text: str) -> str:
    """A comment inside a table cell: one line, pipes escaped."""
    return " ".join(escape(text).split()).replace("|", "\\|")


def paragraphs(text: str) -> str:
    return escape(text)


class Writer:
    def __init__(self, fds: descriptor_pb2.FileDescriptorSet) -> None:
        self.files = sorted((f for f in fds.file if f.package == PACKAGE), key=_file_order)
        self.maps: dict[str, descriptor_pb2.DescriptorProto] = {}
        for f in self.files:
            for name, msg in _all_messages(f.message_type, f".{f.package}"):
                if msg.options.map_entry:
                    self.maps[name] = msg
        self.lines: list[str] = []

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def type_of(self, field: descriptor_pb2.FieldDescriptorProto) -> str:
        if field.type_name in self.maps:
            entry = self.maps[field.type_name]
            key, value = entry.field
            return f"map<{self.type_of(key)}, {self.type_of(value)}>"
        if field.type_name:
            name = field.type_name.lstrip(".")
            if name.startswith(f"{PACKAGE}."):
                return f"[`{name.removeprefix(PACKAGE + '.')}`](#{anchor(name)})"
            return f"`{name}`"
        return f"`{SCALARS[field.type]}`"

    def label(self, field: descriptor_pb2.FieldDescriptorProto) -> str:
        repeated = field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
        if repeated and field.type_name not in self.maps:
            return "repeated "
        if field.proto3_optional:
            return "optional "
        return ""

    def write(self) -> str:
        self.emit(
            "# API reference",
            "",
            "<!-- Generated by `make proto` (scripts/proto_docs.py) from proto/outrider/v1: edit the proto",
            "     comments, not this page; `make proto-check` fails when it is stale. -->",
            "",
            f"Package `{PACKAGE}`, from the comments in `proto/outrider/v1`: every service, RPC, message, field",
            "and enum with its contract. A policy outcome (blocked, pending, circuit open) is response data; a",
            "gRPC error means the sidecar could not answer, with a `google.rpc.ErrorInfo` (domain",
            "`outrider.dev`) naming the reason and, for bad input, the field.",
            "",
            "## Services",
            "",
        )
        for f in self.files:
            self.services(f)
        self.emit("## Messages and enums", "")
        for f in self.files:
            if f.message_type or f.enum_type:
                self.types(f)
        return "\n".join(self.lines).rstrip() + "\n"

    def services(self, f: descriptor_pb2.FileDescriptorProto) -> None:
        c = Comments(f)
        for i, service in enumerate(f.service):
            full = f"{f.package}.{service.name}"
            self.emit(f"### {service.name} {{ #{anchor(full)} }}", "", f"`{full}` (`{f.name}`)", "")
            if text := c.leading((FILE_SERVICE, i)):
                self.emit(paragraphs(text), "")
            for j, method in enumerate(service.method):
                path = (FILE_SERVICE, i, SERVICE_METHOD, j)
                for note in c.detached(path):
                    self.emit(f"*{cell(note)}*", "")
                req = ("stream " if method.client_streaming else "") + self.ref(method.input_type)
                res = ("stream " if method.server_streaming else "") + self.ref(method.output_type)
                self.emit(
                    f"#### {method.name} {{ #{anchor(full + '.' + method.name)} }}",
                    "",
                    f"`rpc {method.name}` ({req}) returns ({res})",
                    "",
                )
                if text := c.leading(path):
                    self.emit(paragraphs(text), "")

    def ref(self, type_name: str) -> str:
        name = type_name.lstrip(".")
        if name.startswith(f"{PACKAGE}."):
            return f"[`{name.removeprefix(PACKAGE + '.')}`](#{anchor(name)})"
        return f"`{name}`"

    def types(self, f: descriptor_pb2.FileDescriptorProto) -> None:
        c = Comments(f)
        self.emit(f"### {f.name}", "")
        for i, msg in enumerate(f.message_type):
            self.message(c, msg, f".{f.package}", (FILE_MESSAGE, i))
        for i, enum in enumerate(f.enum_type):
            self.enum(c, enum, f".{f.package}", (FILE_ENUM, i))

    def message(self, c: Comments, msg: descriptor_pb2.DescriptorProto, scope: str, path: tuple[int, ...]) -> None:
        if msg.options.map_entry:
            return
        full = f"{scope}.{msg.name}"
        name = full.removeprefix(f".{PACKAGE}.")
        for note in c.detached(path):
            self.emit(f"*{cell(note)}*", "")
        self.emit(f"#### {name} {{ #{anchor(full)} }}", "")
        if text := c.leading(path):
            self.emit(paragraphs(text), "")
        if msg.field:
            self.emit("| field | type | description |", "| --- | --- | --- |")
            for k, field in enumerate(msg.field):
                note = c.leading((*path, MESSAGE_FIELD, k))
                oneof = ""
                if field.HasField("oneof_index") and not field.proto3_optional:
                    oneof = f"(oneof `{msg.oneof_decl[field.oneof_index].name}`) "
                kind = f"{self.label(field)}{self.type_of(field)}"
                self.emit(f"| `{field.name}` = {field.number} | {kind} | {oneof}{cell(note)} |")
            self.emit("")
        else:
            self.emit("No fields.", "")
        for k, nested in enumerate(msg.nested_type):
            self.message(c, nested, full, (*path, MESSAGE_NESTED, k))
        for k, enum in enumerate(msg.enum_type):
            self.enum(c, enum, full, (*path, MESSAGE_ENUM, k))

    def enum(self, c: Comments, enum: descriptor_pb2.EnumDescriptorProto, scope: str, path: tuple[int, ...]) -> None:
        full = f"{scope}.{enum.name}"
        name = full.removeprefix(f".{PACKAGE}.")
        for note in c.detached(path):
            self.emit(f"*{cell(note)}*", "")
        self.emit(f"#### {name} {{ #{anchor(full)} }}", "")
        if text := c.leading(path):
            self.emit(paragraphs(text), "")
        self.emit("| value | number | description |", "| --- | --- | --- |")
        for k, value in enumerate(enum.value):
            self.emit(f"| `{value.name}` | {value.number} | {cell(c.leading((*path, ENUM_VALUE, k)))} |")
        self.emit("")


def _all_messages(
    messages: Sequence[descriptor_pb2.DescriptorProto], scope: str
) -> Iterator[tuple[str, descriptor_pb2.DescriptorProto]]:
    for msg in messages:
        name = f"{scope}.{msg.name}"
        yield name, msg
        yield from _all_messages(msg.nested_type, name)


def _file_order(f: descriptor_pb2.FileDescriptorProto) -> tuple[int, str]:
    """The agent's everyday service first, then the others, each before its messages' file."""
    features = ("supervisor", "recovery", "safeguard", "access")
    stem = Path(f.name).stem.removesuffix("_service")
    return (features.index(stem) if stem in features else len(features), f.name)


def render() -> str:
    files = sorted((PROTO / "outrider" / "v1").glob("*.proto"))
    return Writer(descriptors(files)).write()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "reference" / "api.md"), help="the page to write")
    args = parser.parse_args(argv)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
