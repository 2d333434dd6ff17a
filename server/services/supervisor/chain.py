"""The guardrail chain store: persist, load, reload from the policy file, refresh from storage.

The chain CheckAction runs is `ChainStore.order` (evaluation order, swapped whole under a lock).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.domain.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound, OutriderError
from server.domain.guardrails import Guardrail, GuardrailSpec, build_guardrail, evaluation_order, running_order
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.hitl import DEFAULT_NAME as DEFAULT_HITL_NAME
from server.domain.guardrails.hitl import Hitl
from server.domain.guardrails.plugin import PluginLoader
from server.domain.guardrails.policy import build_specs, parse_guardrails
from server.services.fleet.ports import GUARDRAILS_TOPIC, ChangeFeed
from server.services.ports import AuditSink, GuardrailRepository, PolicySource

log = logging.getLogger(__name__)

# A policy file section besides `guardrails:` (recovery, reversibility): parses its section and returns the
# function that applies it, so a reload is all or nothing.
PolicySection = Callable[[], Callable[[], None]]
_CAS_ATTEMPTS = 32  # compare-and-set rounds before a chain change answers ABORTED (each round one writer wins)


class ChainStore:
    def __init__(
        self,
        repo: GuardrailRepository,
        policy: PolicySource | None,
        audit: AuditSink,
        load_plugin: PluginLoader,
        guardrail_deps: GuardrailDeps,
        sections: Sequence[PolicySection] = (),
        changes: ChangeFeed | None = None,
    ) -> None:
        self.repo = repo
        self.policy = policy
        self.audit = audit
        self.load_plugin = load_plugin
        # Services the `breaker` and `budget` kinds call at check time.
        self.guardrail_deps = guardrail_deps
        self.sections = tuple(sections)
        self._lock = threading.Lock()
        self._stored: list[Guardrail] = []  # chain order, as stored
        self._order: tuple[Guardrail, ...] = ()  # evaluation order, swapped whole
        self._version = -1  # the stored chain version this process runs
        if changes is not None:  # another sidecar replaced the chain: reload now (the 1 s poll is the fallback)
            changes.subscribe(GUARDRAILS_TOPIC, lambda _version: self._follow(), self._follow)

    @property
    def order(self) -> tuple[Guardrail, ...]:
        """The chain in evaluation order (trust roots first); one attribute read, safe without the lock."""
        return self._order

    @property
    def stored(self) -> tuple[Guardrail, ...]:
        """The chain in stored (policy file) order."""
        return tuple(self._stored)

    def load(self, *, audit: bool = True) -> bool:
        """At start-up: the stored chain, unless the policy file changed since it was applied (True: the
        file's chain replaced it; `audit=False` when the caller audits the whole policy it applies)."""
        specs, stored_digest = self.repo.load()
        if self.policy is not None:
            raw, file_digest = self.policy.read()
            if file_digest != stored_digest:
                chain = self._parse_policy(raw)
                self._swap(chain, policy_digest=file_digest)
                if audit:
                    self.audit.record(
                        "system",
                        "policy.apply",
                        self.policy.path,
                        {"digest": file_digest, "guardrails": [g.spec.as_dict() for g in chain]},
                    )
                log.info("policy applied from file", extra={"path": self.policy.path, "guardrails": len(chain)})
                return True
        with self._lock:
            self._stored = build_specs(specs, self.load_plugin, deps=self.guardrail_deps)
            self._order = running_order(self._stored)
        log.info("guardrail chain loaded from storage", extra={"guardrails": len(specs)})
        return False

    def parse_policy(self, raw: Any) -> list[Guardrail]:
        """A policy file's `guardrails:` built into a chain, nothing changed (errors name the file)."""
        return self._parse_policy(raw)

    def apply_policy(self, chain: list[Guardrail], policy_digest: str) -> None:
        """Store and run a parsed policy's chain (the fleet policy service audits the whole policy)."""
        self._swap(chain, policy_digest=policy_digest)

    def reload(self, actor: str = "system") -> tuple[int, str]:
        """Replace the chain with the policy file's; on any error the old chain stays."""
        if self.policy is None:
            raise FailedPrecondition("no policy file is configured; start the sidecar with --config FILE")
        raw, file_digest = self.policy.read()
        chain = self._parse_policy(raw)
        # Every section is parsed before anything changes: an error anywhere keeps all of the old policy.
        apply_sections = [prepare() for prepare in self.sections]
        self._swap(chain, policy_digest=file_digest)
        for apply in apply_sections:
            apply()
        self.audit.record(
            actor,
            "policy.reload",
            self.policy.path,
            {"digest": file_digest, "guardrails": [g.spec.as_dict() for g in chain]},
        )
        log.info("policy reloaded", extra={"path": self.policy.path, "guardrails": len(chain)})
        return len(chain), self.policy.path

    def _parse_policy(self, raw: Any) -> list[Guardrail]:
        assert self.policy is not None
        try:
            return parse_guardrails(raw, self.load_plugin, deps=self.guardrail_deps)
        except OutriderError as exc:
            raise type(exc)(f"{self.policy.path}: {exc.message}", reason=exc.reason, field=exc.field) from exc

    def _swap(self, chain: list[Guardrail], policy_digest: str | None = None) -> None:
        with self._lock:
            self._persist(chain, policy_digest)

    def _persist(self, chain: list[Guardrail], policy_digest: str | None) -> None:
        # Caller holds the lock. Storage first: a change is acknowledged only once it is durable.
        path = self.policy.path if self.policy else ""
        self._version = self.repo.replace([g.spec for g in chain], policy_digest, path)
        self._stored = chain
        self._order = running_order(chain)

    def refresh(self) -> bool:
        """Pick up a chain changed by another process (a separate console, another sidecar on the same
        PostgreSQL): one tiny read when nothing changed. True when the chain was reloaded."""
        seen = self._version
        version = self.repo.version()
        if version == seen:
            return False
        specs, _ = self.repo.load()
        chain = self._rebuild(specs)
        with self._lock:
            if self._version != seen:
                # This process stored a change while we read: it is newer than what we read; keep it.
                return False
            self._stored, self._order, self._version = chain, running_order(chain), version
        log.info("guardrail chain reloaded from storage", extra={"guardrails": len(chain), "version": version})
        return True

    def _rebuild(self, specs: Sequence[GuardrailSpec]) -> list[Guardrail]:
        """The chain for `specs`, keeping the running guardrail of every spec that did not change (its
        state, e.g. a rate window, survives an unrelated change made elsewhere)."""
        unused = list(self._stored)
        chain: list[Guardrail] = []
        for spec in specs:
            same = next((g for g in unused if g.spec == spec), None)
            if same is not None:
                unused.remove(same)
                chain.append(same)
            else:
                chain.append(build_guardrail(spec, self.load_plugin, deps=self.guardrail_deps))
        return chain

    def _change(
        self,
        edit: Callable[[list[Guardrail]], list[Guardrail]],
        answer: Callable[[list[Guardrail]], Any] | None = None,
    ) -> list[Guardrail]:
        """Caller holds the lock. Compare-and-set on the chain version: `edit` the chain this process
        runs and store it only if nobody stored another since; otherwise reload and edit again, so two
        sidecars' changes are both kept, never lost or duplicated. ABORTED after repeated conflicts.
        `answer(chain)`: what the call answers for the new chain, stored with it (its idempotency record)."""
        for _ in range(_CAS_ATTEMPTS):
            try:
                chain = edit(list(self._stored))
            except OutriderError:
                if self.repo.version() == self._version:
                    raise  # refused on the current chain (e.g. no such guardrail)
                self._reread()  # refused on a stale chain: judge the stored one
                continue
            version = self.repo.replace_if(
                [g.spec for g in chain], self._version, answer(chain) if answer is not None else None
            )
            if version is not None:
                self._stored, self._order, self._version = chain, running_order(chain), version
                return chain
            self._reread()
        raise Aborted("the guardrail chain kept changing on other sidecars; retry the change", reason="CHAIN_CONFLICT")

    def _reread(self) -> None:
        """Caller holds the lock: take the stored chain (its version first, so a later change is seen)."""
        version = self.repo.version()
        specs, _ = self.repo.load()
        self._stored = self._rebuild(specs)
        self._order, self._version = running_order(self._stored), version

    def _follow(self) -> None:
        self.refresh()

    def add_guardrail(
        self, name: str, kind: str, options: Mapping[str, Any], actor: str = "system"
    ) -> tuple[GuardrailSpec, int]:
        if kind == Hitl.kind and not name:
            name = DEFAULT_HITL_NAME
        guardrail = build_guardrail(
            GuardrailSpec(name, kind, dict(options), "runtime"), self.load_plugin, deps=self.guardrail_deps
        )
        with self._lock:
            self._change(
                lambda chain: [*chain, guardrail],
                lambda chain: (guardrail.spec, evaluation_order(chain).index(guardrail)),
            )
            position = self._order.index(guardrail)
        self.audit.record(actor, "guardrail.add", name, {**guardrail.spec.as_dict(), "position": position})
        return guardrail.spec, position

    def remove_guardrail(self, name: str, actor: str = "system") -> int:
        if not name:
            raise InvalidArgument("name is required", field="name")
        removed: list[int] = []

        def edit(chain: list[Guardrail]) -> list[Guardrail]:
            matching = [g for g in chain if g.name == name]
            if not matching:
                raise NotFound(f"no guardrail is named {name!r}", field="name")
            if any(g.runs_first for g in matching):
                raise FailedPrecondition(
                    f"guardrail {name!r} is a trust_root: it can only be changed in the policy file",
                    reason="TRUST_ROOT_IMMUTABLE",
                )
            removed[:] = [len(matching)]
            return [g for g in chain if g.name != name]

        with self._lock:
            self._change(edit, lambda _chain: removed[0])
        self.audit.record(actor, "guardrail.remove", name, {"removed": removed[0]})
        return removed[0]

    def change_approval_pattern(self, guardrail: str, pattern: str, add: bool, actor: str = "system") -> list[str]:
        """Add or remove a pattern of every hitl guardrail named `guardrail` (persisted)."""
        name = guardrail or DEFAULT_HITL_NAME
        if not pattern:
            raise InvalidArgument("pattern is required", field="pattern")
        patterns: list[str] = []

        def edit(chain: list[Guardrail]) -> list[Guardrail]:
            targets = [g for g in chain if g.name == name and isinstance(g, Hitl) and g.kind == Hitl.kind]
            if not targets:
                raise NotFound(f"no hitl guardrail is named {name!r}", field="guardrail")
            patterns[:] = list(targets[0].patterns)
            if add and pattern not in patterns:
                patterns.append(pattern)
            elif not add:
                if pattern not in patterns:
                    raise NotFound(f"hitl guardrail {name!r} has no pattern {pattern!r}", field="pattern")
                patterns.remove(pattern)
            return [g.with_patterns(tuple(patterns)) if g in targets else g for g in chain]

        with self._lock:
            self._change(edit, lambda _chain: list(patterns))
        self.audit.record(
            actor,
            "approval_pattern.add" if add else "approval_pattern.remove",
            name,
            {"pattern": pattern, "patterns": patterns},
        )
        return patterns

    def list_guardrails(self) -> list[GuardrailSpec]:
        return [g.spec for g in self._order]
