// The table screen: read the fight, follow its event stream, redraw on every change.
// With a player token it is also that player's declaration form; with the campaign key
// (#key=…) it is the game master's console. The credential stays in the fragment and in memory.
//
// Every event is applied at once from its own data where it can be (a round carries its whole
// document), and then the page re-reads what the event changed; a re-read started before a newer
// event is thrown away, so an older answer never paints over a newer one.

import { ApiError, connectApi } from "./api.js";
import { createCharts } from "./charts.js";
import { createConsole } from "./console.js";
import { declarationForm, ownerControls } from "./controls.js";
import { otherLanguage, pickLanguage, rememberLanguage, translator } from "./i18n.js";
import { render } from "./render.js";

const encounterId = decodeURIComponent(location.pathname.split("/")[2] || "");
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get("key") || fragment.get("token");
const api = connectApi(encounterId, token);

const state = {
  language: pickLanguage(),
  connection: "connecting",
  notice: null,
  viewer: { role: null, combatant: null },
  encounter: null,
  round: null,
  declarations: new Map(),
  refusal: null, // {where, text}: the service's own words when it refused what this page asked
  busy: null,
  characters: [],
  creatures: [],
};
let t = translator(state.language);

// ---- playing: forms in the cards, the console -------------------------------------------------

const isOwner = () => state.viewer.role === "owner";
const forms = new Map();
const ownerForms = new Map();
let consolePanel = null;

// A refusal names combatants by id; the page names them as everyone at the table does.
function refusalText(error) {
  let text = error.message;
  for (const c of (state.encounter && state.encounter.combatants) || []) {
    if (c.name) text = text.split(c.id).join(c.name);
  }
  return text;
}

async function act(where, work, onSuccess) {
  state.busy = where;
  draw();
  try {
    const answer = await work();
    state.refusal = null;
    if (onSuccess) onSuccess(answer);
  } catch (error) {
    state.refusal = { where, text: refusalText(error) };
    if (isFatal(error) && error.status === 401) state.notice = problemNotice(error);
  }
  state.busy = null;
  draw();
  scheduleReread();
}

const ctx = { api, act, t: () => t, withDice: true, reloadLists: () => readLists() };

function cached(map, combatant, make) {
  let form = map.get(combatant.id);
  if (!form) {
    form = make(combatant);
    map.set(combatant.id, form);
  }
  form.update(state, combatant);
  return form.node;
}

// What each card carries under its facts: the player's own form, or on the console everything.
function controlsFor(combatant) {
  const finished = state.encounter.finished;
  if (isOwner()) {
    const holder = cached(ownerForms, combatant, (c) => ownerControlsBox(c));
    return holder;
  }
  if (finished || state.viewer.role !== "player" || combatant.id !== state.viewer.combatant) return null;
  return cached(forms, combatant, (c) => declarationForm(c, ctx));
}

// The console's card: the declaration form (while the fight goes on) above the owner's controls.
function ownerControlsBox(combatant) {
  const declaring = declarationForm(combatant, { ...ctx, withDice: false });
  const owner = ownerControls(combatant, ctx);
  const box = document.createElement("div");
  box.className = "card-controls";
  box.append(declaring.node, owner.node);
  return {
    node: box,
    update(current, self) {
      declaring.node.hidden = Boolean(current.encounter.finished) || self.status !== "active";
      declaring.update(current, self);
      owner.update(current, self);
    },
  };
}

const charts = createCharts(api, document.getElementById("charts"));

function draw() {
  render(state, t, controlsFor);
  charts.update(state, t);
  if (isOwner() && state.encounter) {
    consolePanel = consolePanel || createConsole(ctx);
    consolePanel.update(state);
  }
}

async function readLists() {
  if (!isOwner()) return;
  try {
    const [characters, creatures] = await Promise.all([api.characters(), api.creatures()]);
    state.characters = characters.items;
    state.creatures = creatures.items;
  } catch {
    // the lists are a convenience: the console works without them
  }
  draw();
}

// ---- reading ----------------------------------------------------------------------------------

let generation = 0;
let rereadTimer = null;

function problemNotice(error) {
  if (error instanceof ApiError && error.status === 401) return { key: "badToken" };
  if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return { key: "notFound" };
  return { key: "failed", vars: { detail: error.message } };
}

function isFatal(error) {
  return error instanceof ApiError && [401, 403, 404].includes(error.status);
}

async function readDeclarations() {
  const answer = await api.declarations();
  return new Map(answer.declarations.map((d) => [d.combatant, d]));
}

async function reread() {
  const mine = ++generation;
  try {
    const [encounter, declarations] = await Promise.all([api.encounter(), readDeclarations()]);
    const round = encounter.round > 0 ? await api.round(encounter.round) : null;
    if (mine !== generation) return; // a newer event came in meanwhile: its own re-read will paint
    Object.assign(state, { encounter, round, declarations, notice: null });
  } catch (error) {
    if (mine !== generation) return;
    state.notice = problemNotice(error);
    if (isFatal(error)) stopStream();
    else scheduleReread(2000);
  }
  draw();
}

// Several events in a burst (a round, then the declarations it cleared) need one re-read, not five.
function scheduleReread(delay = 50) {
  generation++;
  clearTimeout(rereadTimer);
  rereadTimer = setTimeout(reread, delay);
}

// ---- applying events --------------------------------------------------------------------------

function applyRound(doc) {
  // Before the first read, or a round the page already shows: the re-read that follows settles it.
  if (!state.encounter || doc.round <= state.encounter.round) return;
  const byId = new Map(doc.combatants.map((c) => [c.id, c]));
  state.encounter = {
    ...state.encounter,
    round: doc.round,
    combatants: state.encounter.combatants.map((c) => ({ ...c, ...(byId.get(c.id) || {}) })),
  };
  state.round = doc;
  state.declarations = new Map(); // a round clears every staged declaration
}

function applyDeclaration(change) {
  if (change.declared) {
    const known = state.declarations.get(change.combatant);
    state.declarations.set(change.combatant, known || { combatant: change.combatant, declared: true });
  } else {
    state.declarations.delete(change.combatant);
  }
}

const HANDLERS = {
  sync: () => {},
  encounter: () => {
    if (isOwner()) readLists(); // a character joined or left: the roster's "busy" marks moved
  },
  undo: () => {},
  round: applyRound,
  declaration: applyDeclaration,
};

function onEvent(event) {
  let data = {};
  try {
    data = JSON.parse(event.data || "{}");
  } catch {
    // a malformed event still means "something changed": the re-read below covers it
  }
  HANDLERS[event.type](data);
  draw();
  scheduleReread();
}

// ---- the stream -------------------------------------------------------------------------------

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10000;
let source = null;
let retryMs = RETRY_MIN_MS;
let retryTimer = null;
let stopped = false;

function setConnection(connection) {
  if (state.connection !== connection) {
    state.connection = connection;
    draw();
  }
}

// A ticket is single use, so EventSource's own reconnect (same URL) would only earn a 401: the
// page closes a failed stream itself and opens a new one with a new ticket.
async function openStream() {
  clearTimeout(retryTimer);
  if (stopped) return;
  let ticket;
  try {
    ticket = (await api.ticket()).ticket;
  } catch (error) {
    if (isFatal(error)) {
      state.notice = problemNotice(error);
      stopStream();
      draw();
    } else {
      retryLater();
    }
    return;
  }
  const stream = new EventSource(api.eventsUrl(ticket));
  source = stream;
  stream.onopen = () => {
    retryMs = RETRY_MIN_MS;
    setConnection("live");
  };
  for (const type of Object.keys(HANDLERS)) stream.addEventListener(type, onEvent);
  stream.onerror = () => {
    stream.close();
    if (source !== stream) return;
    source = null;
    retryLater();
  };
}

function retryLater() {
  setConnection("reconnecting");
  // Jitter spreads a whole table's phones after the service comes back.
  const delay = retryMs / 2 + Math.random() * retryMs;
  retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  retryTimer = setTimeout(openStream, delay);
}

function stopStream() {
  stopped = true;
  clearTimeout(retryTimer);
  if (source) source.close();
  source = null;
  setConnection("stopped");
}

// ---- start ------------------------------------------------------------------------------------

document.getElementById("language").addEventListener("click", () => {
  state.language = otherLanguage(state.language);
  rememberLanguage(state.language);
  t = translator(state.language);
  draw();
});

window.addEventListener("online", () => {
  if (!source && !stopped) openStream();
});

async function start() {
  draw();
  if (!token) {
    state.notice = { key: "noToken" };
    stopStream();
    draw();
    return;
  }
  try {
    state.viewer = await api.viewer();
  } catch (error) {
    state.notice = problemNotice(error);
    if (isFatal(error)) {
      stopStream();
      draw();
      return;
    }
  }
  // The stream's first event is a sync, which reads everything; read once now as well so the page
  // shows the fight even while the stream is still connecting.
  await reread();
  readLists();
  openStream();
}

start();
