"""The catalogue of problem types: every `type` the service answers with, its status and what it means.

Data at the bottom layer (no imports from the domains): tests/api/test_problems.py walks every error class
the app defines and fails when one has no entry here, so a new error type cannot ship unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProblemType:
    slug: str
    status: int
    title: str
    meaning: str
    fix: str


CATALOGUE: dict[str, ProblemType] = {
    p.slug: p
    for p in (
        ProblemType(
            "character-changed",
            409,
            "The character changed since the fight was finished",
            "Reopening a finished encounter would overwrite a character whose version moved since the finish.",
            "Leave the encounter finished, or copy it (POST /v1/encounters/{id}/copy) to fight again.",
        ),
        ProblemType(
            "encounter-finished",
            409,
            "The encounter is finished",
            "A finished encounter takes no rounds, undo, staging, combatant or effect changes; reads go on.",
            "Reopen it (POST /v1/encounters/{id}/reopen) or copy it, then make the change there.",
        ),
        ProblemType(
            "invalid-table-role",
            422,
            "A companion or reinforcement breaks a rule",
            "companion_of names the combatant itself, no combatant of this encounter, or makes a chain; or "
            "reveal_at_round is not after the latest round, or is set on a visible combatant.",
            "The detail and errors[] say which; name a master that is no one's companion, a later round, or hide "
            "the combatant first.",
        ),
        ProblemType(
            "validation-error",
            422,
            "The request is not valid",
            "A field is missing, has the wrong type, is out of bounds or is not allowed; or the body is not JSON.",
            "Each entry of errors[] names a field by JSON pointer and says what is wrong with it; fix those fields.",
        ),
        ProblemType(
            "unsupported-media-type",
            415,
            "Unsupported Media Type",
            "The request has a body but its Content-Type is not application/json.",
            "Send the body as JSON with the header Content-Type: application/json.",
        ),
        ProblemType(
            "webhook-destination-refused",
            422,
            "The webhook's URL is refused",
            "The URL is not http(s), is longer than 2,048 characters, carries credentials, does not resolve, or "
            "resolves to an address that is not public unicast (loopback, private, link-local, shared, multicast, "
            "reserved, documentation, or such an address in IPv6 form); http:// only inside the allowed networks.",
            "Use an https URL of a public host; an operator may allow private networks (WEBHOOK_ALLOWED_NETWORKS).",
        ),
        ProblemType(
            "not-a-discord-webhook",
            422,
            "The URL is not a Discord webhook URL",
            "A subscription in the discord format posts to a Discord webhook: "
            "{DISCORD_API_BASE}/webhooks/{id}/{token}.",
            "Copy the webhook URL from the Discord channel's settings (Integrations, Webhooks).",
        ),
        ProblemType(
            "unknown-key",
            422,
            "A name is not in the ruleset's tables",
            "A weapon (or armor) is named by a key the encounter's ruleset does not have.",
            "Use one of the keys the detail lists (GET /v1/rules shows the armory), or give the weapon inline.",
        ),
        ProblemType(
            "invalid-round",
            422,
            "The round breaks a rule",
            "The declarations or the combatants' state break a rule: a target that is down or absent, "
            "a combatant declared twice, an action its state does not allow.",
            "errors[] points at each offending field; change the declarations or the combatants.",
        ),
        ProblemType(
            "invalid-ruleset",
            422,
            "The ruleset is not valid",
            "A ruleset override names an unknown rule, is out of bounds or contradicts another rule.",
            "Override only keys GET /v1/rules shows, within their bounds.",
        ),
        ProblemType(
            "invalid-dice-notation",
            422,
            "The dice notation is not valid",
            "A damage formula is not NdM, NdM+K or NdM-K within bounds.",
            "Write damage as e.g. 1d8 or 2d6+1.",
        ),
        ProblemType(
            "missing-die",
            422,
            "A die the round needs was not supplied",
            "The round was asked to use only the dice sent, and one it needs is missing.",
            "Send the die the detail names, or a seed so the service rolls the rest.",
        ),
        ProblemType(
            "resolver-error",
            422,
            "The round cannot be resolved",
            "The rules engine refused the round for a reason of its own.",
            "Read detail and errors[].",
        ),
        ProblemType(
            "unprocessable",
            422,
            "The request breaks a rule",
            "The request is well formed but asks for something the service's rules refuse.",
            "Read detail.",
        ),
        ProblemType(
            "invalid-staged-declaration",
            422,
            "A staged declaration no longer fits the encounter",
            "A declaration staged before the round no longer fits: its target was removed, or a rule changed.",
            "Stage the declaration again, or resolve the round with declarations in its body.",
        ),
        ProblemType(
            "idempotency-key-reused",
            422,
            "This Idempotency-Key was used for another request",
            "The Idempotency-Key was first sent with a different method, path or body.",
            "Use a new key for a new request; reuse a key only to retry the very same request.",
        ),
        ProblemType(
            "malformed-idempotency-key",
            400,
            "The Idempotency-Key header is not valid",
            "The Idempotency-Key is empty, too long or has characters outside printable ASCII.",
            "Send 1 to 255 printable ASCII characters, e.g. a UUID.",
        ),
        ProblemType(
            "bad-request",
            400,
            "Bad Request",
            "The request cannot be read at all.",
            "Read detail.",
        ),
        ProblemType(
            "unauthorized",
            401,
            "Missing or bad credentials",
            "No Authorization header, or a key or token the service does not know (revoked, rotated, mistyped).",
            "Send Authorization: Bearer <key> with a current campaign key or encounter token.",
        ),
        ProblemType(
            "forbidden",
            403,
            "Your credentials do not allow this",
            "The credentials are valid but their role does not cover this: a player token changing "
            "another combatant, a read-only token writing.",
            "Use the campaign key, or a token with the role this needs.",
        ),
        ProblemType(
            "not-found",
            404,
            "Not found",
            "No such path, or no such encounter, combatant or round in your campaign.",
            "Check the id; another campaign's resources are not visible to you.",
        ),
        ProblemType(
            "method-not-allowed",
            405,
            "Method Not Allowed",
            "The path exists but not with this method.",
            "The Allow header lists the methods it takes.",
        ),
        ProblemType(
            "conflict",
            409,
            "Conflict: re-read and resend",
            "A concurrent change to the same encounter won.",
            "Read the encounter again and resend your change (with If-Match and the new ETag).",
        ),
        ProblemType(
            "character-busy",
            409,
            "The character is in an unfinished encounter",
            "A character is in at most one unfinished fight: it is linked into the encounter the problem's "
            "`encounter` names, so it cannot join another fight or be deleted.",
            "Remove it from that encounter, or finish that encounter, then retry.",
        ),
        ProblemType(
            "id-taken",
            409,
            "An id of the document already exists here",
            "An imported document's character, creature, encounter or combatant id is already used on this "
            "service (the problem's `noun` and `id` name the first found); nothing was imported.",
            "Import it into another service, or delete what holds the id here first.",
        ),
        ProblemType(
            "not-latest-round",
            409,
            "Only the latest round can be undone",
            "Undo was asked for a round that is not the encounter's latest.",
            "Undo the latest round first (the encounter's round field says which it is).",
        ),
        ProblemType(
            "idempotency-key-in-use",
            409,
            "A request with this Idempotency-Key is still running",
            "A request with the same Idempotency-Key has not finished yet.",
            "Wait a moment and retry with the same key: you will get its answer.",
        ),
        ProblemType(
            "precondition-failed",
            412,
            "The resource changed since you read it",
            "If-Match names an ETag that is no longer current: someone changed the encounter since you read it.",
            "Read it again (current_etag has the new ETag), check your change still makes sense, resend.",
        ),
        ProblemType(
            "payload-too-large",
            413,
            "The request body is too large",
            "The body is over the service's size limit.",
            "Send fewer combatants or declarations per request.",
        ),
        ProblemType(
            "too-many-requests",
            429,
            "Too many requests",
            "You sent more requests than your limit allows in its window.",
            "Wait the seconds Retry-After gives, then retry.",
        ),
        ProblemType(
            "internal-error",
            500,
            "Internal server error",
            "A fault in the service. Nothing was half-done: a change either committed whole or not at all.",
            "Retry later (with the same Idempotency-Key for a POST); report the X-Request-ID if it persists.",
        ),
        ProblemType(
            "too-many-subscribers",
            503,
            "This worker has as many open streams as it serves",
            "The worker that took the request already serves as many event streams as it is configured for.",
            "Retry shortly (another worker may take it), or poll GET with If-None-Match instead of streaming.",
        ),
        ProblemType(
            "round-not-replayed",
            422,
            "A stored round does not come out again",
            "An imported document's round, resolved again from its stored state before it, request and the "
            "encounter's rules, does not give its stored document and state after it: the document was changed. "
            "The problem's `encounter` and `round` name it; nothing was imported.",
            "Import the document as it was exported.",
        ),
        ProblemType(
            "chronicle-range",
            422,
            "The rounds asked for are not in the chronicle",
            "`from` is after `to`, or names a round the encounter has not resolved (rounds go 1..its latest).",
            "Ask for rounds between 1 and the encounter's `round`, with from ≤ to; leave both out for every round.",
        ),
        ProblemType(
            "odds-budget-exceeded",
            422,
            "The odds asked for exceed the work budget",
            "fights × max_rounds × combatants is above the configured budget (ODDS_BUDGET); nothing was played. "
            "The problem carries the budget and the work asked for.",
            "Ask for fewer fights or fewer rounds (errors[] points at /fights and /max_rounds).",
        ),
        ProblemType(
            "odds-unavailable",
            503,
            "The odds workers are restarting; retry shortly",
            "A process playing the fights stopped; the next request gets a fresh pool.",
            "Retry after the seconds in Retry-After.",
        ),
        ProblemType(
            "odds-queue-full",
            503,
            "This worker has as many odds waiting as it takes",
            "The worker that took the request already has as many fights in play or waiting as it is configured "
            "for (ODDS_MAX_PENDING, per worker); nothing was played. The problem carries pending and max_pending.",
            "Retry after the seconds in Retry-After (another worker may take it), or ask for fewer fights.",
        ),
        ProblemType(
            "database-unavailable",
            503,
            "The database is unavailable; retry shortly",
            "The database did not answer. Nothing was changed.",
            "Retry after the seconds Retry-After gives (with the same Idempotency-Key for a POST).",
        ),
    )
}
