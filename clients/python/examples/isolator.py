"""the SupervisorAgent library's FailureIsolator: a flaky dependency behind a circuit breaker that the sidecar keeps.

.venv/bin/python clients/python/examples/isolator.py     # against `make run`
"""

import time

from outrider import Client, Isolator

KEY = "example-agent:weather-api"  # an agent id, or agent_id:dependency


def weather_api() -> str:
    raise ConnectionError("weather API down")


def forecast() -> str:
    return "sunny (yesterday's forecast)"


with Client() as client:
    isolator = Isolator(client)
    # Operator settings for the key (the defaults are 3 failures and 30 s); start from CLOSED.
    isolator.configure(KEY, failure_threshold=2, recovery_timeout=1.0)
    isolator.reset(KEY)
    for call in range(1, 4):
        try:
            answer = isolator.execute(KEY, weather_api, fallback=forecast)
            print(f"call {call}: degraded to {answer!r} [{isolator.state(KEY)}]")
        except ConnectionError as err:  # below the threshold the caller's own error comes back
            print(f"call {call}: raised {err} [{isolator.state(KEY)}]")
    time.sleep(1.2)  # the recovery timeout passes: the next call is a probe
    answer = isolator.execute(KEY, lambda: "rain", fallback=forecast)
    print(f"probe: {answer!r} [{isolator.state(KEY)}]")
