"""May the agent deploy? A `hitl` guardrail makes it wait for a person; here a thread plays the reviewer.

    make run                                   # demo sidecar, authentication disabled
    .venv/bin/python clients/python/examples/check_action.py

OUTRIDER_TARGET / OUTRIDER_TOKEN point it elsewhere (adding guardrails and deciding need an operator).
"""

import threading
import time

from google.protobuf import struct_pb2

from outrider import Client
from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb

AGENT, GUARDRAIL = "example-agent", "example-approval"


def review(client: Client) -> None:
    """What a reviewer does on the console: find the pending request and approve it."""
    for _ in range(200):
        request = pb.ListApprovalsRequest(agent_id=AGENT, state=supervisor_pb2.APPROVAL_STATE_PENDING)
        pending = client.call(client.supervisor.ListApprovals, request).approvals
        if pending:
            decision = pb.DecideApprovalRequest(approval_id=pending[0].approval_id, approve=True, comment="ship it")
            client.call(client.supervisor.DecideApproval, decision)
            return
        time.sleep(0.05)


with Client() as client:  # 127.0.0.1:50051, or $OUTRIDER_TARGET; token from $OUTRIDER_TOKEN
    options = struct_pb2.Struct()
    options.update({"patterns": ["deploy"]})
    guardrail = supervisor_pb2.Guardrail(name=GUARDRAIL, kind="hitl", options=options)
    client.call(client.supervisor.AddGuardrail, pb.AddGuardrailRequest(guardrail=guardrail))
    try:
        reviewer = threading.Thread(target=review, args=(client,))
        reviewer.start()
        r = client.check_action(AGENT, "deploy", {"version": "1.4.2"})  # waits until someone decides
        reviewer.join()
        print(f"deploy: allowed={r.allowed} approval={r.approval_state} reason={r.reason!r}")
        r = client.check_action(AGENT, "read_docs")  # no approval needed
        print(f"read_docs: allowed={r.allowed} severity={r.severity}")
    finally:
        client.call(client.supervisor.RemoveGuardrail, pb.RemoveGuardrailRequest(name=GUARDRAIL))
