"""Run as a separate process: decide approvals on the shared database, as a standalone console does.

python -m tests.integration.decide_elsewhere DATA_DIR APPROVAL_ID approve|reject REVIEWER
"""

from __future__ import annotations

import sys
from pathlib import Path

from server.bootstrap import build_services
from server.config import Config
from server.domain.approvals.requests import Reviewer


def main() -> None:
    data_dir, approval_id, verdict, reviewer = sys.argv[1:5]
    services = build_services(Config(data_dir=Path(data_dir), console_enabled=False))
    try:
        services.approvals.decide(
            approval_id,
            Reviewer(reviewer, "approver"),
            verdict == "approve",
            "" if verdict == "approve" else f"rejected elsewhere by {reviewer}",
        )
    finally:
        services.close()


if __name__ == "__main__":
    main()
