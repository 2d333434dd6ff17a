"""AccessService over gRPC: who am I, and token issue / revoke / list for operators."""

from __future__ import annotations

import asyncio
from typing import Any, TypeAlias

from outrider.v1 import access_pb2
from outrider.v1 import access_service_pb2 as pb
from outrider.v1 import access_service_pb2_grpc as pb_grpc
from server.domain.access.principals import PrincipalKind, Token
from server.domain.errors import InvalidArgument
from server.rpc import convert
from server.rpc.auth import current_principal
from server.rpc.errors import translate_errors
from server.services.access.credentials import AccessService
from server.services.idempotency import answer_with

Ctx: TypeAlias = Any


def token_to_pb(t: Token) -> access_pb2.Token:
    return access_pb2.Token(
        token_id=t.token_id,
        kind=int(t.kind),  # type: ignore[arg-type]
        subject=t.subject,
        description=t.description,
        created_by=t.created_by,
        create_time=convert.timestamp(t.create_time),
        revoke_time=convert.timestamp(t.revoke_time),
        admin=t.admin,
    )


@translate_errors
class AccessServicer(pb_grpc.AccessServiceServicer):
    def __init__(self, access: AccessService) -> None:
        self.access = access

    async def WhoAmI(self, request: pb.WhoAmIRequest, context: Ctx) -> pb.WhoAmIResponse:
        p = current_principal()
        kind: Any = int(p.kind)
        return pb.WhoAmIResponse(
            kind=kind, subject=p.subject, authenticated_by=p.via, token_id=p.token_id, admin=p.admin
        )

    async def IssueToken(self, request: pb.IssueTokenRequest, context: Ctx) -> pb.IssueTokenResponse:
        try:
            kind = PrincipalKind(request.kind)
        except ValueError:
            raise InvalidArgument(
                "kind must be PRINCIPAL_KIND_AGENT or PRINCIPAL_KIND_OPERATOR", field="kind"
            ) from None
        secret, token = await asyncio.to_thread(
            self.access.issue, kind, request.subject, request.description, current_principal().label
        )
        return pb.IssueTokenResponse(token=token_to_pb(token), secret=secret)

    async def RevokeToken(self, request: pb.RevokeTokenRequest, context: Ctx) -> pb.RevokeTokenResponse:
        # The idempotency record is written in the revocation's transaction, with this answer.
        answer_with(lambda t: pb.RevokeTokenResponse(token=token_to_pb(t)).SerializeToString())
        token = await asyncio.to_thread(self.access.revoke, request.token_id, current_principal().label)
        return pb.RevokeTokenResponse(token=token_to_pb(token))

    async def RevokeCertificate(
        self, request: pb.RevokeCertificateRequest, context: Ctx
    ) -> pb.RevokeCertificateResponse:
        answer_with(  # written in the revocation's transaction
            lambda out: pb.RevokeCertificateResponse(
                fingerprint=out[0], revoke_time=convert.timestamp(out[1])
            ).SerializeToString()
        )
        fingerprint, when = await asyncio.to_thread(
            self.access.revoke_certificate, request.fingerprint, request.reason[:512], current_principal().label
        )
        return pb.RevokeCertificateResponse(fingerprint=fingerprint, revoke_time=convert.timestamp(when))

    async def ListTokens(self, request: pb.ListTokensRequest, context: Ctx) -> pb.ListTokensResponse:
        page = await asyncio.to_thread(
            self.access.list, request.subject, request.include_revoked, request.page_size, request.page_token
        )
        return pb.ListTokensResponse(tokens=[token_to_pb(t) for t in page.items], next_page_token=page.next_page_token)
