"""Which principal may call which RPC. Every RPC of every service must appear here (a test checks):
a method without a rule is refused."""

from __future__ import annotations

from server.domain.access.principals import Rule, Scope

OPERATOR = Rule(Scope.OPERATOR)
ADMIN = Rule(Scope.ADMIN)
ANY = Rule(Scope.ANY)
OWNED = Rule(Scope.OWNED)


def own(*fields: str) -> Rule:
    return Rule(Scope.AGENT_SELF, fields)


def own_key(field: str) -> Rule:
    return Rule(Scope.AGENT_KEY, (field,))


_SUPERVISOR = {
    "RegisterAgent": own("agent.agent_id"),
    "DeregisterAgent": OPERATOR,
    "GetAgent": own("agent_id"),
    "ListAgents": OPERATOR,
    "CheckAction": own("agent_id"),
    # Every message: check.agent_id is the agent's own.
    "CheckActions": own("check.agent_id"),
    # Side-effect free: an agent may ask what its own call would get.
    "ExplainAction": own("agent_id"),
    "AddGuardrail": OPERATOR,
    "RemoveGuardrail": OPERATOR,
    "ListGuardrails": OPERATOR,
    "ReloadPolicy": OPERATOR,
    "ListDecisions": own("agent_id"),
    "GetApproval": OWNED,
    "WatchApproval": OWNED,
    "ListApprovals": own("agent_id"),
    # Nothing about approvals can be decided over an agent credential.
    "DecideApproval": OPERATOR,
    "CancelApproval": OWNED,
    "AddApprovalPattern": OPERATOR,
    "RemoveApprovalPattern": OPERATOR,
}

_RECOVERY = {
    "Attach": own("hello.agent_id"),
    "Heartbeat": own("agent_id"),
    "AddHealthCheck": OPERATOR,
    "RemoveHealthCheck": OPERATOR,
    "StartMonitoring": OPERATOR,
    "StopMonitoring": OPERATOR,
    "GetMonitoringState": OPERATOR,
    "RunHealthChecks": OPERATOR,
    "GetAgentRecoveryStatus": own("agent_id"),
    "ListAgentRecoveryStatuses": OPERATOR,
    "TriggerRecovery": OPERATOR,
    "SetRecoveryPolicy": OPERATOR,
    "GetRecoveryPolicy": OPERATOR,
    "ListRecoveryPolicies": OPERATOR,
    "ResetRetryCounter": OPERATOR,
    "GetRecoveryHistory": own("agent_id"),
    "GetRetryCount": own("agent_id"),
    "Kill": OPERATOR,
    "ReinstateAgent": OPERATOR,
    "GetKill": OPERATOR,
    "ListKills": OPERATOR,
    "RegisterSubstitute": OPERATOR,
    "DeregisterSubstitute": OPERATOR,
    "ListSubstitutes": OPERATOR,
    # An agent may report a failure it suffered itself.
    "ReportFailure": own("to_agent"),
    "GetCascadePolicy": OPERATOR,
    "SetCascadePolicy": OPERATOR,
    "WatchRecoveryEvents": OPERATOR,
    "ListRecoveryEvents": OPERATOR,
}

_SAFEGUARD = {
    "AcquirePermit": own_key("key"),
    "ReportOutcome": OWNED,
    "ReportOutcomes": OWNED,
    "ReleasePermit": OWNED,
    "GetBreaker": own_key("key"),
    "ListBreakers": OPERATOR,
    "ResetBreaker": OPERATOR,
    "ForceOpen": OPERATOR,
    "ForceClose": OPERATOR,
    "SetBreakerConfig": OPERATOR,
    "Allocate": OPERATOR,
    "Consume": own("agent_id"),
    "CanConsume": own("agent_id"),
    "Remaining": own("agent_id"),
    "GlobalRemaining": ANY,
    "UsagePercent": own("agent_id"),
    "GlobalUsagePercent": ANY,
    "GetAllocation": own("agent_id"),
    "ListAllocations": OPERATOR,
    "SetGlobalBudget": OPERATOR,
    "Reserve": own("agent_id"),
    "Settle": OWNED,
    "RecordEpisode": own("episode.agent_id"),
    "QuerySimilar": ANY,
    "QueryByAgent": own("agent_id"),
    "QueryByOutcome": ANY,
    "AcquireLease": own("agent_id"),
    "RenewLease": OWNED,
    "ReleaseLease": OWNED,
    "GetLease": OWNED,
    "ListLeases": OPERATOR,
    "AssessReversibility": ANY,
    "ListReversibilityRules": ANY,
    # Another agent's capabilities are not an agent's business.
    "ValidatePlan": Rule(Scope.AGENT_SELF, ("agent_id",), optional=True),
}

_ACCESS = {
    "WhoAmI": ANY,
    # Minting credentials needs an admin: an operator must not be able to become a second reviewer.
    "IssueToken": ADMIN,
    "RevokeToken": ADMIN,
    "RevokeCertificate": ADMIN,
    "ListTokens": OPERATOR,
}

RULES: dict[str, Rule] = {
    f"/outrider.v1.{service}/{method}": rule
    for service, table in (
        ("SupervisorService", _SUPERVISOR),
        ("RecoveryService", _RECOVERY),
        ("SafeguardService", _SAFEGUARD),
        ("AccessService", _ACCESS),
    )
    for method, rule in table.items()
}

# Infrastructure every client may use without a credential (load balancers, grpcurl).
OPEN_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")
