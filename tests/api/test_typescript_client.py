"""TypeScript types generated from the document with openapi-typescript's default options type the README's
own request bodies, and tsc --strict compiles them, sent through openapi-fetch's typed calls with the
README's header names. A body the document refuses must not compile (the @ts-expect-error lines).

Node and npm come from scripts/ensure-node (Debian's packages when missing), the npm tools from a cache
folder it fills. Skipped only when the npm registry cannot be reached and REQUIRE_POSTGRES is unset."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from app.config import Settings
from app.main import create_app
from tests.conftest import REQUIRE_POSTGRES

ROOT = Path(__file__).resolve().parents[2]

# Every body the README sends with curl (A whole fight, ETags, tokens, effects, table play, odds, the
# campaign's roster, bestiary and house rules), typed by the generated types.
README_BODIES = """
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type S = components["schemas"];
const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });
declare const ENC: string, ALA: string, BOLEK: string, CZAREK: string, EFFECT: string, KEY_ID: string;
declare const etag: string;

const campaign: S["CampaignCreate"] = { name: "Cienie nad Wisłą" };
const encounter: S["EncounterCreate"] = { name: "Ambush at the ford" };
const withRules: S["EncounterCreate"] = { name: "Ambush at the ford", rules: { delay_die: 8 } };
const ala: S["CombatantCreate"] = {
  name: "Ala", initiative: 20, attack: 14, defense: 4, weapon: "long_sword", armor: 1,
};
const bolek: S["CombatantCreate"] = {
  name: "Bolek", initiative: 18, attack: 12, defense: 5, weapon: "spear", weapon_ready: false,
  wounds: [{ class: "moderate" }],
};
const czarek: S["CombatantCreate"] = {
  name: "Czarek", initiative: 16, attack: 10, defense: 3, weapon: "dagger", attacks_per_round: 2,
};
const round1: S["RoundCreate"] = {
  declarations: [
    { combatant: ALA, stance: "offensive", action: { type: "attack", target: BOLEK } },
    { combatant: BOLEK, stance: "defensive", action: { type: "attack", target: ALA } },
    { combatant: CZAREK, action: { type: "attack", targets: [BOLEK, ALA] } },
  ],
  dice: { [`${ALA}.initiative.1`]: 3, [`${ALA}.attack.1`]: 5 },
  seed: 7,
};
const round2: S["RoundCreate"] = {
  declarations: [
    { combatant: ALA, action: { type: "attack", target: CZAREK } },
    { combatant: CZAREK, action: { type: "custom", name: "throw sand", delay: 2 } },
  ],
  seed: 42,
};
const quiet: S["RoundCreate"] = { declarations: [], seed: 3 };
const firstAid: S["RoundCreate"] = {
  declarations: [{ combatant: BOLEK, action: { type: "first_aid", target: BOLEK } }],
  seed: 11,
};
const chant: S["RoundCreate"] = {
  declarations: [{
    combatant: CZAREK,
    action: {
      type: "custom", name: "healing chant", delay: 5, rounds: 3, target: BOLEK,
      effect: { name: "regenerating", blood_per_turn: -1, rounds: 20 },
    },
  }],
  seed: 21,
};
const goOn: S["RoundCreate"] = { declarations: [{ combatant: CZAREK, action: { type: "continue" } }], seed: 22 };
const rename: S["EncounterUpdate"] = { name: "Ambush at the ford, at dusk" };
const player: S["TokenCreate"] = { role: "player", combatant: ALA };
const viewer: S["TokenCreate"] = { role: "viewer" };
const blessed: S["EffectCreate"] = { name: "blessed", attack: 1, defense: 1, turns: 2 };
const staged: S["DeclarationStage"] = {
  stance: "offensive", action: { type: "attack", target: BOLEK }, dice: { [`${ALA}.attack.1`]: 12 },
};
const odds: S["OddsCreate"] = { fights: 1000, max_rounds: 50, seed: 7 };
const houseRules: S["HouseRulesUpdate"] = { rules: { armory: { flail: { delay: 7, damage: "1d10" } } } };
const character: S["CharacterCreate"] = {
  name: "Ala", initiative: 20, attack: 14, defense: 4, weapon: "flail", armor: "leather",
};
const creature: S["CreatureCreate"] = {
  name: "Goblin", initiative: 12, attack: 9, defense: 2, weapon: "dagger", vitality: 6,
};

// What the export answers, the import takes as its body: no cast.
async function moveCampaign(): Promise<void> {
  const exported = await client.GET("/v1/campaign/export", { headers: { Authorization: "Bearer cmp_x" } });
  if (exported.data !== undefined) {
    await client.POST("/v1/campaigns/import", { body: exported.data });
  }
}
void moveCampaign;

// Bodies the document refuses do not compile either: the types say something.
// @ts-expect-error a custom action needs its delay
const slow: S["DeclarationIn"] = { combatant: ALA, action: { type: "custom", name: "throw sand" } };
// @ts-expect-error no such action
const dance: S["DeclarationIn"] = { combatant: ALA, action: { type: "dance" } };
// @ts-expect-error no such field
const extra: S["EffectCreate"] = { name: "x", colour: "red" };
void [slow, dance, extra];

async function fight(): Promise<void> {
  await client.POST("/v1/campaigns", { body: campaign });
  const created = await client.POST("/v1/encounters", { body: encounter, headers: { "Idempotency-Key": "e1" } });
  const id: string | undefined = created.data?.id;
  void id;
  await client.POST("/v1/encounters", { body: withRules });
  for (const body of [ala, bolek, czarek]) {
    await client.POST("/v1/encounters/{encounter_id}/combatants", {
      params: { path: { encounter_id: ENC } }, body,
    });
  }
  for (const body of [round1, round2, quiet, firstAid, chant, goOn]) {
    await client.POST("/v1/encounters/{encounter_id}/rounds", {
      params: { path: { encounter_id: ENC }, header: { "Idempotency-Key": `round-${body.seed}` } }, body,
    });
  }
  const read = await client.GET("/v1/encounters/{encounter_id}", {
    params: { path: { encounter_id: ENC }, header: { "If-None-Match": etag } },
  });
  const round: number | undefined = read.data?.round;
  void round;
  await client.PATCH("/v1/encounters/{encounter_id}", {
    params: { path: { encounter_id: ENC }, header: { "If-Match": etag } }, body: rename,
  });
  await client.PATCH("/v1/encounters/{encounter_id}", {
    params: { path: { encounter_id: ENC } }, headers: { "If-Match": etag }, body: rename,
  });
  for (const body of [player, viewer]) {
    await client.POST("/v1/encounters/{encounter_id}/tokens", { params: { path: { encounter_id: ENC } }, body });
  }
  // Literals: openapi-fetch's Writable<> turns a null-only property (CombatantUpdate.long_action) into
  // never, so a variable typed S["CombatantUpdate"] is not accepted as a body; the README's literals are.
  await client.PATCH("/v1/encounters/{encounter_id}/combatants/{combatant_id}", {
    params: { path: { encounter_id: ENC, combatant_id: ALA } }, headers: { "If-Match": etag },
    body: { weapon: "dagger", weapon_ready: false },
  });
  await client.PATCH("/v1/encounters/{encounter_id}/combatants/{combatant_id}", {
    params: { path: { encounter_id: ENC, combatant_id: ALA } }, body: { side: "party" },
  });
  await client.POST("/v1/encounters/{encounter_id}/combatants/{combatant_id}/effects", {
    params: { path: { encounter_id: ENC, combatant_id: ALA } }, body: blessed,
  });
  await client.DELETE("/v1/encounters/{encounter_id}/combatants/{combatant_id}/effects/{effect_id}", {
    params: { path: { encounter_id: ENC, combatant_id: ALA, effect_id: EFFECT } }, headers: { "If-Match": etag },
  });
  await client.PUT("/v1/encounters/{encounter_id}/declarations/{combatant_id}", {
    params: { path: { encounter_id: ENC, combatant_id: ALA } }, body: staged,
  });
  await client.DELETE("/v1/encounters/{encounter_id}/declarations/{combatant_id}", {
    params: { path: { encounter_id: ENC, combatant_id: ALA } },
  });
  await client.POST("/v1/encounters/{encounter_id}/stream-tickets", { params: { path: { encounter_id: ENC } } });
  await client.POST("/v1/encounters/{encounter_id}/odds", { params: { path: { encounter_id: ENC } }, body: odds });
  await client.PATCH("/v1/campaign", { body: houseRules, headers: { "If-Match": etag } });
  await client.POST("/v1/characters", { body: character });
  await client.POST("/v1/creatures", { body: creature });
  await client.DELETE("/v1/campaign/keys/{key_id}", { params: { path: { key_id: KEY_ID } } });
}
void fight;
"""


def npm_registry_reachable() -> bool:
    try:
        return subprocess.run(["npm", "ping"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="module")
def node_tools() -> Path:
    result = subprocess.run(["bash", str(ROOT / "scripts" / "ensure-node")], capture_output=True, text=True,
                            timeout=900)
    if result.returncode != 0:
        if not REQUIRE_POSTGRES and not npm_registry_reachable():
            pytest.skip("the npm registry is unreachable (set REQUIRE_POSTGRES=1 to make this a failure): "
                        + result.stderr[-500:])
        pytest.fail("scripts/ensure-node failed:\n" + result.stdout + result.stderr)
    return Path(result.stdout.strip().splitlines()[-1])


def run(tools: Path, command: list[str], cwd: Path) -> str:
    result = subprocess.run([str(tools / "node_modules" / ".bin" / command[0]), *command[1:]], cwd=cwd,
                            capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def project(node_tools, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("typescript")
    (root / "node_modules").symlink_to(node_tools / "node_modules")
    spec = root / "openapi.json"
    spec.write_text(json.dumps(create_app(Settings(database_url="sqlite+aiosqlite:///:memory:")).openapi()))
    run(node_tools, ["openapi-typescript", str(spec), "--output", str(root / "schema.d.ts")], root)  # its defaults
    (root / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "noEmit": True, "target": "es2022", "module": "esnext", "moduleResolution": "bundler",
        "lib": ["es2022", "dom"], "skipLibCheck": False, "noUnusedLocals": False}}))
    return root


def compile_ts(tools: Path, root: Path, source: str, name: str) -> subprocess.CompletedProcess[str]:
    (root / name).write_text(source)
    return subprocess.run([str(tools / "node_modules" / ".bin" / "tsc"), "--strict", "--noEmit", "--project",
                           str(root / "tsconfig.json")], cwd=root, capture_output=True, text=True, timeout=300)


def test_the_readme_bodies_compile_against_the_generated_types(node_tools, project):
    for stale in project.glob("*.ts"):
        if stale.name != "schema.d.ts":
            stale.unlink()
    result = compile_ts(node_tools, project, README_BODIES, "readme.ts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_compiler_would_notice_a_wrong_body(node_tools, project):
    """The check can fail: an encounter without its name and a header the document does not name."""
    for stale in project.glob("*.ts"):
        if stale.name != "schema.d.ts":
            stale.unlink()
    wrong = """
import type { components, paths } from "./schema";
const encounter: components["schemas"]["EncounterCreate"] = { rules: {} };
type Patch = paths["/v1/encounters/{encounter_id}"]["patch"]["parameters"]["header"];
const header: NonNullable<Patch> = { "if-match": "\\"1\\"" };
void [encounter, header];
"""
    result = compile_ts(node_tools, project, wrong, "wrong.ts")
    assert result.returncode != 0
    assert "'name' is missing" in result.stdout and "if-match" in result.stdout, result.stdout
