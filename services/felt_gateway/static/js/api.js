// REST calls to the gateway (/api/v2): the login token, JSON in and out, and errors as
// {code, message, details} exactly as the gateway sends them.

const TOKEN_KEY = "felt.token";

export class ApiError extends Error {
  constructor(code, message, details = {}, status = 0) {
    super(message);
    this.code = code;
    this.details = details;
    this.status = status;
  }
}

export const session = {
  get token() { return sessionStorage.getItem(TOKEN_KEY); },
  set token(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
};

export async function request(method, path, body, { text = false } = {}) {
  const headers = {};
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError("unavailable", "The room cannot be reached. Check your connection.");
  }
  if (response.ok) {
    if (response.status === 204) return null;
    return text ? response.text() : response.json();
  }
  let data = {};
  try { data = await response.json(); } catch { /* not JSON */ }
  throw new ApiError(data.code || "unavailable", data.message || `HTTP ${response.status}`, data.details || {}, response.status);
}

const get = (path) => request("GET", path);
const post = (path, body = {}) => request("POST", path, body);
const tablePath = (tableId) => `/api/v2/poker/tables/${encodeURIComponent(tableId)}`;

export const api = {
  signUp: (email, password, screenName) => post("/api/v2/accounts/signup",
    screenName ? { email, password, screenName } : { email, password }),
  rename: (name) => request("PUT", "/api/v2/accounts/me/name", { name }),
  logIn: (email, password) => post("/api/v2/accounts/login", { email, password }),
  logOut: () => request("POST", "/api/v2/accounts/logout"),
  me: () => get("/api/v2/accounts/me"),
  createAgent: (name) => post("/api/v2/accounts/agents", { name }),
  games: () => get("/api/v2/poker/games"),
  tables: () => get("/api/v2/poker/tables"),
  view: (tableId, invite) => get(`${tablePath(tableId)}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`),
  createTable: (config) => post("/api/v2/poker/tables", config),
  invite: (code) => get(`/api/v2/poker/invites/${encodeURIComponent(code)}`),
  /** Over REST: the one join that carries an invite code; at an approval table it answers `pending`. */
  join: (tableId, body) => post(`${tablePath(tableId)}/join`, body),
  host: (tableId, control, body = {}) => post(`${tablePath(tableId)}/host/${control}`, body),
  removeBot: (tableId, participantId) => request("DELETE", `${tablePath(tableId)}/host/bots/${encodeURIComponent(participantId)}`),
  rotateInvite: (tableId) => post(`${tablePath(tableId)}/invite`),
  revokeInvite: (tableId) => request("DELETE", `${tablePath(tableId)}/invite`),
  hands: (tableId) => get(`${tablePath(tableId)}/hands?limit=10`),
  hand: (handId, format) => request("GET", `/api/v2/poker/hands/${encodeURIComponent(handId)}${format === "phh" ? ".phh" : ""}`,
    undefined, { text: true }),
  chat: (tableId) => get(`${tablePath(tableId)}/chat?limit=50`),
  balance: () => get("/api/v2/poker/balance"),
  refillState: () => get("/api/v2/poker/refill"),
  refill: (refillId) => post("/api/v2/poker/refill", { refillId }),
  sessions: () => get("/api/v2/poker/sessions?limit=20"),
  ladder: () => get("/api/v2/poker/ladder?limit=100"),
  tournaments: () => get("/api/v2/poker/tournaments"),
  tournament: (id) => get(`/api/v2/poker/tournaments/${encodeURIComponent(id)}`),
  register: (id) => post(`/api/v2/poker/tournaments/${encodeURIComponent(id)}/register`),
  unregister: (id) => request("DELETE", `/api/v2/poker/tournaments/${encodeURIComponent(id)}/register`),
};
