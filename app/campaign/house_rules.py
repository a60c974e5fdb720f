"""House rules: the campaign's partial ruleset overrides, which every new encounter starts from.

The campaign's row belongs to access; its rules and version are changed here, in the command's transaction: hold
the row (the expected version checked), check that the new rules still know every weapon and armor the roster and the
bestiary use, bump the version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import repository
from app.campaign.schemas import HouseRulesUpdate
from app.platform.errors import Unprocessable
from app.platform.versions import ANY_VERSION, ExpectedVersion
from app.resolver import InvalidRound, Ruleset, build_ruleset
from app.resolver.codec import weapon_from_json
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile


def _check_kept(ruleset: Ruleset, block: Mapping[str, Any]) -> None:
    """The rules still know the block's weapon and armor; else a 422 naming the character or creature."""
    try:
        weapon_profile(weapon_from_json(block["weapon"]), ruleset, "/rules")
        armor = Issues()
        check_armor(armor, block["armor"], ruleset, "/rules")
        armor.raise_if_any()
    except InvalidRound as error:
        kind, resource_id = block["kind"], block["id"]
        raise Unprocessable(
            f"The house rules lack the weapon or armor of {kind} {resource_id} ({error}): "
            f"change its weapon or armor first, or keep that entry in the rules.",
            **{kind: resource_id},
        ) from None


async def update(
    session: AsyncSession, *, campaign_id: str, data: HouseRulesUpdate, expected: ExpectedVersion = ANY_VERSION
) -> dict[str, Any]:
    """Replace the campaign's overrides ({} clears them); the campaign as it now reads."""
    ruleset = build_ruleset(data.rules)  # refuses bad overrides before anything is read or written
    campaign = await repository.hold_campaign(session, campaign_id, expected)
    for block in await repository.stat_blocks(session, campaign_id):
        _check_kept(ruleset, block)
    version = await repository.bump_campaign(session, campaign_id, campaign["version"], rules=data.rules)
    return {**campaign, "rules": data.rules, "version": version}
