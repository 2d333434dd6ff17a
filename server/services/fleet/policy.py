"""The fleet's one policy (docs/fleet.md, "One fleet policy").

The rule: the database holds the fleet's policy document (server/domain/fleet/policy.py). A sidecar starts
with it: its own policy file must have the same digest, or it refuses to start, unless it is started with
`--apply-policy`, which makes its file the fleet's policy (audited). With no policy file it follows the
fleet's. ReloadPolicy and SIGHUP apply this host's file fleet-wide: everything is parsed first (an invalid
policy changes nothing anywhere), then the chain, the recovery policies, the cascade policy and the
declared agent records are stored and the new version is committed; every other sidecar follows on the
`policy` topic (within milliseconds with NOTIFY, within `fleet.resync_interval` without) and takes the
`reversibility:` rules and the rest from the stored document, writing nothing. On SQLite (one sidecar) a
file that differs is applied at start, as before, and the digest is stored.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server.domain.errors import Aborted, FailedPrecondition, OutriderError
from server.domain.fleet.policy import AppliedPolicy, FleetPolicy, PolicyDocument, mismatch_message
from server.services.fleet.ports import POLICY_TOPIC, ChangeFeed, FleetPolicyRepository, PolicyFile
from server.services.ports import AuditSink, Clock
from server.services.supervisor.chain import ChainStore

log = logging.getLogger(__name__)

# Parses a policy document's sections besides the chain (raising InvalidArgument that names the file and
# field) and returns what applies them: storage and this process.
PrepareSections = Callable[[dict[str, Any]], Callable[[], None]]
# Takes a policy document another sidecar applied into this process (storage already holds it).
FollowSections = Callable[[dict[str, Any]], None]
_START_ATTEMPTS = 3


@dataclass(frozen=True)
class StartPolicy:
    """What a sidecar starts with: `document` (None: no policy anywhere), and whether to apply its file."""

    document: dict[str, Any] | None
    fleet: FleetPolicy | None
    file: PolicyDocument | None
    apply: bool


def start_policy(repo: FleetPolicyRepository, source: PolicyFile | None, *, apply: bool, enforce: bool) -> StartPolicy:
    """Decide, before anything is built from it, which policy this sidecar runs. `enforce` (PostgreSQL):
    a file that differs from the fleet's refuses the start unless `apply` (`--apply-policy`)."""
    if apply and source is None:
        raise FailedPrecondition("--apply-policy needs a policy file to apply: start with --config FILE")
    fleet = repo.get()
    file = source.read_document() if source is not None else None
    if file is None:
        return StartPolicy(fleet.document if fleet else None, fleet, None, apply=False)
    if fleet is not None and fleet.digest == file.digest:
        return StartPolicy(file.document, fleet, file, apply=False)
    if fleet is not None and enforce and not apply:
        assert source is not None
        raise FailedPrecondition(mismatch_message(source.path, file.digest, fleet), reason="POLICY_MISMATCH")
    return StartPolicy(file.document, fleet, file, apply=True)


class FleetPolicyService:
    def __init__(
        self,
        repo: FleetPolicyRepository,
        source: PolicyFile | None,
        chain: ChainStore,
        prepare: PrepareSections,
        follow: FollowSections,
        audit: AuditSink,
        clock: Clock,
        sidecar_id: str,
        changes: ChangeFeed | None = None,
    ) -> None:
        self.repo = repo
        self.source = source
        self.chain = chain
        self.prepare = prepare
        self.follow_sections = follow
        self.audit = audit
        self.clock = clock
        self.sidecar_id = sidecar_id
        self.host = socket.gethostname()
        self._lock = threading.Lock()  # one apply or follow at a time in this process
        self.applied_version = 0  # the fleet policy version this process runs (0: none stored)
        if changes is not None:  # another sidecar applied a policy: follow now (the counter poll is the fallback)
            changes.subscribe(POLICY_TOPIC, lambda _version: self.follow(), self.follow)

    def start(self, start: StartPolicy, decide: Callable[[], StartPolicy], actor: str = "system") -> None:
        """At start-up (after `start_policy`): apply this host's file when it is the first or `--apply-policy`
        said so, else load the stored chain (the fleet's). When another sidecar applied a policy between
        the decision and the apply (three sidecars starting at once on an empty database), `decide` again:
        the same policy is then followed, another one refused."""
        for _ in range(_START_ATTEMPTS):
            with self._lock:
                if not start.apply or start.file is None or self.source is None:
                    self.chain.load(audit=False)
                    if start.fleet is not None:
                        self._mark(start.fleet)
                    return
                file = start.file
                try:
                    apply_sections = self.prepare(file.document)
                except OutriderError as exc:
                    raise self._located(exc) from exc

                def write(apply_sections: Callable[[], None] = apply_sections) -> None:
                    self.chain.load(audit=False)  # the file's chain, unless the stored one was built from it
                    apply_sections()

                previous = start.fleet
                stored = self._apply(file, actor, write, previous.version if previous else 0)
            if stored is not None:
                self._record(actor, "policy.apply", stored, previous.digest if previous else None)
                return
            start = decide()
        raise Aborted(
            "the fleet's policy kept changing while this sidecar started; start it again", reason="POLICY_CONFLICT"
        )

    def reload(self, actor: str = "system") -> tuple[int, str]:
        """ReloadPolicy and SIGHUP: this host's file becomes the fleet's policy. Everything is parsed before
        anything changes: an error leaves every sidecar's policy as it was."""
        if self.source is None:
            raise FailedPrecondition("no policy file is configured; start the sidecar with --config FILE")
        file = self.source.read_document()
        try:
            chain = self.chain.parse_policy(file.guardrails)
            apply_sections = self.prepare(file.document)
        except OutriderError as exc:
            raise self._located(exc) from exc

        def write() -> None:
            self.chain.apply_policy(chain, file.guardrails_digest)
            apply_sections()

        with self._lock:
            previous = self.repo.get()
            stored = self._apply(file, actor, write)
            assert stored is not None  # no expected version: a reload always applies
        self._record(actor, "policy.reload", stored, previous.digest if previous else None)
        log.info(
            "policy applied fleet-wide",
            extra={"path": self.source.path, "guardrails": len(chain), "version": stored.version},
        )
        return len(chain), self.source.path

    def follow(self) -> None:
        """Another sidecar applied a policy (the `policy` topic, or its counter moved): run the stored one."""
        with self._lock:
            fleet = self.repo.get()
            if fleet is None or fleet.version == self.applied_version:
                return
            self.follow_sections(fleet.document)
            self.chain.refresh()  # the chain's own topic usually got here first
            self._mark(fleet)
        log.info("fleet policy followed", extra={"version": fleet.version, "digest": fleet.digest[:12]})

    def status(self) -> tuple[FleetPolicy | None, Sequence[AppliedPolicy]]:
        return self.repo.get(), self.repo.applied()

    def _located(self, exc: OutriderError) -> OutriderError:
        """The error with the line of its field in this host's file, when it can be told."""
        line = self.source.line_of(exc.field) if self.source is not None and exc.field else None
        if line is None:
            return exc
        return type(exc)(f"{exc.message} (line {line})", reason=exc.reason, field=exc.field)

    def _apply(
        self, file: PolicyDocument, actor: str, write: Callable[[], None], expected_version: int | None = None
    ) -> FleetPolicy | None:
        assert self.source is not None
        policy = FleetPolicy(
            version=0,
            digest=file.digest,
            document=file.document,
            path=self.source.path,
            host=self.host,
            sidecar_id=self.sidecar_id,
            actor=actor,
            apply_time=self.clock.utcnow(),
        )
        stored = self.repo.apply(policy, write, expected_version)
        if stored is not None:
            self._mark(stored)
        return stored

    def _mark(self, fleet: FleetPolicy) -> None:
        self.applied_version = fleet.version
        self.repo.mark_applied(AppliedPolicy(self.sidecar_id, fleet.version, fleet.digest, self.clock.utcnow()))

    def _record(self, actor: str, action: str, stored: FleetPolicy, previous: str | None) -> None:
        self.audit.record(
            actor,
            action,
            stored.path,
            {
                "digest": stored.digest,
                "version": stored.version,
                "previous_digest": previous,
                "host": stored.host,
                "sidecar_id": stored.sidecar_id,
                "guardrails": [g.spec.as_dict() for g in self.chain.stored],
            },
        )
