// The public API, called with the link's credential: a player or viewer token, or the campaign key
// (the game master's console). The credential lives in this module's closure, never in storage.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function connectApi(encounterId, credential) {
  const base = `/v1/encounters/${encodeURIComponent(encounterId)}`;
  const id = encodeURIComponent;

  async function request(method, url, body) {
    const init = {
      method,
      cache: "no-store",
      headers: { Authorization: `Bearer ${credential}`, Accept: "application/json, application/problem+json" },
    };
    if (method !== "GET" && method !== "DELETE") {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body ?? {});
    }
    const response = await fetch(url, init);
    if (!response.ok) {
      let problem = null;
      try {
        problem = await response.json();
      } catch {
        // not JSON (a proxy's error page): the status says enough
      }
      throw new ApiError(response.status, problem);
    }
    return response.status === 204 ? null : response.json();
  }

  return {
    viewer: () => request("GET", `/table/${id(encounterId)}/viewer`),
    encounter: () => request("GET", base),
    round: (n) => request("GET", `${base}/rounds/${n}`),
    declarations: () => request("GET", `${base}/declarations`),
    stats: () => request("GET", `${base}/stats`),
    timeline: (fights) => request("GET", `${base}/odds/timeline?fights=${fights}`),
    ticket: () => request("POST", `${base}/stream-tickets`),
    eventsUrl: (ticket) => `${base}/events?ticket=${encodeURIComponent(ticket)}`,
    // playing: a player for its own combatant, the owner for anyone
    stage: (cid, declaration) => request("PUT", `${base}/declarations/${id(cid)}`, declaration),
    withdraw: (cid) => request("DELETE", `${base}/declarations/${id(cid)}`),
    // the game master's console (the campaign key only)
    resolve: (body) => request("POST", `${base}/rounds`, body),
    undo: (n) => request("DELETE", `${base}/rounds/${n}`),
    addCombatant: (body) => request("POST", `${base}/combatants`, body),
    updateCombatant: (cid, body) => request("PATCH", `${base}/combatants/${id(cid)}`, body),
    addEffect: (cid, body) => request("POST", `${base}/combatants/${id(cid)}/effects`, body),
    removeEffect: (cid, effectId) => request("DELETE", `${base}/combatants/${id(cid)}/effects/${id(effectId)}`),
    finish: () => request("POST", `${base}/finish`),
    playerToken: (cid) => request("POST", `${base}/tokens`, { role: "player", combatant: cid }),
    characters: () => request("GET", "/v1/characters?limit=100"),
    creatures: () => request("GET", "/v1/creatures?limit=100"),
  };
}
