import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import access_pb2 as _access_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WhoAmIRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WhoAmIResponse(_message.Message):
    __slots__ = ("kind", "subject", "authenticated_by", "token_id", "admin")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    AUTHENTICATED_BY_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    ADMIN_FIELD_NUMBER: _ClassVar[int]
    kind: _access_pb2.PrincipalKind
    subject: str
    authenticated_by: str
    token_id: str
    admin: bool
    def __init__(self, kind: _Optional[_Union[_access_pb2.PrincipalKind, str]] = ..., subject: _Optional[str] = ..., authenticated_by: _Optional[str] = ..., token_id: _Optional[str] = ..., admin: _Optional[bool] = ...) -> None: ...

class IssueTokenRequest(_message.Message):
    __slots__ = ("kind", "subject", "description", "request_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    kind: _access_pb2.PrincipalKind
    subject: str
    description: str
    request_id: str
    def __init__(self, kind: _Optional[_Union[_access_pb2.PrincipalKind, str]] = ..., subject: _Optional[str] = ..., description: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class IssueTokenResponse(_message.Message):
    __slots__ = ("token", "secret")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    token: _access_pb2.Token
    secret: str
    def __init__(self, token: _Optional[_Union[_access_pb2.Token, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class RevokeTokenRequest(_message.Message):
    __slots__ = ("token_id", "request_id")
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    token_id: str
    request_id: str
    def __init__(self, token_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RevokeTokenResponse(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: _access_pb2.Token
    def __init__(self, token: _Optional[_Union[_access_pb2.Token, _Mapping]] = ...) -> None: ...

class RevokeCertificateRequest(_message.Message):
    __slots__ = ("fingerprint", "reason", "request_id")
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    fingerprint: str
    reason: str
    request_id: str
    def __init__(self, fingerprint: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RevokeCertificateResponse(_message.Message):
    __slots__ = ("fingerprint", "revoke_time")
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    REVOKE_TIME_FIELD_NUMBER: _ClassVar[int]
    fingerprint: str
    revoke_time: _timestamp_pb2.Timestamp
    def __init__(self, fingerprint: _Optional[str] = ..., revoke_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListTokensRequest(_message.Message):
    __slots__ = ("subject", "include_revoked", "page_size", "page_token")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_REVOKED_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    subject: str
    include_revoked: bool
    page_size: int
    page_token: str
    def __init__(self, subject: _Optional[str] = ..., include_revoked: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTokensResponse(_message.Message):
    __slots__ = ("tokens", "next_page_token")
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tokens: _containers.RepeatedCompositeFieldContainer[_access_pb2.Token]
    next_page_token: str
    def __init__(self, tokens: _Optional[_Iterable[_Union[_access_pb2.Token, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
