// The public API, read with the link's token. The page never writes: it only asks for a stream ticket.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function connectApi(encounterId, token) {
  const base = `/v1/encounters/${encodeURIComponent(encounterId)}`;

  async function request(method, url) {
    const init = { method, cache: "no-store", headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } };
    if (method === "POST") {
      init.headers["Content-Type"] = "application/json";
      init.body = "{}";
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
    return response.json();
  }

  return {
    viewer: () => request("GET", `/table/${encodeURIComponent(encounterId)}/viewer`),
    encounter: () => request("GET", base),
    round: (n) => request("GET", `${base}/rounds/${n}`),
    declarations: () => request("GET", `${base}/declarations`),
    ticket: () => request("POST", `${base}/stream-tickets`),
    eventsUrl: (ticket) => `${base}/events?ticket=${encodeURIComponent(ticket)}`,
  };
}
