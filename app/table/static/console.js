// The game master's console panel: who has not declared, the round's typed dice, resolve and undo,
// adding from the roster and the bestiary, finishing the fight. Built once, updated on every draw.

import { readDie } from "./controls.js";
import { el, nameOf } from "./render.js";

/** Every die the next round may roll for the active combatants (CONTRACT "Dice keys"). */
function roundDiceKeys(state) {
  const keys = [];
  const groups = new Set();
  for (const c of state.encounter.combatants) {
    if (c.status !== "active") continue;
    if (c.group) {
      if (!groups.has(c.group)) keys.push({ key: `group:${c.group}.initiative.1`, label: "dice.group", vars: { group: c.group } });
      groups.add(c.group);
    } else {
      keys.push({ key: `${c.id}.initiative.1`, label: "dice.initiative", vars: { id: c.id, k: 1 } });
    }
    for (let k = 1; k <= (c.attacks_per_round || 1); k++) {
      keys.push({ key: `${c.id}.attack.${k}`, label: "dice.attack", vars: { id: c.id, k } });
      keys.push({ key: `${c.id}.damage.${k}`, label: "dice.damage", vars: { id: c.id, k } });
    }
  }
  return keys;
}

export function createConsole(ctx) {
  const root = document.getElementById("console");
  const title = el("h2", { id: "console-title" });
  const pending = el("p", { class: "pending-list", "data-testid": "not-declared" });
  const resolve = el("button", { type: "button", class: "primary", "data-testid": "resolve-round" });
  const undo = el("button", { type: "button", "data-testid": "undo-round" });
  const diceSummary = el("summary");
  const diceList = el("div", { class: "dice-list" });
  const dice = el("details", { class: "round-dice" }, diceSummary, diceList);
  const diceInputs = new Map();
  const roster = el("select", { "data-testid": "add-from-roster" });
  const bestiary = el("select", { "data-testid": "add-from-bestiary" });
  const count = el("input", { type: "number", min: 1, max: 20, step: 1, value: "1", "data-testid": "add-count" });
  const finish = el("button", { type: "button", class: "danger", "data-testid": "finish" });
  const refusal = el("p", { class: "refusal", role: "alert", "data-testid": "console-refusal", hidden: true });
  const rosterLabel = el("span", { class: "field-label" });
  const bestiaryLabel = el("span", { class: "field-label" });
  const countLabel = el("span", { class: "field-label" });
  root.append(
    title,
    pending,
    el("div", { class: "buttons" }, resolve, undo),
    dice,
    el(
      "div",
      { class: "field-row" },
      el("label", { class: "field" }, rosterLabel, roster),
      el("label", { class: "field" }, bestiaryLabel, bestiary),
      el("label", { class: "field narrow" }, countLabel, count),
    ),
    refusal,
    el("div", { class: "buttons end" }, finish),
  );
  let latest = null;

  resolve.addEventListener("click", () => {
    const given = {};
    for (const [key, input] of diceInputs) {
      const value = readDie(key, input.value);
      if (value !== undefined) given[key] = value;
    }
    // Declarations staged on the service are used for everyone the body does not name.
    ctx.act("console", () => ctx.api.resolve({ declarations: [], dice: given }), () => {
      for (const input of diceInputs.values()) input.value = "";
    });
  });
  undo.addEventListener("click", () => {
    const n = latest.state.encounter.round;
    if (!window.confirm(ctx.t()("gm.undoConfirm", { round: n }))) return;
    ctx.act("console", () => ctx.api.undo(n));
  });
  roster.addEventListener("change", () => {
    const character = roster.value;
    if (!character) return;
    ctx.act("console", () => ctx.api.addCombatant({ character }), () => ctx.reloadLists());
    roster.value = "";
  });
  bestiary.addEventListener("change", () => {
    const creature = bestiary.value;
    if (!creature) return;
    const n = Math.min(Math.max(Number(count.value || 1), 1), 20);
    ctx.act("console", () => ctx.api.addCombatant({ creature, count: n }));
    bestiary.value = "";
  });
  finish.addEventListener("click", () => {
    if (!window.confirm(ctx.t()("gm.finishConfirm"))) return;
    ctx.act("console", () => ctx.api.finish());
  });

  function setList(select, pick, items, describe) {
    // Two entries named alike (two Alas, two Goblins) are told apart by their stats and the start of their id.
    const labels = items.map(describe);
    const twice = new Set(labels.filter((label, i) => labels.indexOf(label) !== i));
    const told = (item, label) =>
      twice.has(label)
        ? `${label} — ${item.initiative}/${item.attack}/${item.defense}, ${typeof item.weapon === "string" ? item.weapon : item.weapon?.name ?? ""} · #${String(item.id).slice(0, 6)}`
        : label;
    const options = [["", pick], ...items.map((item, i) => [item.id, told(item, labels[i])])];
    const signature = JSON.stringify(options);
    if (select.dataset.options === signature) return;
    select.dataset.options = signature;
    select.replaceChildren(...options.map(([value, text]) => el("option", { value, text })));
    select.value = "";
  }

  function update(state) {
    latest = { state };
    const t = ctx.t();
    root.hidden = false;
    const { encounter } = state;
    const next = encounter.round + 1;
    title.textContent = t("gm.console");
    const waiting = encounter.combatants.filter((c) => c.status === "active" && !state.declarations.has(c.id));
    pending.textContent = encounter.finished
      ? t("finished")
      : waiting.length
        ? t("gm.notDeclared", { names: waiting.map((c) => nameOf(state, c.id, t)).join(", ") })
        : t("gm.allDeclared");
    resolve.textContent = t("gm.resolve", { round: next });
    undo.textContent = t("gm.undo", { round: encounter.round });
    undo.hidden = encounter.round === 0;
    diceSummary.textContent = t("gm.typedDice");
    const keys = roundDiceKeys(state);
    diceList.replaceChildren(
      ...keys.map(({ key, label, vars }) => {
        let input = diceInputs.get(key);
        if (!input) {
          input = el("input", { type: "text", inputmode: "numeric", autocomplete: "off", "data-testid": `dice-${key}` });
          diceInputs.set(key, input);
        }
        const text = t(label, { ...vars, name: vars.id ? nameOf(state, vars.id, t) : "" });
        return el("label", { class: "field" }, el("span", { class: "field-label", text }), input);
      }),
    );
    for (const key of [...diceInputs.keys()]) if (!keys.some((k) => k.key === key)) diceInputs.delete(key);
    rosterLabel.textContent = t("gm.roster");
    bestiaryLabel.textContent = t("gm.bestiary");
    countLabel.textContent = t("gm.count");
    setList(roster, t("gm.rosterPick"), (state.characters || []).filter((c) => c.encounter !== encounter.id), (c) =>
      c.encounter && c.encounter !== encounter.id ? `${c.name} (${t("gm.busyIn")})` : c.name,
    );
    setList(bestiary, t("gm.bestiaryPick"), state.creatures || [], (c) => c.name);
    finish.textContent = t("gm.finish");
    for (const control of [resolve, undo, roster, bestiary, count, finish]) control.disabled = Boolean(encounter.finished);
    const problem = state.refusal && state.refusal.where === "console" ? state.refusal.text : null;
    refusal.hidden = !problem;
    refusal.textContent = problem ? t("refused", { detail: problem }) : "";
  }

  return { update };
}
