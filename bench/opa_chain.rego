# The bench's five-guardrail chain (bench/checkaction.py's POLICY) in Rego, for bench/opa.py: the same
# decision OPA answers at POST /v1/data/outrider/bench/decision with {"input": {agent_id, action, context,
# calls_in_window}}. OPA keeps no state between calls, so the rate limit compares a count the caller
# passes in (`calls_in_window`) where Outrider counts calls itself; the agents' groups are data here
# where Outrider reads its registry. Globs ignore case as Outrider's action_list does; Rego has no
# NFKC, so the trust root scans the raw strings (Outrider scans their NFKC forms too).
package outrider.bench

blocked_patterns := [`(?i)rm\s+-rf`, `(?i)DROP\s+TABLE`]

cost_max := 100

deny_actions := ["shell.*", "payments.refund_all"]

rate_max := 100000000

allow_actions := ["files.read", "files.list", "search.*"]

allow_groups := {"analysts"}

agents := {"bench-agent-01": {"group": "analysts"}}

action := lower(input.action)

# The action and every string leaf of the context, map keys included (trust_root).
texts contains input.action

texts contains value if {
	walk(input.context, [_, value])
	is_string(value)
}

texts contains key if {
	walk(input.context, [path, _])
	count(path) > 0
	key := path[count(path) - 1]
	is_string(key)
}

root_hit if {
	some text in texts
	some pattern in blocked_patterns
	regex.match(pattern, text)
}

cost_hit if input.context.cost > cost_max

cost_hit if {
	"cost" in object.keys(input.context)
	not is_number(input.context.cost)
}

deny_hit if {
	some pattern in deny_actions
	glob.match(pattern, [], action)
}

rate_hit if input.calls_in_window >= rate_max

in_allow_groups if agents[input.agent_id].group in allow_groups

allow_miss if {
	in_allow_groups
	not allowed_action
}

allowed_action if {
	some pattern in allow_actions
	glob.match(pattern, [], action)
}

# The first guardrail that blocks decides; an allowed call names the last one, as CheckAction does.
decision := {"allowed": false, "guardrail": "root"} if {
	root_hit
} else := {"allowed": false, "guardrail": "cost-cap"} if {
	cost_hit
} else := {"allowed": false, "guardrail": "tools"} if {
	deny_hit
} else := {"allowed": false, "guardrail": "pace"} if {
	rate_hit
} else := {"allowed": false, "guardrail": "analysts"} if {
	allow_miss
} else := {"allowed": true, "guardrail": "analysts"}
