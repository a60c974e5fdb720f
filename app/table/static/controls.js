// The forms inside a combatant's card: the declaration form (a player's own card, or any card on
// the console) and the console's per-combatant controls (hide, effects, the player's link).
//
// Each form is built once per combatant and then only updated, so a re-read of the fight never
// throws away what someone is typing or where the keyboard focus is.

import { el, nameOf } from "./render.js";

const STANCES = ["offensive", "balanced", "defensive"];
const ACTIONS = ["attack", "first_aid", "custom", "none", "continue"];

// Labels are set on every update: a language switch relabels a form without rebuilding it.
function labelled() {
  const texts = [];
  return {
    text(node, key, vars) {
      texts.push([node, key, vars]);
      return node;
    },
    relabel(t, state) {
      for (const [node, key, vars] of texts) {
        const value = t(key, typeof vars === "function" ? vars(state) : vars || {});
        if (node.tagName === "INPUT") node.setAttribute("aria-label", value);
        else node.textContent = value;
      }
    },
  };
}

function field(labels, key, control, vars) {
  return el("label", { class: "field" }, labels.text(el("span", { class: "field-label" }), key, vars), control);
}

function numberInput(testid, min, max, value = "") {
  return el("input", { type: "number", inputmode: "numeric", min, max, step: 1, value, "data-testid": testid });
}

/** The dice keys a combatant's declaration may carry (CONTRACT: a group's shared die is the round's). */
export function ownDiceKeys(combatant, actionType) {
  const keys = [];
  if (!combatant.group) keys.push({ key: `${combatant.id}.initiative.1`, label: "dice.initiative", k: 1 });
  if (actionType === "attack") {
    for (let k = 1; k <= (combatant.attacks_per_round || 1); k++) {
      keys.push({ key: `${combatant.id}.attack.${k}`, label: "dice.attack", k });
      keys.push({ key: `${combatant.id}.damage.${k}`, label: "dice.damage", k });
    }
  }
  return keys;
}

/** A typed die: a number, or for damage a list of numbers. Empty: not given. */
export function readDie(key, raw) {
  const values = String(raw).trim().split(/[\s,;]+/).filter(Boolean).map(Number);
  if (!values.length || values.some((v) => !Number.isInteger(v))) return undefined;
  return key.includes(".damage.") ? values : values[0];
}

function setOptions(select, options, keep) {
  const signature = JSON.stringify(options);
  if (select.dataset.options === signature) return;
  const previous = keep ? select.value : null;
  select.replaceChildren(...options.map(([value, text]) => el("option", { value, text })));
  select.dataset.options = signature;
  if (previous != null && options.some(([value]) => value === previous)) select.value = previous;
}

/**
 * The declaration form for one combatant. ctx: { api, act(where, work), withDice, t() }.
 * withDice: the player's page offers its own dice here; the console types dice for the round.
 */
export function declarationForm(combatant, ctx) {
  const cid = combatant.id;
  const labels = labelled();
  const stance = el("select", { "data-testid": "stance", name: "stance" });
  const actionType = el("select", { "data-testid": "action-type", name: "action-type" });
  const targets = [el("select", { "data-testid": "target", name: "target" })];
  const targetFields = [field(labels, "form.target", targets[0])];
  const customName = el("input", { type: "text", maxlength: 100, "data-testid": "custom-name", autocomplete: "off" });
  const customDelay = numberInput("custom-delay", 0, 50, "0");
  const customRounds = numberInput("custom-rounds", 1, 100);
  const customFields = el(
    "div",
    { class: "field-row" },
    field(labels, "form.customName", customName),
    field(labels, "form.customDelay", customDelay),
    field(labels, "form.customRounds", customRounds),
  );
  const technical = numberInput("technical-actions", 0, 10, "0");
  const diceList = el("div", { class: "dice-list" });
  const dice = el(
    "details",
    { class: "own-dice" },
    labels.text(el("summary"), "form.ownDice"),
    labels.text(el("p", { class: "hint" }), "form.diceHint"),
    diceList,
  );
  const diceInputs = new Map();
  const declare = el("button", { type: "submit", class: "primary", "data-testid": "declare" });
  const withdraw = el("button", { type: "button", "data-testid": "withdraw", hidden: true });
  const refusal = el("p", { class: "refusal", role: "alert", "data-testid": "refusal", hidden: true });
  const title = labels.text(el("h3", { class: "form-title" }), ctx.withDice ? "form.title" : "form.titleFor", (s) => ({
    name: nameOf(s, cid, ctx.t()),
  }));

  for (const value of STANCES) stance.append(labels.text(el("option", { value }), `stance.${value}`));
  stance.value = "balanced";
  for (const value of ACTIONS) actionType.append(labels.text(el("option", { value }), `form.actions.${value}`));
  actionType.value = "attack";

  const form = el(
    "form",
    { class: "declare-form", novalidate: true },
    title,
    el("div", { class: "field-row" }, field(labels, "form.stance", stance), field(labels, "form.action", actionType)),
    el("div", { class: "field-row targets" }, targetFields),
    customFields,
    field(labels, "form.technical", technical),
    ctx.withDice && dice,
    refusal,
    el("div", { class: "buttons" }, declare, withdraw),
  );
  const targetRow = form.querySelector(".targets");

  function ensureTargets(n) {
    while (targets.length < n) {
      const k = targets.length + 1;
      const select = el("select", { "data-testid": `target-${k}`, name: `target-${k}` });
      targets.push(select);
      const wrap = field(labels, "form.targetN", select, { n: k });
      targetFields.push(wrap);
      targetRow.append(wrap);
    }
  }

  function showFor(type, attacks) {
    targetFields.forEach((wrap, i) => {
      wrap.hidden = !(type === "attack" ? i < attacks : type === "first_aid" && i === 0);
    });
    customFields.hidden = type !== "custom";
  }

  let latest = null; // the state and combatant of the last update
  let prefilled = false;

  function fill(declaration) {
    stance.value = declaration.stance || "balanced";
    const action = declaration.action || { type: "none" };
    actionType.value = ACTIONS.includes(action.type) ? action.type : "none";
    const ids = action.targets || (action.target ? [action.target] : []);
    ids.forEach((id, i) => {
      if (targets[i]) targets[i].value = id;
    });
    if (action.type === "custom") {
      customName.value = action.name || "";
      customDelay.value = action.delay ?? 0;
      customRounds.value = action.rounds ?? "";
    }
    technical.value = declaration.technical_actions || 0;
    for (const [key, value] of Object.entries(declaration.dice || {})) {
      const input = diceInputs.get(key);
      if (input) input.value = Array.isArray(value) ? value.join(" ") : value;
    }
  }

  function read() {
    const { combatant: self } = latest;
    const declaration = { stance: stance.value, technical_actions: Number(technical.value || 0) };
    const type = actionType.value;
    if (type === "attack") {
      const chosen = [];
      for (let i = 0; i < (self.attacks_per_round || 1); i++) {
        if (!targets[i].value) break; // attacks past the list's end go to its last target
        chosen.push(targets[i].value);
      }
      declaration.action = { type: "attack", targets: chosen };
    } else if (type === "first_aid") {
      declaration.action = { type: "first_aid", target: targets[0].value };
    } else if (type === "custom") {
      declaration.action = { type: "custom", name: customName.value.trim(), delay: Number(customDelay.value || 0) };
      if (customRounds.value) declaration.action.rounds = Number(customRounds.value);
    } else {
      declaration.action = { type };
    }
    if (ctx.withDice) {
      const given = {};
      for (const { key } of ownDiceKeys(self, type)) {
        const value = readDie(key, diceInputs.get(key)?.value ?? "");
        if (value !== undefined) given[key] = value;
      }
      declaration.dice = given;
    }
    return declaration;
  }

  actionType.addEventListener("change", () => update(latest.state, latest.combatant));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    ctx.act(cid, () => ctx.api.stage(cid, read()), (staged) => latest.state.declarations.set(cid, staged));
  });
  withdraw.addEventListener("click", () => {
    ctx.act(cid, () => ctx.api.withdraw(cid), () => latest.state.declarations.delete(cid));
  });

  function update(state, self) {
    latest = { state, combatant: self };
    const t = ctx.t();
    const attacks = self.attacks_per_round || 1;
    ensureTargets(attacks);
    const type = actionType.value;
    const others = state.encounter.combatants.filter((c) => c.id !== cid || type === "first_aid");
    const describe = (c) => `${nameOf(state, c.id, t)}${c.status === "active" ? "" : ` (${t(`status.${c.status}`)})`}`;
    const options = others.map((c) => [c.id, describe(c)]);
    setOptions(targets[0], options, true);
    for (const select of targets.slice(1)) setOptions(select, [["", t("form.sameTarget")], ...options], true);
    const continueOption = actionType.querySelector('option[value="continue"]');
    continueOption.hidden = continueOption.disabled = !self.long_action;
    showFor(type, attacks);

    if (ctx.withDice) {
      const keys = ownDiceKeys(self, type);
      const inputs = keys.map(({ key, label, k }) => {
        let input = diceInputs.get(key);
        if (!input) {
          input = el("input", { type: "text", inputmode: "numeric", autocomplete: "off", "data-testid": `dice-${key}` });
          diceInputs.set(key, input);
        }
        return field(labels, label, input, { name: nameOf(state, cid, t), k });
      });
      diceList.replaceChildren(...inputs);
    }

    const staged = state.declarations.get(cid);
    const full = staged && ("stance" in staged || "action" in staged);
    if (full && !prefilled) {
      fill(staged);
      prefilled = true;
      showFor(actionType.value, attacks);
    }
    declare.textContent = staged ? t("form.change") : t("form.declare");
    withdraw.hidden = !staged;
    withdraw.textContent = t("form.withdraw");
    const problem = state.refusal && state.refusal.where === cid ? state.refusal.text : null;
    refusal.hidden = !problem;
    refusal.textContent = problem ? t("refused", { detail: problem }) : "";
    form.setAttribute("aria-busy", state.busy === cid ? "true" : "false");
    labels.relabel(t, state);
  }

  return { node: form, update };
}

/** The console's own controls on a card: hide or reveal, effects, and the player's link. */
export function ownerControls(combatant, ctx) {
  const cid = combatant.id;
  const labels = labelled();
  const hide = el("button", { type: "button", "data-testid": `hide-${cid}` });
  const reveal = el("button", { type: "button", "data-testid": `reveal-${cid}` });
  const effects = el("div", { class: "effect-list" });
  const effectName = el("input", { type: "text", maxlength: 100, autocomplete: "off", "data-testid": "effect-name" });
  const mods = ["attack", "defense", "initiative", "blood_per_turn"].map((key) => [
    key,
    numberInput(`effect-${key}`, -100, 100, "0"),
  ]);
  const rounds = numberInput("effect-rounds", 1, 1000);
  const addEffect = el("button", { type: "submit", "data-testid": "add-effect" });
  const effectForm = el(
    "form",
    { class: "effect-form", novalidate: true },
    el(
      "div",
      { class: "field-row" },
      field(labels, "gm.effectName", effectName),
      mods.map(([key, input]) => field(labels, `effectMods.${key}`, input)),
      field(labels, "gm.effectRounds", rounds),
    ),
    el("div", { class: "buttons" }, addEffect),
  );
  const makeLink = el("button", { type: "button", "data-testid": `make-link-${cid}` });
  const link = el("input", { type: "text", readonly: true, class: "player-link", "data-testid": `link-${cid}` });
  const linkLabel = labels.text(el("span", { class: "field-label" }), "gm.linkFor", (s) => ({ name: nameOf(s, cid, ctx.t()) }));
  const linkField = el("label", { class: "field", hidden: true }, linkLabel, link);
  const refusal = el("p", { class: "refusal", role: "alert", "data-testid": "owner-refusal", hidden: true });
  const where = `owner:${cid}`;
  let latest = null;

  hide.addEventListener("click", () => ctx.act(where, () => ctx.api.updateCombatant(cid, { hidden: true })));
  reveal.addEventListener("click", () => ctx.act(where, () => ctx.api.updateCombatant(cid, { hidden: false })));
  effectForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { name: effectName.value.trim() };
    for (const [key, input] of mods) body[key] = Number(input.value || 0);
    if (rounds.value) body.rounds = Number(rounds.value);
    ctx.act(where, () => ctx.api.addEffect(cid, body), () => {
      effectName.value = "";
    });
  });
  makeLink.addEventListener("click", () =>
    ctx.act(where, () => ctx.api.playerToken(cid), (answer) => {
      // The link is shown, never stored: it is the player's credential.
      link.value = `${location.origin}/table/${encodeURIComponent(latest.state.encounter.id)}#token=${answer.secret}`;
      linkField.hidden = false;
      link.focus();
      link.select();
    }),
  );

  const node = el(
    "div",
    { class: "owner-controls" },
    el("div", { class: "buttons" }, hide, reveal, makeLink),
    linkField,
    effects,
    // Folded: a console of many cards stays short; the summary is a keyboard-reachable toggle.
    el("details", { class: "effect-box" }, labels.text(el("summary", { "data-testid": `effect-open-${cid}` }), "gm.effect"), effectForm),
    refusal,
  );

  function update(state, self) {
    latest = { state, combatant: self };
    const t = ctx.t();
    const name = nameOf(state, cid, t);
    hide.hidden = Boolean(self.hidden);
    reveal.hidden = !self.hidden;
    hide.textContent = t("gm.hide");
    hide.setAttribute("aria-label", t("gm.hideLabel", { name }));
    reveal.textContent = t("gm.reveal");
    reveal.setAttribute("aria-label", t("gm.revealLabel", { name }));
    makeLink.textContent = t("gm.link");
    makeLink.hidden = Boolean(self.hidden); // a hidden combatant gets no player token
    addEffect.textContent = t("gm.addEffect");
    const signature = JSON.stringify([(self.effects || []).map((e) => [e.id, e.name]), state.language]);
    if (effects.dataset.signature !== signature) {
      effects.dataset.signature = signature;
      effects.replaceChildren(
        ...(self.effects || []).map((effect) => {
          const remove = el("button", {
            type: "button",
            class: "small",
            "data-testid": `remove-effect-${effect.id}`,
            text: `✕ ${t("gm.removeEffect", { name: effect.name })}`,
          });
          remove.addEventListener("click", () => ctx.act(where, () => ctx.api.removeEffect(cid, effect.id)));
          return remove;
        }),
      );
    }
    const problem = state.refusal && state.refusal.where === where ? state.refusal.text : null;
    refusal.hidden = !problem;
    refusal.textContent = problem ? t("refused", { detail: problem }) : "";
    labels.relabel(t, state);
  }

  return { node, update };
}
