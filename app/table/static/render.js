// Draws the state into the page. Names come from the game master's data: only ever set as text.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

const STATUS_MARK = { active: "●", unconscious: "◐", dead: "✝" };

export function nameOf(state, id, t) {
  const combatant = state.encounter && state.encounter.combatants.find((c) => c.id === id);
  if (!combatant) return id == null ? t("unknown") : String(id);
  return combatant.name || String(combatant.id).slice(0, 8);
}

function turnOf(round, turnLength) {
  return Math.floor((round - 1) / turnLength) + 1;
}

function renderHeader(state, t) {
  const { encounter } = state;
  document.getElementById("encounter-name").textContent = encounter.name;
  document.title = `${encounter.name} · ${t("title")}`;
  const turnLength = (encounter.ruleset && encounter.ruleset.turn_length) || 10;
  const next = encounter.round + 1;
  const turn = encounter.turn ?? turnOf(next, turnLength);
  document.getElementById("round-line").textContent = encounter.finished
    ? t("roundLineOver", { round: encounter.round })
    : encounter.round === 0 ? t("roundLineStart", { turn }) : t("roundLine", { round: encounter.round, next, turn });
  // The next round that ends a turn settles bleeding; "in 1 round" means at the end of the next one.
  const bleedRound = Math.ceil(next / turnLength) * turnLength;
  const inRounds = bleedRound - encounter.round;
  document.getElementById("bleed-line").textContent = encounter.finished
    ? ""
    : inRounds === 1
      ? t("bleedNow", { round: bleedRound })
      : t("bleedLine", { round: bleedRound, rounds: t("rounds", { n: inRounds }) });
}

function woundText(wound, t) {
  const name = t(`wound.${wound.class}`) || wound.class;
  return wound.bleed ? `${name} (${t("bleedsPerTurn", { n: wound.bleed })})` : name;
}

function roundsLeft(untilRound, currentRound, t) {
  if (untilRound == null) return t("untilRemoved");
  return t("roundsLeft", { n: Math.max(untilRound - currentRound, 0) });
}

function effectText(effect, currentRound, t) {
  const mods = ["attack", "defense", "initiative", "blood_per_turn"]
    .filter((key) => effect[key])
    .map((key) => `${t(`effectMods.${key}`)} ${signed(effect[key])}`);
  const detail = mods.length ? ` (${mods.join(", ")})` : "";
  return `${effect.name}${detail}: ${roundsLeft(effect.until_round, currentRound, t)}`;
}

export function actionText(action, state, t) {
  if (!action) return t("act.continueBare");
  const targets = action.targets || (action.target != null ? [action.target] : []);
  const target = targets.map((id) => nameOf(state, id, t)).join(", ");
  switch (action.type) {
    case "attack":
      return t("act.attack", { target });
    case "first_aid":
      return t("act.first_aid", { target });
    case "custom":
      return target ? t("act.customOn", { name: action.name, target }) : t("act.custom", { name: action.name });
    case "continue":
      return action.name ? t("act.continue", { name: action.name }) : t("act.continueBare");
    default:
      return t("act.none");
  }
}

export function declarationText(declaration, state, t) {
  const parts = [t(`stance.${declaration.stance || "balanced"}`), actionText(declaration.action, state, t)];
  if (declaration.technical_actions) parts.push(t("technical", { n: declaration.technical_actions }));
  const dice = declaration.dice ? Object.keys(declaration.dice).length : 0;
  if (dice) parts.push(t("ownDice", { n: dice }));
  return parts.join(" · ");
}

function declarationBlock(combatant, state, t) {
  const declaration = state.declarations.get(combatant.id);
  const own = state.viewer.combatant === combatant.id;
  if (state.encounter.finished) return null; // nothing more is declared in a finished fight
  if (!declaration) return el("p", { class: "declaration pending", text: `○ ${t("notDeclared")}` });
  if (!("stance" in declaration || "action" in declaration)) {
    return el("p", { class: "declaration declared", text: `✔ ${t("declared")}` });
  }
  // In full: the owner reads every staged declaration so, a player only its own.
  const heading = own ? t("yourDeclaration", { round: state.encounter.round + 1 }) : t("declaredFor", { round: state.encounter.round + 1 });
  return el(
    "div",
    { class: "declaration declared own", "data-testid": "declared" },
    el("p", { text: `✔ ${heading}` }),
    el("p", { class: "declaration-full", text: declarationText(declaration, state, t) }),
  );
}

// Through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
function bloodFill(share) {
  const fill = el("span", { class: "blood-fill" });
  fill.style.width = `${(share * 100).toFixed(1)}%`;
  return fill;
}

function cardInfo(combatant, state, t) {
  const own = state.viewer.combatant === combatant.id;
  const vitality = Math.max(combatant.vitality, 1);
  const share = Math.min(Math.max(combatant.blood / vitality, 0), 1);
  const penalty = combatant.penalty ?? combatant.wounds.reduce((sum, w) => sum + (w.penalty || 0), 0);
  const effects = combatant.effects || [];
  const longAction = combatant.long_action;
  return [
    el(
      "div",
      { class: "who" },
      el("span", { class: "name", text: nameOf(state, combatant.id, t) }),
      own && el("span", { class: "you", text: t("you") }),
      combatant.hidden && el("span", { class: "hidden-mark", text: `◌ ${t("gm.hidden")}` }),
      combatant.side != null && el("span", { class: "side", text: t("side", { side: combatant.side }) }),
      el("span", { class: "status", text: `${STATUS_MARK[combatant.status] || ""} ${t(`status.${combatant.status}`)}` }),
    ),
    el(
      "div",
      { class: "blood" },
      el("span", { class: "blood-text", text: t("blood", { blood: combatant.blood, vitality: combatant.vitality }) }),
      el("span", { class: "blood-bar", "aria-hidden": "true" }, bloodFill(share)),
    ),
    el(
      "p",
      { class: "wounds" },
      combatant.wounds.length ? combatant.wounds.map((w) => woundText(w, t)).join(", ") : t("noWounds"),
      " · ",
      penalty ? t("penalty", { n: penalty }) : t("noPenalty"),
    ),
    effects.length > 0 &&
      el("p", { class: "effects" }, `${t("effects")}: `,
        effects.map((e) => effectText(e, state.encounter.round, t)).join("; ")),
    longAction &&
      el("p", {
        class: "long-action",
        text: t("longAction", { name: longAction.name, left: t("roundsLeft", { n: longAction.rounds_left }) }),
      }),
  ];
}

// Cards are kept by combatant id and patched in place, so that a form inside one (a player's, or
// the console's) keeps its typed values and its focus while the fight changes around it.
const cards = new Map();

function cardFor(combatant) {
  let card = cards.get(combatant.id);
  if (!card) {
    const info = el("div", { class: "card-info" });
    const declaration = el("div", { class: "card-declaration" });
    const li = el("li", { "data-combatant": combatant.id, "data-testid": `combatant-${combatant.id}` }, info, declaration);
    card = { li, info, declaration, controls: null };
    cards.set(combatant.id, card);
  }
  return card;
}

function renderCombatants(state, t, controlsFor) {
  const own = state.viewer.combatant;
  const ordered = [...state.encounter.combatants].sort((a, b) => (b.id === own) - (a.id === own));
  document.getElementById("combatants-title").textContent = t("combatants");
  const list = document.getElementById("combatants");
  const seen = new Set();
  ordered.forEach((combatant, index) => {
    seen.add(combatant.id);
    const card = cardFor(combatant);
    card.li.className =
      `combatant status-${combatant.status}${own === combatant.id ? " own" : ""}${combatant.hidden ? " is-hidden" : ""}`;
    card.info.replaceChildren(...cardInfo(combatant, state, t).filter(Boolean));
    card.declaration.replaceChildren(...[declarationBlock(combatant, state, t)].filter(Boolean));
    const controls = controlsFor ? controlsFor(combatant) : null;
    if (controls !== card.controls) {
      if (card.controls) card.controls.remove();
      if (controls) card.li.append(controls);
      card.controls = controls;
    }
    if (list.children[index] !== card.li) list.insertBefore(card.li, list.children[index] || null);
  });
  for (const [id, card] of cards) {
    if (!seen.has(id)) {
      card.li.remove();
      cards.delete(id);
    }
  }
}

function actionLine(action, state, t) {
  const actor = nameOf(state, action.actor, t);
  const what = actionText({ ...action, targets: action.target != null ? [action.target] : [] }, state, t);
  const details = [];
  if (action.roll != null) {
    details.push(t("rollVs", { roll: action.roll, target: action.target_number }));
    if (action.hit && action.margin != null) details.push(t("hitBy", { margin: action.margin }));
  }
  if (action.blow != null) details.push(t("blow", { blow: action.blow, effective: action.effective }));
  if (action.wound) details.push(t(`wound.${action.wound}`) || action.wound);
  return el(
    "li",
    { class: `action result-${action.result}`, "data-seq": action.seq },
    el("span", { class: "tick", text: t("tick", { tick: action.tick }) }),
    el("span", { class: "what" }, el("strong", { text: actor }), " ", what),
    details.length > 0 && el("span", { class: "details", text: details.join(" · ") }),
    el("span", { class: "result", text: t(`result.${action.result}`) || action.result }),
  );
}

function bleedingLine(entry, state, t) {
  const name = nameOf(state, entry.combatant, t);
  const status = t(`status.${entry.status}`);
  return entry.lost >= 0
    ? el("li", { text: t("bleeding", { name, lost: entry.lost, blood: entry.blood, status }) })
    : el("li", { text: t("regains", { name, gained: -entry.lost, blood: entry.blood, status }) });
}

function renderLastRound(state, t) {
  const round = state.round;
  const section = document.getElementById("last-round");
  if (round) {
    section.dataset.testid = "last-round";
    section.dataset.round = String(round.round);
  } else {
    delete section.dataset.testid;
    delete section.dataset.round;
  }
  const title = document.getElementById("last-round-title");
  const empty = document.getElementById("last-round-empty");
  title.textContent = round ? `${t("lastRound")}: ${t("lastRoundTitle", { round: round.round })}` : t("lastRound");
  empty.hidden = Boolean(round);
  empty.textContent = t("noRoundYet");
  document.getElementById("actions").replaceChildren(...(round ? round.actions.map((a) => actionLine(a, state, t)) : []));
  const bleeding = round ? round.bleeding.map((b) => bleedingLine(b, state, t)) : [];
  if (round && round.ends_turn) bleeding.unshift(el("li", { class: "turn-end", text: t("endsTurn", { turn: round.turn }) }));
  document.getElementById("bleeding").replaceChildren(...bleeding);
}

export function render(state, t, controlsFor = null) {
  document.documentElement.lang = state.language;
  const language = document.getElementById("language");
  language.textContent = t("switchTo");
  language.setAttribute("aria-label", t("switchLabel"));
  const connection = document.getElementById("connection");
  connection.textContent = t(`connection.${state.connection}`);
  connection.dataset.state = state.connection;
  const notice = document.getElementById("notice");
  notice.hidden = !state.notice;
  notice.textContent = state.notice ? t(state.notice.key, state.notice.vars) : "";
  if (!state.encounter) return;
  renderHeader(state, t);
  const finished = document.getElementById("finished");
  finished.hidden = !state.encounter.finished;
  finished.textContent = t("finished");
  renderCombatants(state, t, controlsFor);
  renderLastRound(state, t);
}
