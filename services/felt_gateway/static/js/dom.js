// Small DOM and formatting helpers shared by the screens. Text always goes in through
// textContent, never innerHTML.

export const $ = (selector, root = document) => root.querySelector(selector);

/** An element with attributes/properties and children (strings become text nodes). */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export const chips = (n) => (n ?? 0).toLocaleString("en-US");

export function stakes(config) {
  const parts = [];
  if (config.bigBlind) parts.push(`${chips(config.smallBlind)}/${chips(config.bigBlind)}`);
  const anteBy = { big_blind: "big-blind ante", button: "button ante" }[config.anteMode] || "ante";
  if (config.ante) parts.push(`${anteBy} ${chips(config.ante)}`);
  if (config.straddle) parts.push(`straddle ${chips(2 * config.bigBlind)}`);
  return parts.join(" · ") || "—";
}

export function buyInRange(config) {
  if (config.minBuyIn == null) return "your balance plays";
  return `${chips(config.minBuyIn)}–${chips(config.maxBuyIn)}`;
}

const STRUCTURES = { "no-limit": "No limit", "pot-limit": "Pot limit", "fixed-limit": "Fixed limit" };
// a table that names no structure plays its profile's (the first of felt_engine.profiles' structures)
const PROFILE_STRUCTURE = { "nlhe-1": "no-limit", "plhe-1": "pot-limit", "flhe-1": "fixed-limit", "ante-nl-1": "no-limit", "draw5-1": "no-limit" };
export const structureName = (config) => {
  const structure = config.structure || PROFILE_STRUCTURE[config.rulesVersion];
  return STRUCTURES[structure] || structure || "";
};

const GAMES = { "nlhe-1": "Hold'em", "plhe-1": "Hold'em", "flhe-1": "Hold'em", "ante-nl-1": "Ante hold'em", "draw5-1": "Five-card draw" };
export const gameName = (config) => GAMES[config.rulesVersion] || config.rulesVersion;

const ADMISSION = { MIXED: "People & bots", HUMANS_ONLY: "People only", AGENTS_ONLY: "Bots only" };
export const admissionName = (admission) => ADMISSION[admission] || admission;

/** What is left of a limited table: "12 hands left", "8 min left" (both when both apply), or "". */
export function limitLeft(table, now = Date.now()) {
  const parts = [];
  const maxHands = table.maxHands ?? table.config?.maxHands;
  const hands = table.handsLeft ?? (maxHands != null ? Math.max(0, maxHands - (table.handsPlayed ?? 0)) : null);
  if (hands != null) parts.push(`${hands} hand${hands === 1 ? "" : "s"} left`);
  const closesAt = table.closesAt ?? table.config?.closesAt;
  if (closesAt) {
    const minutes = Math.max(0, Math.ceil((Date.parse(closesAt) - now) / 60000));
    parts.push(minutes ? `${minutes} min left` : "closing");
  }
  return parts.join(" · ");
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}
