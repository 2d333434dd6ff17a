"""An agent process holding its control channel: pings answered, RESTART and KILL handled by callbacks.

    .venv/bin/python clients/python/examples/agent.py     # against `make run`

The operator's side (health check, recovery, kill) runs in the same script, so it needs an operator
credential, as in demo mode.
"""

import threading

from google.protobuf import duration_pb2

from outrider import Agent, Client, Command
from outrider.v1 import common_pb2, recovery_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as spb

AGENT = "example-agent"
restarted = threading.Event()


def on_restart(command: Command) -> None:
    print(f"agent: restart requested ({command.reason})")
    restarted.set()


def on_kill(command: Command) -> None:
    assert command.kill is not None
    print(f"agent: killed ({command.kill.reason}: {command.kill.details}), stopping")


with Client() as client:
    client.call(client.supervisor.RegisterAgent, spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=AGENT)))
    with Agent(client, AGENT, on_restart=on_restart, on_kill=on_kill) as agent:
        print(f"agent: connected={agent.connected}")
        # Operator: a ping health check, answered by the helper on its own.
        ping = recovery_pb2.HealthCheck(ping=recovery_pb2.PingCheck(timeout=duration_pb2.Duration(seconds=5)))
        client.call(client.recovery.AddHealthCheck, rpb.AddHealthCheckRequest(agent_id=AGENT, check=ping))
        statuses = client.call(client.recovery.RunHealthChecks, rpb.RunHealthChecksRequest()).statuses
        print(f"operator: healthy={[s.healthy for s in statuses if s.agent_id == AGENT]}")
        # Operator: a recovery attempt (the ladder's first rung is RESTART) reaches on_restart.
        client.call(client.recovery.ResetRetryCounter, rpb.ResetRetryCounterRequest(agent_id=AGENT))
        client.call(client.recovery.TriggerRecovery, rpb.TriggerRecoveryRequest(agent_id=AGENT, reason="demo"))
        restarted.wait(10)
        # Operator: the kill switch; the helper acks after on_kill and stops.
        kill = rpb.KillRequest(agent_id=AGENT, reason=recovery_pb2.KILL_REASON_MANUAL, details="demo over")
        result = client.call(client.recovery.Kill, kill, timeout=30).result
        agent.wait(10)
        print(f"operator: terminated={result.terminated}; agent stopped because {agent.stopped_because}")
